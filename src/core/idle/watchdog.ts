import { ONSTART_MAX_CHARS } from '../api/limits';
import { shellQuote } from '../instances/ssh';
import { MAX_IDLE_MINUTES } from '../settings';
import { l10n } from '../l10n';

/** The longest idle time the watchdog takes, in seconds (one week). */
export const MAX_IDLE_SECONDS = MAX_IDLE_MINUTES * 60;

/** What the watchdog on the host is told at rent time. */
export interface WatchdogOptions {
  /** The API's base URL, e.g. https://console.vast.ai; the watchdog stops its instance through it. */
  baseUrl: string;
  /** Idle this long (no GPU use above the threshold and no SSH session) and the instance stops itself; at most a week. */
  idleMinutes: number;
  /** GPU utilisation, in percent, at or below which the GPU counts as idle. */
  gpuThreshold: number;
  /** How often it looks, in seconds (60 in use; tests make it short). */
  checkSeconds?: number;
}

export const WATCHDOG_BEGIN = '# >>> gpu-rental idle stop >>>';
export const WATCHDOG_END = '# <<< gpu-rental idle stop <<<';

/**
 * The watchdog, as a few lines of POSIX-ish bash that run in the background on the host, started
 * by the instance's start-up script. Every check it reads the busiest GPU's utilisation
 * (nvidia-smi; none counts as 0), counts SSH sessions (the per-session sshd processes, found
 * through /proc, so it needs no procps) and GPU Rental jobs still running (core/jobs: a live
 * wrapper without an exit code), so a CPU-bound step of a job is never cut off as idle. When neither shows use for the idle time, it stops its
 * own instance with the instance key the service puts into the container (CONTAINER_API_KEY, for
 * CONTAINER_ID), by curl, else wget, else python3. Everything it decides goes to
 * ~/gpu-rental-idle.log on the host. The key is never on a command line, where any process on the
 * host could read it, nor in the log, which keeps only the HTTP status of the service's answer.
 *
 * The idle time must be positive and at most a week: bash's arithmetic is 64-bit, and a larger
 * number would make its first comparison fail, which read as "idle" and stopped the instance at
 * once. The script checks this itself too and stays off, with a line in its log, rather than stop.
 */
