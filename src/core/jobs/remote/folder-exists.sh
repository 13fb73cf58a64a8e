# Whether the folder Y (as typed; relative to X, the job's folder as typed) exists: prints yes or no. Needs paths.sh.
r() { case $1 in cwd) printf %s "$X" ;; ckpt) printf %s "$Y" ;; esac; }
resolve
if [ -d "$C" ]; then echo yes; else echo no; fi
