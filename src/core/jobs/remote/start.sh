# Writes a new job's folder D from the values above it (cwd, label, api, stop) and the command on
# stdin, and the empty log. Run again with the same job id, it starts nothing and says so, so a
# start can be retried; any other folder already there is an error.
if [ -e "$D" ]; then [ -s "$D/wpid" ] && { echo started already; exit 0; }; echo "a job folder $D exists already" >&2; exit 3; fi
mkdir -p "$D"
cat >"$D/cmd"
printf '%s\n' "$cwd" >"$D/cwd"
printf '%s\n' "$label" >"$D/label"
[ -z "$api" ] || printf '%s\n' "$api" >"$D/api"
printf '%s\n' "$stop" >"$D/stop-at-end"
: >"$D/log"
