# The functions that find and measure checkpoints, the same on every side: the listing (old
# instance), the check after a copy (new instance) and the `resume` script. Bounded: `find` under
# `timeout 5`, a name at most 1000 bytes, a manifest of at most a million files.

# nw <folder>: its newest entry (a file or a folder, not hidden, links not followed) by modification
# time in whole seconds, ties broken by the name's version order (sort -V: checkpoint-12 after
# checkpoint-9). Sets NN to its name and NM to its time, both empty when there is none.
# shellcheck disable=SC2034 # NM is a result for the caller: the listing reads it, `resume` does not.
nw() {
  NN='' NM=''
  local r
  IFS= read -r -d "" r < <(timeout 5 find "$1" -mindepth 1 -maxdepth 1 ! -name ".*" \( -type f -o -type d \) -printf "%T@\t%P\0" 2>/dev/null |
    while IFS= read -r -d "" x; do t=${x%%$'\t'*}; printf "%s\t%s\0" "${t%%.*}" "${x#*$'\t'}"; done |
    LC_ALL=C sort -z -t $'\t' -k1,1n -k2V | tail -z -n 1)
  [ -n "$r" ] || return 0
  NM=${r%%$'\t'*} NN=${r#*$'\t'}
}

# ms <path>: the manifest of a file or a folder: each regular file under it as its relative path and
# size (<path>\t<size>, NUL-terminated, sorted bytewise; a file's own path is empty), printed as
# `<bytes> <files> <sha256 of the manifest>`. du would count the folders' own entries, which a sum
# of file sizes never matches.
ms() {
  {
    timeout 5 find "$1" -type f -printf "%P\t%s\0" 2>/dev/null | LC_ALL=C sort -z | head -z -n 1000000 |
      {
        b=0 c=0
        while IFS= read -r -d "" x; do s=${x##*$'\t'}; s=${s//[!0-9]/}; b=$((b + ${s:-0})) c=$((c + 1)); printf "%s\0" "$x"; done
        printf "%s %s " $b $c >&3
      } | sha256sum | head -c 64
  } 3>&1
}

# hx <text>: its bytes in lowercase hex, how a name leaves a script (a newline or a tab in it would
# split a line).
hx() { printf %s "$1" | head -c 1000 | od -An -v -tx1 | tr -d ' \n'; }

# dx <hex>: sets DX to the name again, failing for anything that is not one path segment.
dx() {
  DX=''
  local h=$1 i o=''
  case $h in "" | *[!0-9a-f]*) return 1 ;; esac
  [ $((${#h} % 2)) = 0 ] && [ ${#h} -le 2000 ] || return 1
  for ((i = 0; i < ${#h}; i += 2)); do
    case ${h:i:2} in 00 | 2f) return 1 ;; esac
    o+="\\x${h:i:2}"
  done
  printf -v DX %b "$o"
  case $DX in . | ..) DX=''; return 1 ;; esac
}
