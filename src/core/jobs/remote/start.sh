# Writes a new job's folder D from the values above it (cwd, label, api, stop, notify) and the
# command on stdin, and the empty log. Run again with the same job id, it starts nothing and says
# so, so a start can be retried; any other folder already there is an error.
if [ -e "$D" ]; then [ -s "$D/wpid" ] && { echo started already; exit 0; }; echo "a job folder $D exists already" >&2; exit 3; fi
mkdir -p "$D"
# With notify=1 the first line of stdin is the Notify Me URL: into a file only this user may read
# (made so by the umask, never readable for a moment), never into this script's text.
if [ "$notify" = 1 ]; then IFS= read -r n || true; (umask 077 && printf '%s\n' "$n" >"$D/notify"); n=''; fi
cat >"$D/cmd"
printf '%s\n' "$cwd" >"$D/cwd"
printf '%s\n' "$label" >"$D/label"
[ -z "$api" ] || printf '%s\n' "$api" >"$D/api"
printf '%s\n' "$stop" >"$D/stop-at-end"
: >"$D/log"
