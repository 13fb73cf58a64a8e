# resolve: sets W to the job's folder and C to its checkpoint folder, both absolute, from what
# `r cwd` and `r ckpt` say (~ and relative paths are in the home folder; a relative checkpoint
# folder is in the job's folder).
resolve() {
  W=$(r cwd)
  case $W in \~ | "" | .) W=$HOME ;; \~/*) W="$HOME/${W#\~/}" ;; /*) ;; *) W="$HOME/$W" ;; esac
  C=$(r ckpt)
  case $C in \~) C=$HOME ;; \~/*) C="$HOME/${C#\~/}" ;; /*) ;; "" | .) C=$W ;; *) C="$W/$C" ;; esac
}

# instance_id: sets I to this instance's id (CONTAINER_ID, else PID 1's, which an SSH session
# lacks), digits only.
instance_id() {
  I=${CONTAINER_ID:-$(tr '\0' '\n' </proc/1/environ 2>/dev/null | sed -n "s/^CONTAINER_ID=//p" | head -n 1)}
  I=${I//[!0-9]/}
}
