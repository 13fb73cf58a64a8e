# launch tmux|setsid: starts the wrapper "$D/run" detached: in a tmux session named after the job
# (gpu-rental-<its folder's name, the job id>) when tmux is there and not refused, else with
# `setsid nohup`, else plain `nohup`; prints `started tmux|setsid|nohup`, then waits until the
# wrapper wrote its pid and fails (exit 4) when it did not.
launch() {
  T=''
  [ "$1" = setsid ] || T=$(command -v tmux || true)
  if [ -n "$T" ]; then
    tmux new-session -d -s "gpu-rental-${D##*/}" bash "$D/run" "$D"
    echo started tmux
  elif command -v setsid >/dev/null; then
    setsid nohup bash "$D/run" "$D" </dev/null >/dev/null 2>&1 &
    echo started setsid
  else
    nohup bash "$D/run" "$D" </dev/null >/dev/null 2>&1 &
    echo started nohup
  fi
  # The wrapper writes its pid first: until then the job has not started.
  i=0; while [ ! -s "$D/wpid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  [ -s "$D/wpid" ] || { echo "the job's wrapper did not start" >&2; exit 4; }
}
