# Starts rsync's daemon on rank 0 (fanoutScripts.ts), detached, bound to the overlay address a, with
# its configuration from stdin in the folder d; tries each port:hex of the arguments until the
# daemon listens (on a's /proc/net/tcp form l) or is still alive after 5 s; prints port=N. h: its
# hard time limit in seconds.
mkdir -m 700 -- "$d" || exit 3
cat > "$d/rsyncd.conf" || { rm -rf -- "$d"; exit 3; }
while [ "$#" -gt 0 ]; do
  p=$1
  shift
  port=${p%:*}
  timeout -k 10 "$h" rsync --daemon --no-detach --config="$d/rsyncd.conf" --address="$a" --port="$port" --log-file="$d/rsyncd.log" </dev/null >/dev/null 2>&1 &
  pid=$!
  echo "$pid" > "$d/pid"
  i=0
  while kill -0 "$pid" 2>/dev/null; do
    if grep -q " $l:${p#*:} 00000000:0000 0A " /proc/net/tcp 2>/dev/null || [ "$i" -ge 50 ]; then echo "port=$port"; exit 0; fi
    i=$((i + 1))
    sleep 0.1
  done
done
tail -n 3 "$d/rsyncd.log" >&2 2>/dev/null
rm -rf -- "$d"
exit 4
