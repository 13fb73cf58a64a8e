# Follows the job's log from byte O (1-based): stdout carries the log's bytes and nothing else until
# the command ended; then stderr gets the job's status line. D: the job's folder. Needs status.sh.
[ -f "$D/cmd" ] || { echo GPU-RENTAL-JOB-MISSING >&2; exit 3; }
# The wrapper writes the command's pid a moment after it starts.
i=0; while [ ! -s "$D/pid" ] && [ ! -f "$D/exit" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
P=$(head -c 20 "$D/pid" 2>/dev/null)
# tail -F reads new bytes as they come (inotify where it can) and ends once the command is gone,
# after a last read; a job that already ended gets the rest of its log.
if [ ! -f "$D/exit" ] && [ -n "$P" ] && kill -0 "$P" 2>/dev/null; then tail -c +"$O" -F -s 0.2 --pid="$P" "$D/log" 2>/dev/null || true
else tail -c +"$O" "$D/log" 2>/dev/null || true; fi
W=$(head -c 20 "$D/wpid" 2>/dev/null)
i=0; while [ ! -f "$D/exit" ] && [ -n "$W" ] && kill -0 "$W" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
st "$D" >&2