export function watchdogScript(o: WatchdogOptions): string {
  const url = o.baseUrl.replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s'"]+$/.test(url)) throw new Error(l10n.t('"{0}" is not a usable base URL for the idle watchdog.', o.baseUrl));
  if (!(o.idleMinutes > 0 && o.idleMinutes <= MAX_IDLE_MINUTES)) {
    throw new RangeError(
      l10n.t(
        'An idle time of {0} minutes cannot be used: the idle stop takes more than 0 and at most {1} minutes (one week).',
        String(o.idleMinutes),
        MAX_IDLE_MINUTES,
      ),
    );
  }
  const check = o.checkSeconds ?? 60;
  if (!(check > 0 && check <= MAX_IDLE_SECONDS))
    throw new RangeError(l10n.t('The idle watchdog cannot check every {0} seconds.', String(check)));
  if (!Number.isFinite(o.gpuThreshold)) throw new RangeError(l10n.t('{0} is not a GPU threshold in percent.', String(o.gpuThreshold)));
  const idle = Math.max(1, Math.round(o.idleMinutes * 60));
  const every = Math.max(1, Math.min(Math.round(check), idle));
  const threshold = Math.max(0, Math.min(100, Math.round(o.gpuThreshold)));
  return [
    WATCHDOG_BEGIN,
    `(U=${shellQuote(url)} N=${idle} E=${every} T=${threshold} L="\${HOME:-/root}/gpu-rental-idle.log" i=0`,
    'log(){ echo "$(date -u +%FT%TZ) $*" >>"$L"; }',
    // A whole number of seconds up to a week, or it stays off: a failed comparison must never read as idle.
    `[ "$N" -gt 0 ] 2>/dev/null&&[ $N -le ${MAX_IDLE_SECONDS} ]||{ log "idle stop off: bad idle time N=$N";exit;}`,
    'log "idle stop on: instance $CONTAINER_ID stops after ${N}s with GPU<=${T}%, no SSH session, no job"',
    'while sleep $E; do',
    ' g=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits 2>/dev/null|sort -n|tail -1);g=${g%%.*};g=${g//[!0-9]/};g=${g:-0}',
    " s=$(for f in /proc/[0-9]*/cmdline;do tr '\\0' ' '<\"$f\";echo;done 2>/dev/null|grep -Ec '^sshd[-a-z]*: [^ ]+@')",
    // A GPU Rental job still running (its wrapper alive, no exit code yet) is use too: a CPU-bound step must not be cut off.
    ' j=$(for w in ~/.gpu-rental/jobs/*/wpid;do kill -0 $(head -c9 "$w")&&[ ! -f "${w%wpid}exit" ]&&echo 1;done 2>/dev/null|grep -c .)',
    ' if [ "$g" -gt $T ]||[ "${s:-0}" -gt 0 ]||[ $j -gt 0 ];then i=0;else i=$((i+E));fi',
    ' [ $i -lt $N ]&&continue',
    ' log "idle for ${i}s (GPU ${g}%, no SSH session, no job): stopping instance $CONTAINER_ID"',
    // The key reaches curl and python3 on stdin and wget in a file only this user may read, never a command line (ps
    // shows those to everyone), and never in a child's environment (k is unset, then set, so never exported); what
    // would break out of a config line (a quote, a backslash, a control character) is taken out of it first. Only the
    // HTTP status is logged: an answer may echo the request's Authorization header.
    ' unset k;k=${CONTAINER_API_KEY//[[:cntrl:]\\"\\\\]/} B=\'{"state":"stopped"}\' H=\'Content-Type: application/json\' P="$U/api/v0/instances/$CONTAINER_ID/"',
    ' if command -v curl >/dev/null;then r=$(printf \'header="Authorization: Bearer %s"\\n\' "$k"|curl -sK- -o/dev/null -w%{http_code} -m30 -XPUT -H"$H" -d"$B" "$P")',
    ' elif command -v wget >/dev/null&&f=$(umask 077;mktemp);then printf \'header=Authorization: Bearer %s\\n\' "$k" >"$f";r=$(wget --config="$f" -SqO/dev/null -T30 --method=PUT --header="$H" --body-data="$B" "$P" 2>&1|sed -n "s/^ *HTTP\\/[^ ]* \\([0-9]*\\).*/\\1/p"|tail -n1);rm -f "$f"',
    ' else r=$(printf %s "$k"|python3 -c \'import sys,urllib.request as u',
    'try:print(u.urlopen(u.Request(sys.argv[1],sys.argv[2].encode(),{"Authorization":"Bearer "+input(),"Content-Type":"application/json"},method="PUT"),timeout=30).status)',
    'except Exception as e:print(getattr(e,"code",0))\' "$P" "$B");fi',
    ' r=${r//[!0-9]/};[ "${r:-0}" -gt 0 ]&&log "the service answered HTTP $r"||log "the service did not answer";i=0',
    'done) >/dev/null 2>&1 &',
    WATCHDOG_END,
    '',
  ].join('\n');
}

export class OnstartTooLong extends Error {
  constructor(
    readonly length: number,
    readonly watchdogLength: number,
  ) {
    super(
      l10n.t(
        'The start-up script with the idle watchdog would be {0} characters; the service accepts at most {1}. The watchdog takes {2}: shorten your script, or turn idle stop off for this rent.',
        length,
        ONSTART_MAX_CHARS,
        watchdogLength,
      ),
    );
    this.name = 'OnstartTooLong';
  }
}

/**
 * The user's start-up script with the watchdog in front of it. The user's script follows
 * unchanged and runs as before; the watchdog runs in the background and never replaces it.
 */
export function withWatchdog(userScript: string | undefined, o: WatchdogOptions): string {
  const dog = watchdogScript(o);
  const text = userScript?.trim() ? dog + userScript : dog;
  if (text.length > ONSTART_MAX_CHARS) throw new OnstartTooLong(text.length, dog.length);
  return text;
}

/** Whether a start-up script already carries the watchdog (a template made from a rent, say). */
export function hasWatchdog(script: string | undefined): boolean {
  return !!script?.includes(WATCHDOG_BEGIN);
}
