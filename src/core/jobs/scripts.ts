/**
 * The bash that runs a job on an instance, and the short scripts that start, list, follow and stop
 * it over ssh. Each is a pure function of its inputs; every value that reaches the shell is either
 * checked against a narrow pattern (job ids, the API URL) or single-quoted. The job's command text
 * never appears in any of them: it travels on ssh's stdin into the job's `cmd` file.
 *
 * One job is a folder `<jobs>/<jobId>/` on the instance (`<jobs>` is `~/.gpu-rental/jobs` unless a
 * test chooses a temporary folder):
 *
 * | file | written by | holds |
 * | --- | --- | --- |
 * | `cmd` | start | the command, as the user typed it (run by `bash`) |
 * | `cwd` | start | the folder it runs in (`~/…` and a relative path are in the home folder) |
 * | `label` | start | the name the tree shows (one line) |
 * | `api` | start | the API's base URL, when the job stops its instance at the end |
 * | `stop-at-end` | start | `1` when the instance stops when the job ends |
 * | `run` | start | the wrapper itself |
 * | `wpid` | wrapper | the wrapper's pid |
 * | `pid` | wrapper | the command's pid, which is also its process group |
 * | `started`, `ended` | wrapper | Unix seconds |
 * | `log` | the command | its stdout and stderr |
 * | `exit` | wrapper | the command's exit code, written once it ended |
 * | `cancelled` | Stop Job | `keep` (the instance keeps running) or `stop` |
 * | `stop-asked`, `stop-answer` | wrapper | when it asked the API to stop the instance, and the HTTP status (never the key) |
 */

import { shellQuote } from '../instances/ssh';
import { l10n } from '../l10n';
import { isJobId, launchLines, WRAPPER_UP_FUNCTION } from './launch';
import { CHECKPOINT_FUNCTIONS, resumableStartLines, type ResumableStart } from './resumeScripts';

export { isJobId } from './launch';

/** The prefix of the one status line each job reports (listing, following); nothing else starts with it. */
export const STATUS_MARK = 'GPU-RENTAL-JOB';

/** How long the wrapper waits after the command ended before it stops the instance, so a follower can read the end. */
export const STOP_GRACE_SECONDS = 2;

