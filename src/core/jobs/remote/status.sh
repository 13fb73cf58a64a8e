# st <job folder>: prints the job's one status line (see scripts.ts, listScript). Needs up.sh and
# checkpoints.sh. Everything is bounded: files read with head -c, find under timeout.
st() {
  d=$1 j=${1##*/}
  f() { head -c 300 "$d/$1" 2>/dev/null | tr -d "\t\r\n"; }
  a=0
  up "$d" && a=1
  s=$(wc -c <"$d/log" 2>/dev/null | tr -d " ") || s=-1
  s=${s:--1}
  P='' C='' A='' J='' K='' H='' O='' N='' B='' M='' R='' E='' F='' G=''
  if [ -f "$d/resume" ]; then
    P=$(f policy) C=$(f ckpt) O=$(f ondemand) R=$(f ran) J=$(cd "$d" 2>/dev/null && pwd)
    W=$(f cwd)
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
    "$j" "$(f started)" "$(f ended)" "$(f exit)" "$a" "$(f stop-at-end)" "$(f stop-answer)" "$(f cancelled)" "$s" "$(f cwd)" \
    "$P" "$C" "$A" "$J" "$K" "$H" "$O" "$N" "$B" "$M" "$R" "$E" "$(f label)" "$F" "$G"
}
