# Stops the daemon whose pid the folder d holds (only while that process still runs with d's
# configuration), its whole process group after 3 s, then removes the folder.
pid=$(cat "$d/pid" 2>/dev/null)
case $pid in ''|*[!0-9]*) pid= ;; esac
ours() { [ -n "$pid" ] && grep -qF -- "$d/rsyncd.conf" "/proc/$pid/cmdline" 2>/dev/null; }
if ours; then
  kill -TERM "$pid" 2>/dev/null
  i=0
  while ours && [ "$i" -lt 30 ]; do i=$((i + 1)); sleep 0.1; done
  if ours; then kill -KILL -- "-$pid" "$pid" 2>/dev/null; fi
fi
rm -rf -- "$d"
