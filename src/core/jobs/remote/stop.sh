# Stops the job in D: records in `cancelled` whether the instance still stops at the end (keep or
# stop, from the caller), then signals the command's process group, TERM and after 5 s KILL.
[ -f "$D/cmd" ] || { echo GPU-RENTAL-JOB-MISSING >&2; exit 3; }
[ -f "$D/exit" ] && { echo not-running; exit 0; }
echo "$cancelled" >"$D/cancelled"
P=$(head -c 20 "$D/pid" 2>/dev/null)
[ -n "$P" ] || { echo not-running; exit 0; }
kill -TERM -- -"$P" 2>/dev/null || kill -TERM "$P" 2>/dev/null || true
i=0; while kill -0 "$P" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
kill -KILL -- -"$P" 2>/dev/null || true
echo stopped
