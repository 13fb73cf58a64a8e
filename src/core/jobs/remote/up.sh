# up <job folder>: whether the job's wrapper runs. Its pid alone is not enough: after a restart the
# instance counts pids from 1 again, and another process may hold the pid the wrapper had. Builtins
# only: the listing asks this of every job on every poll.
up() {
  local w='' c='' x
  [ -f "$1/wpid" ] && { IFS= read -r -N 20 w <"$1/wpid"; } 2>/dev/null
  w=${w//[!0-9]/}
  [ -n "$w" ] && kill -0 "$w" 2>/dev/null || return 1
  [ -r "/proc/$w/cmdline" ] || return 0
  while IFS= read -r -d "" x; do c+="$x "; done 2>/dev/null <"/proc/$w/cmdline"
  case $c in *"/${1##*/}/run "*) return 0 ;; esac
  return 1
}
