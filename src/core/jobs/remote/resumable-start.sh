# The part of the start that makes a job resumable (after start.sh; D: the job's folder), from the
# values above it (ckpt, resume_cmd, policy, ondemand, mkckpt). Needs paths.sh.
printf '%s\n' "$ckpt" >"$D/ckpt"
printf '%s\n' "$resume_cmd" >"$D/resume-cmd"
printf '%s\n' "$policy" >"$D/policy"
[ -z "$ondemand" ] || printf '%s\n' "$ondemand" >"$D/ondemand"
cp "$D/cmd" "$D/cmd.orig"
instance_id
printf '%s\n' "$I" >"$D/instance"
# The checkpoint folder did not exist and the user said to make it.
if [ "$mkckpt" = 1 ]; then
  r() { head -c 2000 "$D/$1" 2>/dev/null; }
  resolve
  mkdir -p -- "$C"
fi
