# Writes the outbid policy set above (policy) into the job's folder D, replaced whole.
[ -f "$D/resume" ] || { echo GPU-RENTAL-JOB-NOT-RESUMABLE >&2; exit 3; }
printf '%s\n' "$policy" >"$D/policy.part" && mv -f "$D/policy.part" "$D/policy"
