# Runs the `resume` of the job in D with the arguments set above it.
[ -f "$D/resume" ] || { echo GPU-RENTAL-JOB-NOT-RESUMABLE >&2; exit 3; }
bash "$D/resume" "$@" </dev/null
