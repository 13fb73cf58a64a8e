# The body of a job's `resume` (see resumeScripts.ts): resume [moved <instance id>] [checkpoint <name in hex>].
# Needs up.sh, checkpoints.sh, paths.sh and launch.sh, and `how` (tmux or setsid, for launch).
D=$(cd "$(dirname "$0")" && pwd) || exit 1
# bash 5.2 would read & in a replacement as the matched text.
shopt -u patsub_replacement 2>/dev/null
r() { head -c 2000 "$D/$1" 2>/dev/null; }
done_() { if [ -f "$D/exit" ]; then echo ended; elif [ -f "$D/cancelled" ]; then echo cancelled; elif up "$D"; then echo running; else return 1; fi; }
# A checkpoint named (in hex, see checkpoints.sh): the one the move checked on this instance, whatever the times say.
M=""; X=""
while [ $# -gt 0 ]; do
  case $1 in
    moved) case $2 in "" | *[!0-9]*) echo "resume: moved needs an instance id" >&2; exit 2 ;; esac; M=$2 ;;
    checkpoint) dx "$2" || { echo "resume: checkpoint needs a name in hex, one path segment" >&2; exit 2; }; X=$DX ;;
    *) echo "usage: resume [moved <instance id>] [checkpoint <name in hex>]" >&2; exit 2 ;;
  esac
  shift 2 || exit 2
done
done_ && exit 0
L="$D/resume.lock"
# A lock older than a minute was left by a resume that a stop cut short: taken over by one of those who find it.
if ! mkdir "$L" 2>/dev/null; then
  if [ -n "$(find "$L" -maxdepth 0 -mmin +1 2>/dev/null)" ] && mv "$L" "$L.$$" 2>/dev/null; then rm -rf "$L.$$"; fi
  mkdir "$L" 2>/dev/null || { echo busy; exit 0; }
fi
trap 'rmdir "$L" 2>/dev/null' EXIT
# Another resume may have started it between the first look and the lock.
done_ && exit 0
resolve
# The checkpoint named must be there (a file or a folder, not a link): never another one in its place.
if [ -n "$X" ]; then
  N="$C/$X"; if [ -L "$N" ] || { [ ! -f "$N" ] && [ ! -d "$N" ]; }; then echo "resume: no checkpoint $(printf %q "$X") in $C" >&2; exit 4; fi
else nw "$C"; N=${NN:+$C/$NN}; fi
# A job folder that ran on another instance came with a copy (a move): say so, whoever resumes it (the hook may be first).
instance_id
p=$(r instance); p=${p//[!0-9]/}
[ -z "$M" ] && [ -n "$I" ] && [ -n "$p" ] && [ "$I" != "$p" ] && M=$p
[ -n "$I" ] && printf '%s\n' "$I" >"$D/instance"
now=$(date +%s); s=$(r started); s=${s//[!0-9]/}
# The time the last run had: from its start to its log's last write.
g=$(stat -c %Y -- "$D/log" 2>/dev/null); t=$(r ran); t=${t//[!0-9]/}; t=${t:-0}
[ -n "$s" ] && [ -n "$g" ] && [ "$g" -gt "$s" ] && t=$((t + g - s)); echo $t >"$D/ran"
if [ -n "$N" ]; then
  m=$(stat -c %Y -- "$N" 2>/dev/null || date -r "$N" +%s); m=${m//[!0-9]/}; lost=$((now - ${m:-$now}))
  # {latest} is LATEST_PLACEHOLDER (resumable.ts): the checkpoint's absolute path, quoted for bash.
  Q=$(printf %q "$N"); R=$(cat "$D/resume-cmd"); R=${R//"{latest}"/"$Q"}
  printf '%s\n' "$R" >"$D/cmd"
else
  lost=$((now - ${s:-$now})); cp -f "$D/cmd.orig" "$D/cmd"
  echo "GPU Rental: no checkpoint in $C yet; starting the job over" >>"$D/log"
fi
[ "$lost" -ge 0 ] || lost=0
if [ -n "$M" ]; then echo "$now moved $M $lost"; else echo "$now resumed $lost"; fi >>"$D/history"
n=$(grep -c . "$D/history")
if [ -n "$M" ]; then echo "GPU Rental: moved from #$M and resumed (×$n) from ${N:-the start}"; else echo "GPU Rental: resumed (×$n) from ${N:-the start}"; fi >>"$D/log"
rm -f "$D/wpid" "$D/pid" "$D/ended"
launch "$how"
echo resumed