/** A new job id: the UTC time to the second, then random letters and digits, e.g. `20261124-001611-k3f9q2`. */
export function newJobId(nowMs: number, random: () => number = Math.random): string {
  const d = new Date(nowMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let tail = '';
  for (let i = 0; i < 6; i++) tail += alphabet[Math.floor(random() * alphabet.length) % alphabet.length];
  return `${stamp}-${tail}`;
}

/** `text` with every control character (escape sequences, bells, newlines) turned into a space. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

function checkedId(jobId: string): string {
  if (!isJobId(jobId)) throw new Error(l10n.t('"{0}" is not a job id GPU Rental makes.', jobId));
  return jobId;
}

/**
 * The shell expression of the jobs folder: `"${HOME:-/root}/.gpu-rental/jobs"` by default, or an
 * absolute folder a test chose (quoted).
 */
export function jobsRoot(jobsDir?: string): string {
  if (jobsDir === undefined) return '"${HOME:-/root}/.gpu-rental/jobs"';
  if (!jobsDir.startsWith('/')) throw new Error(l10n.t('The jobs folder "{0}" must be an absolute path.', jobsDir));
  return shellQuote(jobsDir.replace(/\/+$/, ''));
}

/** The shell expression of one job's folder. */
export function jobDir(jobId: string, jobsDir?: string): string {
  return `${jobsRoot(jobsDir)}/${checkedId(jobId)}`;
}

/** `python3 <path>` for a file at `relative` (forward slashes) in the uploaded folder; the path quoted when it needs it. */
export function pythonCommand(relative: string): string {
  // A name starting with "-" would read as an option to python.
  const path = relative.startsWith('-') ? `./${relative}` : relative;
  return `python3 ${shellQuote(path)}`;
}

/** One line for the tree, from what the user typed: no control characters, at most 120 characters. */
export function jobLabel(command: string): string {
  const first = command.trim().split(/\r?\n/)[0] ?? '';
  // "python3 -u train.py --lr 3e-4" → "train.py --lr 3e-4": the script is what a person recognises.
  const script = /^(?:\S*\/)?python[0-9.]*\s+(?:-\S+\s+)*(\S+\.py\b.*)$/.exec(first)?.[1];
  const text = printable(script ?? first).trim();
  return text.length > 120 ? `${text.slice(0, 119)}…` : text || 'job';
}

/**
 * The wrapper: runs `cmd` (with the container's variables from PID 1 it lacks, never the instance
 * key) with its output in `log` and, once it ended, records the exit code and,
 * when asked, stops the instance through the API with the instance's own key. The command runs in
 * a process group of its own (`set -m`), so Stop Job ends it and everything it started while the
 * wrapper lives on to record how it ended. Its first argument is the job's folder.
 */
export function wrapperScript(): string {
  return [
    '#!/bin/bash',
    '# GPU Rental job wrapper: runs ./cmd, output in ./log, exit code in ./exit.',
    'D=$1',
    'r(){ head -c 2000 "$D/$1" 2>/dev/null; }',
    'echo $$ >"$D/wpid"',
    'date +%s >"$D/started"',
    'W=$(r cwd)',
    // A folder typed as ~/x means the home folder on the instance, which only the instance knows.
    'case $W in "~"|""|.) W=$HOME;; "~/"*) W="$HOME/${W#"~/"}";; /*) ;; *) W="$HOME/$W";; esac',
    // The container's variables (the account's and the rent's env: HF_TOKEN and friends) live in PID 1's
    // environment, which SSH sessions do not inherit: the job gets those it lacks, except the instance key.
    'while IFS= read -r -d "" kv; do n=${kv%%=*}; case $n in CONTAINER_API_KEY|""|[0-9]*|*[!A-Za-z0-9_]*) continue;; esac; [ -n "${!n+x}" ] || export "$kv"; done </proc/1/environ 2>/dev/null',
    'if cd -- "$W" 2>/dev/null; then',
    // Job control gives the command its own process group (its pid), which Stop Job signals as a whole.
    '  set -m',
    // The instance key never reaches the job: not from PID 1 (above), nor from an SSH session or a tmux server that has it.
    '  (unset CONTAINER_API_KEY; PYTHONUNBUFFERED=1 exec bash "$D/cmd") </dev/null >>"$D/log" 2>&1 &',
    '  P=$!',
    '  echo $P >"$D/pid"',
    '  wait $P; c=$?',
    '  set +m',
    'else',
    '  echo "GPU Rental: the folder $W does not exist on the instance; the job did not run." >>"$D/log"',
    '  c=1',
    'fi',
    'date +%s >"$D/ended"',
    'echo $c >"$D/exit.part" && mv -f "$D/exit.part" "$D/exit"',
    '[ "$(r stop-at-end)" = 1 ] || exit 0',
    // Stop Job chose to keep the instance: the stop at the end is off.
    '[ "$(r cancelled)" = keep ] && { echo "not asked: the job was stopped by hand" >"$D/stop-answer"; exit 0; }',
    `sleep ${STOP_GRACE_SECONDS}`,
    // The instance's own key and id: in the environment, else in PID 1's (ssh sessions may not carry them).
    'e(){ v=$(printenv "$1"); [ -n "$v" ] || v=$(tr \'\\0\' \'\\n\' </proc/1/environ 2>/dev/null | sed -n "s/^$1=//p" | head -n 1); printf %s "$v"; }',
    // K is unset first, so that a K the job's variables exported does not carry the key to every command below.
    'unset K; K=$(e CONTAINER_API_KEY) I=$(e CONTAINER_ID) U=$(r api)',
    'date +%s >"$D/stop-asked"',
    'if [ -z "$K" ] || [ -z "$I" ] || [ -z "$U" ]; then echo "not asked: no instance key or id on the instance" >"$D/stop-answer"; exit 0; fi',
    'P="$U/api/v0/instances/$I/" B=\'{"state":"stopped"}\' H=\'Content-Type: application/json\'',
    // The key goes to curl and python3 on stdin and to wget in a file only this user may read (removed at once), never
    // on a command line, which ps shows to everyone. What would break out of a config line (a quote, a backslash, a
    // control character) is taken out of it first. Only the status code is kept: an answer may echo the key.
    'K=${K//[[:cntrl:]\\"\\\\]/}',
    'if command -v curl >/dev/null; then s=$(printf \'header = "Authorization: Bearer %s"\\n\' "$K" | curl -s -o /dev/null -w "%{http_code}" -m 30 -K - -X PUT -H "$H" -d "$B" "$P" 2>/dev/null)',
    'elif command -v wget >/dev/null && f=$(umask 077; mktemp 2>/dev/null); then',
    '  printf \'header = Authorization: Bearer %s\\n\' "$K" >"$f"',
    '  s=$(wget --config="$f" -S -qO /dev/null -T 30 --method=PUT --header="$H" --body-data="$B" "$P" 2>&1 | sed -n "s/^ *HTTP\\/[0-9.]* \\([0-9]*\\).*/\\1/p" | tail -n 1)',
    '  rm -f "$f"',
    'else s=$(printf %s "$K" | python3 -c \'import sys,urllib.request as u,urllib.error as x',
    'q=u.Request(sys.argv[1],sys.argv[2].encode(),{"Authorization":"Bearer "+sys.stdin.read(),"Content-Type":"application/json"},method="PUT")',
    'try: print(u.urlopen(q,timeout=30).status)',
    'except x.HTTPError as h: print(h.code)',
    'except Exception: print(0)\' "$P" "$B" 2>/dev/null); fi',
    's=${s//[!0-9]/}',
    'echo "HTTP ${s:-0}" >"$D/stop-answer"',
    '',
  ].join('\n');
}

export interface StartOptions {
  jobId: string;
  /** The folder the command runs in, on the instance (`~/x` allowed). */
  cwd: string;
  /** The row's name (see jobLabel). */
  label: string;
  /** Stop the instance through the API when the command ends (needs baseUrl). */
  stopAtEnd: boolean;
  /** The API's base URL, which the wrapper stops the instance through. */
  baseUrl?: string;
  /** Never tmux, even when present (tests of the `setsid` path; images without tmux take it anyway). */
  forceSetsid?: boolean;
  /** An absolute jobs folder instead of `~/.gpu-rental/jobs` (tests). */
  jobsDir?: string;
  /** Makes the job resumable: its checkpoint folder, resume command and outbid policy (see resumable.ts). */
  resumable?: ResumableStart;
}

function checkedUrl(baseUrl: string | undefined): string {
  const url = (baseUrl ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s'"\\]+$/.test(url))
    throw new Error(l10n.t('"{0}" is not a usable base URL to stop the instance through.', baseUrl ?? ''));
  return url;
}

/**
 * The script `bash -c` runs over ssh to start a job: its stdin is the command text, which becomes
 * `cmd`. It writes the job's folder, then starts the wrapper detached, in a tmux session
 * `gpu-rental-<jobId>` when tmux is there, else with `setsid nohup`, and prints `started tmux` or
 * `started setsid`. The command starts only once everything it needs is written. Run again with the
 * same job id, it starts nothing and prints `started already`, so a start can be retried.
 */
export function startScript(o: StartOptions): string {
  const dir = jobDir(o.jobId, o.jobsDir);
  const url = o.stopAtEnd ? checkedUrl(o.baseUrl) : undefined;
  const label = printable(o.label);
  return [
    'set -e',
    `D=${dir}`,
    // Started already (a retry after a connection lost on the way back): say so; never start it twice.
    'if [ -e "$D" ]; then [ -s "$D/wpid" ] && { echo started already; exit 0; }; echo "a job folder $D exists already" >&2; exit 3; fi',
    'mkdir -p "$D"',
    'cat >"$D/cmd"',
    `printf '%s\\n' ${shellQuote(o.cwd)} >"$D/cwd"`,
    `printf '%s\\n' ${shellQuote(label)} >"$D/label"`,
    url ? `printf '%s\\n' ${shellQuote(url)} >"$D/api"` : ':',
    `printf '%s\\n' ${o.stopAtEnd ? 1 : 0} >"$D/stop-at-end"`,
    `cat >"$D/run" <<'GPU_RENTAL_WRAPPER_END'`,
    wrapperScript() + 'GPU_RENTAL_WRAPPER_END',
    ': >"$D/log"',
    ...(o.resumable ? resumableStartLines(o.jobId, o.resumable, o.forceSetsid) : []),
    ...launchLines(o.jobId, o.forceSetsid),
    '',
  ].join('\n');
}

/**
 * `st <dir>`: prints the job's one status line, tab-separated: mark, id, started, ended, exit,
 * wrapper alive (1/0), stop-at-end, stop-answer, cancelled, log bytes (-1: no log), folder, then a
 * resumable job's policy, checkpoint folder (as typed, then absolute), job folder (absolute),
 * recoveries (their count, then the last 20 as `at:resumed:lost` or `at:moved:from:lost`, comma
 * separated), on-demand $/h, newest checkpoint (its name in hex, bytes, mtime), seconds run before
 * the last start, the log's last line once it ended, then the label (without a tab), then the newest
 * checkpoint's file count and manifest digest (the resumable fields empty for a plain job). The
 * newest checkpoint is picked and measured by CHECKPOINT_FUNCTIONS (resumeScripts.ts), as the check
 * after a move and the `resume` script do: its name in hex, so that a newline or a tab in it cannot
 * split the line. Everything is bounded: files read with `head -c`, `find` under `timeout`.
 */
const STATUS_FUNCTION = [
  WRAPPER_UP_FUNCTION,
  CHECKPOINT_FUNCTIONS,
  'st(){ d=$1; j=${d##*/}',
  '  f(){ head -c 300 "$d/$1" 2>/dev/null | tr -d "\\t\\r\\n"; }',
  '  a=0; up "$d" && a=1',
  '  s=$(wc -c <"$d/log" 2>/dev/null | tr -d " ") || s=-1; s=${s:--1}',
  '  P= C= A= J= K= H= O= N= B= M= R= E= F= G=',
  '  if [ -f "$d/resume" ]; then',
  '    P=$(f policy) C=$(f ckpt) O=$(f ondemand) R=$(f ran) J=$(cd "$d" 2>/dev/null && pwd)',
  '    W=$(f cwd); case $W in "~"|""|.) W=$HOME;; "~/"*) W="$HOME/${W#"~/"}";; /*) ;; *) W="$HOME/$W";; esac',
  '    A=$C; case $A in "~") A=$HOME;; "~/"*) A="$HOME/${A#"~/"}";; /*) ;; ""|.) A=$W;; *) A="$W/$A";; esac',
  '    K=$(grep -c . "$d/history" 2>/dev/null); H=$(tail -n 20 "$d/history" 2>/dev/null | head -c 1200 | tr " \\n" ":,")',
  '    nw "$A"; if [ -n "$NN" ]; then N=$(hx "$NN") M=$NM; read -r B F G < <(ms "$A/$NN"); fi',
  '    [ -f "$d/exit" ] && E=$(tail -c 300 "$d/log" 2>/dev/null | tail -n 1 | head -c 200)',
  '    A=${A//[[:cntrl:]]/} J=${J//[[:cntrl:]]/} E=${E//[[:cntrl:]]/ }',
  '  fi',
  `  printf '${STATUS_MARK}${'\\t%s'.repeat(25)}\\n' "$j" "$(f started)" "$(f ended)" "$(f exit)" "$a" "$(f stop-at-end)" "$(f stop-answer)" "$(f cancelled)" "$s" "$(f cwd)" "$P" "$C" "$A" "$J" "$K" "$H" "$O" "$N" "$B" "$M" "$R" "$E" "$(f label)" "$F" "$G"`,
  '}',
].join('\n');

/** Prints every job's status line (see parseStatus), one ssh call per instance. */
export function listScript(jobsDir?: string): string {
  return [STATUS_FUNCTION, `for d in ${jobsRoot(jobsDir)}/*/; do [ -f "$d/cmd" ] && st "\${d%/}"; done; exit 0`, ''].join('\n');
}

/**
 * Follows the job's log from byte `offset` (0-based): stdout carries the log's bytes and nothing
 * else, until the command ended; then stderr gets the job's status line. Without the job folder,
 * stderr says `<mark>-MISSING` and the exit code is 3.
 */
export function followScript(jobId: string, offset: number, jobsDir?: string): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(l10n.t('{0} is not a byte offset.', String(offset)));
  return [
    STATUS_FUNCTION,
    `D=${jobDir(jobId, jobsDir)} O=${offset + 1}`,
    `[ -f "$D/cmd" ] || { echo ${STATUS_MARK}-MISSING >&2; exit 3; }`,
    // The wrapper writes the command's pid a moment after it starts.
    'i=0; while [ ! -s "$D/pid" ] && [ ! -f "$D/exit" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
    'P=$(head -c 20 "$D/pid" 2>/dev/null)',
    // tail -F reads new bytes as they come (inotify where it can) and ends once the command is gone,
    // after a last read; a job that already ended gets the rest of its log.
    'if [ ! -f "$D/exit" ] && [ -n "$P" ] && kill -0 "$P" 2>/dev/null; then tail -c +$O -F -s 0.2 --pid="$P" "$D/log" 2>/dev/null || true',
    'else tail -c +$O "$D/log" 2>/dev/null || true; fi',
    'W=$(head -c 20 "$D/wpid" 2>/dev/null)',
    'i=0; while [ ! -f "$D/exit" ] && [ -n "$W" ] && kill -0 "$W" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
    'st "$D" >&2',
    '',
  ].join('\n');
}

/**
 * Stops the job: records whether the instance should still stop at the end (`keep` or `stop`),
 * then signals the command's process group, TERM and after 5 s KILL. Prints `stopped`, or
 * `not-running` when it had already ended.
 */
export function stopScript(jobId: string, stopInstance: boolean, jobsDir?: string): string {
  return [
    `D=${jobDir(jobId, jobsDir)}`,
    `[ -f "$D/cmd" ] || { echo ${STATUS_MARK}-MISSING >&2; exit 3; }`,
    '[ -f "$D/exit" ] && { echo not-running; exit 0; }',
    `echo ${stopInstance ? 'stop' : 'keep'} >"$D/cancelled"`,
    'P=$(head -c 20 "$D/pid" 2>/dev/null)',
    '[ -n "$P" ] || { echo not-running; exit 0; }',
    'kill -TERM -- -"$P" 2>/dev/null || kill -TERM "$P" 2>/dev/null || true',
    'i=0; while kill -0 "$P" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
    'kill -KILL -- -"$P" 2>/dev/null || true',
    'echo stopped',
    '',
  ].join('\n');
}

/** The job's whole log from `offset` (Show Output of a job that ended; the rest after a follower's last read). */
export function readLogScript(jobId: string, offset: number, jobsDir?: string): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(l10n.t('{0} is not a byte offset.', String(offset)));
  return `D=${jobDir(jobId, jobsDir)}; [ -f "$D/log" ] || { echo ${STATUS_MARK}-MISSING >&2; exit 3; }; tail -c +${offset + 1} "$D/log"\n`;
}
