# The log of the job in D from byte O (1-based).
[ -f "$D/log" ] || { echo GPU-RENTAL-JOB-MISSING >&2; exit 3; }
tail -c +"$O" "$D/log"
