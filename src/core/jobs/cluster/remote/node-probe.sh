# After interface-address.sh: whether the node has rsync and timeout, the folder ssh starts in, and the user's ids.
if command -v rsync >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1; then echo rsync=yes; else echo rsync=no; fi
printf 'home=%s\n' "$(pwd)"
printf 'id=%s:%s\n' "$(id -u)" "$(id -g)"
