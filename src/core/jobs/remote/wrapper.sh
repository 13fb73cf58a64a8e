#!/bin/bash
# GPU Rental job wrapper: runs ./cmd, output in ./log, exit code in ./exit.
D=$1
r() { head -c 2000 "$D/$1" 2>/dev/null; }
echo $$ >"$D/wpid"
date +%s >"$D/started"
# The instance's own variables (its key, its id): in the environment, else in PID 1's (ssh sessions may not carry them).
e() {
  v=$(printenv "$1")
  [ -n "$v" ] || v=$(tr '\0' '\n' </proc/1/environ 2>/dev/null | sed -n "s/^$1=//p" | head -n 1)
  printf %s "$v"
}
# Notify Me (a `notify` file): ONE short text/plain line about the job's end, POSTed to the user's own URL
# in the background (15 s at most), so that it delays neither the exit file nor the stop at the end. It is
# unsigned (the webhook's signing secret never comes to an instance) and holds no URL and no key. The URL
# goes to curl on stdin, to wget in a file only this user may read, to python3 on stdin: never on a command
# line, which ps shows to everyone; what would break out of a config line is taken out of it first.
send() {
  local h='Content-Type: text/plain; charset=utf-8' t='Title: GPU Rental' x='X-GPU-Rental-Event: job_end' q f
  if command -v curl >/dev/null; then
    q=${2//\\/\\\\}; q=${q//\"/\\\"}
    printf 'url = "%s"\ndata-binary = "%s"\n' "$1" "$q" | curl -s -o /dev/null -m 15 --proto =http,https -K - -H "$h" -H "$t" -H "$x"
  elif command -v wget >/dev/null && f=$(umask 077; mktemp -d 2>/dev/null); then
    printf '%s\n' "$1" >"$f/u"; printf %s "$2" >"$f/b"
    wget -q -O /dev/null -T 15 -t 1 --method=POST --header="$h" --header="$t" --header="$x" --body-file="$f/b" -i "$f/u"
    rm -rf "$f"
  else printf '%s\n%s' "$1" "$2" | python3 -c 'import sys,urllib.request as u
a=sys.stdin.buffer.read().split(b"\n",1)
q=u.Request(a[0].decode(),a[1] if len(a)>1 else b"",{"Content-Type":"text/plain; charset=utf-8","Title":"GPU Rental","X-GPU-Rental-Event":"job_end"},method="POST")
try: u.urlopen(q,timeout=15).close()
except Exception: pass'; fi
}
# tell <what>: sends `GPU Rental: job "<label>" on instance <id> <what>`, once whatever calls it again.
T=''
tell() {
  [ -z "$T" ] || return 0
  T=1
  local u l i
  u=$(head -n 1 "$D/notify" 2>/dev/null | head -c 2100); u=${u//[[:cntrl:]\"\\]/}
  case $u in https://?* | http://?*) ;; *) return 0 ;; esac
  i=$(e CONTAINER_ID); i=${i//[!0-9]/}
  # The label as printable text: no control character (C0 and DEL; C1 too where the UTF-8 locale is there).
  l=$(r label | head -n 1 | head -c 300)
  l=$({ LC_ALL=C.UTF-8; } 2>/dev/null; l=${l//[[:cntrl:]]/ }; LC_ALL=C; printf %s "${l//[[:cntrl:]]/ }")
  (trap '' HUP; send "$u" "GPU Rental: job \"$l\"${i:+ on instance $i} $1") </dev/null >/dev/null 2>&1 &
}
# bash 5.2 would read & in a replacement as the matched text, and a backslash there as an escape.
shopt -u patsub_replacement 2>/dev/null
# Killed with the job running (a tmux session closed, a TERM): the job's end is told as an interruption.
trap 'tell "was interrupted"; exit 143' TERM
trap 'tell "was interrupted"; exit 129' HUP
W=$(r cwd)
# A folder typed as ~/x means the home folder on the instance, which only the instance knows.
case $W in \~ | "" | .) W=$HOME ;; \~/*) W="$HOME/${W#\~/}" ;; /*) ;; *) W="$HOME/$W" ;; esac
# The container's variables (the account's and the rent's env: HF_TOKEN and friends) live in PID 1's
# environment, which SSH sessions do not inherit: the job gets those it lacks, except the instance key.
while IFS= read -r -d "" kv; do
  n=${kv%%=*}
  case $n in CONTAINER_API_KEY | "" | [0-9]* | *[!A-Za-z0-9_]*) continue ;; esac
  [ -n "${!n+x}" ] || export "$n=${kv#*=}"
done </proc/1/environ 2>/dev/null
if cd -- "$W" 2>/dev/null; then
  # Job control gives the command its own process group (its pid), which Stop Job signals as a whole.
  set -m
  # The instance key never reaches the job: not from PID 1 (above), nor from an SSH session or a tmux server that has it.
  (unset CONTAINER_API_KEY; PYTHONUNBUFFERED=1 exec bash "$D/cmd") </dev/null >>"$D/log" 2>&1 &
  P=$!
  echo $P >"$D/pid"
  wait $P; c=$?
  set +m
else
  echo "GPU Rental: the folder $W does not exist on the instance; the job did not run." >>"$D/log"
  c=1
fi
date +%s >"$D/ended"
echo $c >"$D/exit.part" && mv -f "$D/exit.part" "$D/exit"
if [ -f "$D/cancelled" ]; then tell "was interrupted"; elif [ "$c" = 0 ]; then tell "finished (exit 0)"; else tell "failed (exit $c)"; fi
[ "$(r stop-at-end)" = 1 ] || exit 0
# Stop Job chose to keep the instance: the stop at the end is off.
[ "$(r cancelled)" = keep ] && { echo "not asked: the job was stopped by hand" >"$D/stop-answer"; exit 0; }
# STOP_GRACE_SECONDS (scripts.ts): a follower reads the end before the instance stops.
sleep 2
# K is unset first, so that a K the job's variables exported does not carry the key to every command below.
unset K; K=$(e CONTAINER_API_KEY) I=$(e CONTAINER_ID) U=$(r api)
date +%s >"$D/stop-asked"
if [ -z "$K" ] || [ -z "$I" ] || [ -z "$U" ]; then echo "not asked: no instance key or id on the instance" >"$D/stop-answer"; exit 0; fi
P="$U/api/v0/instances/$I/" B='{"state":"stopped"}' H='Content-Type: application/json'
# The key goes to curl and python3 on stdin and to wget in a file only this user may read (removed at once), never
# on a command line, which ps shows to everyone. What would break out of a config line (a quote, a backslash, a
# control character) is taken out of it first. Only the status code is kept: an answer may echo the key.
K=${K//[[:cntrl:]\"\\]/}
if command -v curl >/dev/null; then s=$(printf 'header = "Authorization: Bearer %s"\n' "$K" | curl -s -o /dev/null -w "%{http_code}" -m 30 -K - -X PUT -H "$H" -d "$B" "$P" 2>/dev/null)
elif command -v wget >/dev/null && f=$(umask 077; mktemp 2>/dev/null); then
  printf 'header = Authorization: Bearer %s\n' "$K" >"$f"
  s=$(wget --config="$f" -S -qO /dev/null -T 30 --method=PUT --header="$H" --body-data="$B" "$P" 2>&1 | sed -n "s/^ *HTTP\/[0-9.]* \([0-9]*\).*/\1/p" | tail -n 1)
  rm -f "$f"
else s=$(printf %s "$K" | python3 -c 'import sys,urllib.request as u,urllib.error as x
q=u.Request(sys.argv[1],sys.argv[2].encode(),{"Authorization":"Bearer "+sys.stdin.read(),"Content-Type":"application/json"},method="PUT")
try: print(u.urlopen(q,timeout=30).status)
except x.HTTPError as h: print(h.code)
except Exception: print(0)' "$P" "$B" 2>/dev/null); fi
s=${s//[!0-9]/}
echo "HTTP ${s:-0}" >"$D/stop-answer"
