# The idle watchdog's loop (watchdog.ts), run in the background by the start-up script with
# U (the API), N (idle seconds), E (seconds between looks), T (GPU percent), W (the longest N),
# L (the log) and i=0 set before it. Kept short: the start-up script has a length limit.
log(){ echo "$(date -u +%FT%TZ) $*" >>"$L"; }
[ "$N" -gt 0 ] 2>/dev/null&&[ "$N" -le "$W" ]||{ log "idle stop off: bad idle time N=$N";exit;}
log "idle stop on: instance $CONTAINER_ID stops after ${N}s with GPU<=${T}%, no SSH session, no job"
while sleep $E; do
 g=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits 2>/dev/null|sort -n|tail -1);g=${g%%.*};g=${g//[!0-9]/};g=${g:-0}
 s=$(for f in /proc/[0-9]*/cmdline;do tr '\0' ' '<"$f";echo;done 2>/dev/null|grep -Ec '^sshd[-a-z]*: [^ ]+@')
 j=$(for w in ~/.gpu-rental/jobs/*/wpid;do kill -0 "$(head -c9 "$w")"&&[ ! -f "${w%wpid}exit" ]&&echo 1;done 2>/dev/null|grep -c .)
 if [ "$g" -gt $T ]||[ "${s:-0}" -gt 0 ]||[ $j -gt 0 ];then i=0;else i=$((i+E));fi
 [ $i -lt $N ]&&continue
 log "idle for ${i}s (GPU ${g}%, no SSH session, no job): stopping instance $CONTAINER_ID"
 unset k;k=${CONTAINER_API_KEY//[[:cntrl:]\"\\]/} B='{"state":"stopped"}' H='Content-Type: application/json' P="$U/api/v0/instances/$CONTAINER_ID/"
 if command -v curl >/dev/null;then r=$(printf 'header="Authorization: Bearer %s"\n' "$k"|curl -sK- -o/dev/null -w'%{http_code}' -m30 -XPUT -H"$H" -d"$B" "$P")
 elif command -v wget >/dev/null&&f=$(umask 077;mktemp);then printf 'header=Authorization: Bearer %s\n' "$k" >"$f";r=$(wget --config="$f" -SqO/dev/null -T30 --method=PUT --header="$H" --body-data="$B" "$P" 2>&1|sed -n "s/^ *HTTP\/[^ ]* \([0-9]*\).*/\1/p"|tail -n1);rm -f "$f"
 else r=$(printf %s "$k"|python3 -c 'import sys,urllib.request as u
try:print(u.urlopen(u.Request(sys.argv[1],sys.argv[2].encode(),{"Authorization":"Bearer "+input(),"Content-Type":"application/json"},method="PUT"),timeout=30).status)
except Exception as e:print(getattr(e,"code",0))' "$P" "$B");fi
 r=${r//[!0-9]/};[ "${r:-0}" -gt 0 ]&&log "the service answered HTTP $r"||log "the service did not answer";i=0
done
