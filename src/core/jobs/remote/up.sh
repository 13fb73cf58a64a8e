# up <job folder>: whether the job's wrapper runs. Its pid alone is not enough: after a restart the
# instance counts pids from 1 again, and another process may hold the pid the wrapper had.
up() {
  w=$(head -c 20 "$1/wpid" 2>/dev/null | tr -dc 0-9)
  [ -n "$w" ] && kill -0 "$w" 2>/dev/null || return 1
  [ -r "/proc/$w/cmdline" ] || return 0
  case "$(tr "\0" " " <"/proc/$w/cmdline" 2>/dev/null)" in *"/${1##*/}/run "*) return 0 ;; esac
  return 1
}
