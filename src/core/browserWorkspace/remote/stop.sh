# Stops this instance's VS Code server for Open in Browser (its whole process group) and removes
# its password. Set before this body: BASE (as install.sh's). Prints `stopped` or `none`.
set -u
case $BASE in /*) base=$BASE ;; *) base=$HOME/$BASE ;; esac
run=$base/run
pid=$(cat "$run/pid" 2>/dev/null)
rm -f "$run/config.yaml" "$run/port"
# Only a process that is still a code-server: a pid may have been reused since.
if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "code-server"; then
  rm -f "$run/pid"
  echo none
  exit 0
fi
kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
tries=0
while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 25 ]; do
  sleep 0.2
  tries=$((tries + 1))
done
kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
rm -f "$run/pid"
echo stopped
