# st <job folder>: prints the job's one status line (see scripts.ts, listScript). Needs up.sh and
# checkpoints.sh. Everything is bounded: a file's first 300 bytes, find under timeout. The
# listing runs on every poll for every job, so the job's own files are read with builtins, not a
# process or two each.
st() {
  d=$1 j=${1##*/}
  # f <name>: sets V to the first 300 bytes of the job's file <name> (a regular file only: never a
  # FIFO that would block), tabs and line breaks taken out; empty when there is none.
  f() { local LC_ALL=C; V=''; [ -f "$d/$1" ] && { IFS= read -r -N 300 V <"$d/$1"; } 2>/dev/null; V=${V//[$'\t\r\n']/}; }
  a=0
  up "$d" && a=1
  s=''
  [ -f "$d/log" ] && s=$(wc -c <"$d/log" 2>/dev/null)
  s=${s//[!0-9]/} s=${s:--1}
  local v1 v2 v3 v4 v5 v6 v7 v8
  f started; v1=$V; f ended; v2=$V; f exit; v3=$V; f stop-at-end; v4=$V
  f stop-answer; v5=$V; f cancelled; v6=$V; f cwd; v7=$V; f label; v8=$V
  P='' C='' A='' J='' K='' H='' O='' N='' B='' M='' R='' E='' F='' G=''
  if [ -f "$d/resume" ]; then
    f policy; P=$V; f ckpt; C=$V; f ondemand; O=$V; f ran; R=$V; J=$(cd "$d" 2>/dev/null && pwd)
    W=$v7
    case $W in \~ | "" | .) W=$HOME ;; \~/*) W="$HOME/${W#\~/}" ;; /*) ;; *) W="$HOME/$W" ;; esac
    A=$C
    case $A in \~) A=$HOME ;; \~/*) A="$HOME/${A#\~/}" ;; /*) ;; "" | .) A=$W ;; *) A="$W/$A" ;; esac
    K=$(grep -c . "$d/history" 2>/dev/null)
    H=$(tail -n 20 "$d/history" 2>/dev/null | head -c 1200 | tr " \n" ":,")
    nw "$A"
    if [ -n "$NN" ]; then
      N=$(hx "$NN") M=$NM
      read -r B F G < <(ms "$A/$NN")
    fi
    [ -f "$d/exit" ] && E=$(tail -c 300 "$d/log" 2>/dev/null | tail -n 1 | head -c 200)
    A=${A//[[:cntrl:]]/} J=${J//[[:cntrl:]]/} E=${E//[[:cntrl:]]/ }
  fi
  # STATUS_MARK (scripts.ts), then 25 fields.
  printf 'GPU-RENTAL-JOB\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$j" "$v1" "$v2" "$v3" "$a" "$v4" "$v5" "$v6" "$s" "$v7" \
    "$P" "$C" "$A" "$J" "$K" "$H" "$O" "$N" "$B" "$M" "$R" "$E" "$v8" "$F" "$G"
}
