(sleep 5; for r in "${HOME:-/root}"/.gpu-rental/jobs/*/resume; do [ -f "$r" ] && bash "$r"; done) >/dev/null 2>&1 &
