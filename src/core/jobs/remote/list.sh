# Prints every job's status line. JOBS: the jobs folder. Needs status.sh.
for d in "$JOBS"/*/; do [ -f "$d/cmd" ] && st "${d%/}"; done
exit 0
