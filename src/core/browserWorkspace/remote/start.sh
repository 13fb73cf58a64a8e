# Starts this instance's VS Code server for Open in Browser, or finds the one already running. Set
# before this body: VERSION (the build's; it is installed as code-server-<version>-linux-<arch>),
# BASE (as install.sh's), SUFFIX (the session cookie's suffix: one browser talks to several
# instances on one host name).
# The server listens on the instance's 127.0.0.1 only, on a port the kernel picks, with a password
# that is written to a 0600 config file and never on a command line; it is printed here, over this
# ssh session, to the extension that opens the browser.
# Prints `running <port>` or `started <port>`, then `password <password>`; `missing <uname -m>` and
# exit 3 when no server is installed; exit 4 when it did not start (its log's end on stderr).
set -u
case $BASE in /*) base=$BASE ;; *) base=$HOME/$BASE ;; esac
run=$base/run
mkdir -p "$run" && chmod 700 "$run" || { echo "cannot create $run" >&2; exit 4; }
pid=$(cat "$run/pid" 2>/dev/null)
port=$(cat "$run/port" 2>/dev/null)
ours() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q "code-server"; }
password() { sed -n 's/^password: //p' "$run/config.yaml" 2>/dev/null; }
if ours "$pid" && [ -n "$port" ] && [ -n "$(password)" ]; then
  printf 'running %s\npassword %s\n' "$port" "$(password)"
  exit 0
fi
case $(uname -m) in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=none ;; esac
folder=$base/code-server-$VERSION-linux-$arch
if [ -f "$folder/.gpu-rental-complete" ] && [ -x "$folder/bin/code-server" ]; then
  bin=$folder/bin/code-server
elif command -v code-server >/dev/null 2>&1; then
  bin=$(command -v code-server)
else
  printf 'missing %s\n' "$(uname -m)"
  exit 3
fi
ours "$pid" && kill -TERM -- "-$pid" 2>/dev/null
rm -f "$run/pid" "$run/port"
secret=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
[ "${#secret}" -eq 48 ] || { echo "could not read /dev/urandom for a password" >&2; exit 4; }
(
  umask 077
  printf 'bind-addr: 127.0.0.1:0\nauth: password\npassword: %s\ncert: false\ncookie-suffix: %s\ndisable-telemetry: true\ndisable-update-check: true\n' \
    "$secret" "$SUFFIX" >"$run/config.yaml"
) || { echo "cannot write $run/config.yaml" >&2; exit 4; }
: >"$run/log"
if command -v setsid >/dev/null 2>&1; then
  setsid nohup "$bin" --config "$run/config.yaml" --user-data-dir "$base/data" --extensions-dir "$base/extensions" \
    >"$run/log" 2>&1 </dev/null &
else
  nohup "$bin" --config "$run/config.yaml" --user-data-dir "$base/data" --extensions-dir "$base/extensions" \
    >"$run/log" 2>&1 </dev/null &
fi
pid=$!
echo "$pid" >"$run/pid"
tries=0
while [ "$tries" -lt 300 ]; do
  port=$(sed -n 's#.*HTTP server listening on http://127\.0\.0\.1:\([0-9][0-9]*\)/.*#\1#p' "$run/log" | head -n 1)
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
  tries=$((tries + 1))
done
if [ -z "$port" ]; then
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  rm -f "$run/pid" "$run/config.yaml"
  tail -n 5 "$run/log" >&2
  exit 4
fi
echo "$port" >"$run/port"
printf 'started %s\npassword %s\n' "$port" "$secret"
