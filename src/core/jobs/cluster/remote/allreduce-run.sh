# Runs the all-reduce program (prog) with the arguments, under timeout when the node has it (limit
# seconds, then KILL 5 s later), in the background, its pid in the file f until it ends.
command -v python3 >/dev/null 2>&1 || { printf '%s\n' 'gpu-rental-preflight no-python3'; exit 0; }
t=; command -v timeout >/dev/null 2>&1 && t="timeout -k 5 $limit"
$t python3 -c "$prog" "$@" </dev/null &
p=$!
printf '%s\n' "$p" > "$f" 2>/dev/null
wait "$p"
rm -f "$f"
