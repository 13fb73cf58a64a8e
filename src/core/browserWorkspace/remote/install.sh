# Installs a VS Code server (code-server's release layout) on this instance, once, from a tarball
# that must have the sha256 it was given. Set before this body: URL, SHA (lower-case hex), FOLDER
# (the folder name it installs as), BASE (the state folder, relative to $HOME unless absolute).
# Prints `progress <bytes>` every second while it downloads (a closed connection ends it, see
# the trap), then `installed <path>` once the server is in place. Nothing half-done is left where a
# later run would take it for a good install: the tarball and the unpacked tree stay in a temporary
# folder until both are checked, and a folder only counts as installed with its marker file.
# Exit codes: 10 no curl or wget, 11 the download failed, 12 wrong sha256, 13 no space left,
# 14 the tarball holds no code-server, 15 no sha256 tool, 16 another install is running, 17 the
# state folder cannot be made.
set -u
umask 022
case $BASE in /*) base=$BASE ;; *) base=$HOME/$BASE ;; esac
final=$base/$FOLDER
marker=$final/.gpu-rental-complete
if [ -f "$marker" ] && [ -x "$final/bin/code-server" ]; then
  printf 'installed %s\n' "$final"
  exit 0
fi
mkdir -p "$base" 2>/dev/null || { echo "cannot create $base" >&2; exit 17; }
lock=$base/.install-lock
if ! mkdir "$lock" 2>/dev/null; then
  other=$(cat "$lock/pid" 2>/dev/null)
  if [ -n "$other" ] && kill -0 "$other" 2>/dev/null; then
    echo "another install (pid $other) is running on this instance" >&2
    exit 16
  fi
  rm -rf "$lock"
  mkdir "$lock" 2>/dev/null || { echo "cannot lock $lock" >&2; exit 16; }
fi
echo $$ >"$lock/pid"
work=$(mktemp -d "$base/.partial-XXXXXX") || { rm -rf "$lock"; echo "cannot create a folder in $base" >&2; exit 13; }
fetch=
cleanup() {
  [ -n "$fetch" ] && kill "$fetch" 2>/dev/null
  rm -rf "$work" "$lock"
}
# Cancel closes the connection: the next progress line fails, and so does this script.
trap 'cleanup; exit 130' HUP INT TERM PIPE
fail() {
  cleanup
  printf '%s\n' "$2" >&2
  exit "$1"
}
nospace() { grep -qi 'no space left' "$1" 2>/dev/null; }
# A half-done folder from an earlier run (no marker) goes first.
rm -rf "$final"
tarball=$work/download.tar.gz
if command -v curl >/dev/null 2>&1; then
  curl -fsSL --retry 2 --connect-timeout 20 -o "$tarball" "$URL" 2>"$work/fetch.err" &
elif command -v wget >/dev/null 2>&1; then
  wget -q -T 20 -t 3 -O "$tarball" "$URL" 2>"$work/fetch.err" &
else
  fail 10 "neither curl nor wget is installed on the instance"
fi
fetch=$!
while kill -0 "$fetch" 2>/dev/null; do
  sleep 1
  printf 'progress %s\n' "$(wc -c <"$tarball" 2>/dev/null || echo 0)"
done
wait "$fetch"
rc=$?
fetch=
if [ "$rc" -ne 0 ]; then
  if nospace "$work/fetch.err" || [ "$rc" -eq 23 ]; then fail 13 "no space left on the instance's disk while downloading $URL"; fi
  fail 11 "downloading $URL failed (exit $rc): $(tail -n 1 "$work/fetch.err" 2>/dev/null)"
fi
if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum <"$tarball" | cut -c1-64)
elif command -v shasum >/dev/null 2>&1; then
  got=$(shasum -a 256 <"$tarball" | cut -c1-64)
elif command -v openssl >/dev/null 2>&1; then
  got=$(openssl dgst -sha256 <"$tarball" | sed 's/^.*= *//')
else
  fail 15 "no sha256sum, shasum or openssl on the instance to check the download"
fi
[ "$got" = "$SHA" ] || fail 12 "the download has sha256 $got, not $SHA"
mkdir "$work/tree" || fail 13 "cannot create a folder in $base"
if ! tar -xzf "$tarball" -C "$work/tree" 2>"$work/tar.err"; then
  if nospace "$work/tar.err"; then fail 13 "no space left on the instance's disk while unpacking"; fi
  fail 14 "the tarball could not be unpacked: $(tail -n 1 "$work/tar.err")"
fi
rm -f "$tarball"
set -- "$work/tree"/*
if [ "$#" -ne 1 ] || [ ! -x "$1/bin/code-server" ]; then fail 14 "the tarball holds no bin/code-server in one top folder"; fi
mv "$1" "$final" || fail 13 "cannot move the server into $final"
: >"$marker" || { rm -rf "$final"; fail 13 "cannot write $marker"; }
cleanup
printf 'installed %s\n' "$final"
