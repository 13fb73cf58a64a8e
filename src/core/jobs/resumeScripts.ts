/**
 * The host side of a resumable job (see resumable.ts): the files its start writes, the `resume`
 * script in its folder, and the start-up hook that runs every job's `resume` when the instance
 * starts (the service runs the start-up script again on every start, also after an outbid).
 *
 * `resume [moved <fromId>] [checkpoint <name in hex>]` does nothing when the job ended (`exit`), was
 * stopped by hand (`cancelled`) or its wrapper runs; else, under a lock (`mkdir`, atomic) so that
 * the start-up hook and the extension never start it twice, it turns the resume command into the
 * job's `cmd` with `{latest}` as the checkpoint named (an entry of the checkpoint folder; exit 4
 * when it is not there), else the newest entry of the checkpoint folder (CHECKPOINT_FUNCTIONS'
 * `nw`), its absolute path quoted by bash's `printf %q`, or the original command (`cmd.orig`) when
 * the folder is empty or missing, appends a line to `history` and one to the log, and starts the
 * wrapper again as the start did. The log is appended to, never cut.
 */
import { shellQuote } from '../instances/ssh';
import { l10n } from '../l10n';
import { isJobId, launchLines, WRAPPER_UP_FUNCTION } from './launch';
import { checkpointNameHex, LATEST_PLACEHOLDER, policyText, type OutbidPolicy, type ResumeSpec } from './resumable';

/**
 * The bash functions that find and measure checkpoints, the same on every side: the listing (old
 * instance), the check after a copy (new instance) and the `resume` script.
 *
 * - `nw <folder>`: its newest entry (a file or a folder, not hidden, links not followed) by
 *   modification time in whole seconds (what the user's job wrote, and what a copy that keeps
 *   times keeps), ties broken by the name's version order (`sort -V`: checkpoint-12 after
 *   checkpoint-9). Sets `NN` to its name and `NM` to its time, both empty when there is none.
 * - `ms <path>`: the manifest of a file or a folder: each regular file under it as its relative
 *   path and size (`<path>\t<size>`, NUL-terminated, sorted bytewise; a file's own path is empty),
 *   printed as `<bytes> <files> <sha256 of the manifest>`. `du` would count the folders' own
 *   entries, which a sum of file sizes never matches.
 * - `hx <text>`: its bytes in lowercase hex, how a name leaves a script (a newline or a tab in it
 *   would split a line); `dx <hex>` sets `DX` to the name again, failing for anything that is not
 *   one path segment.
 *
 * Bounded as the listing is: `find` under `timeout 5`, a name at most 1000 bytes, a manifest of at
 * most a million files.
 */
export const CHECKPOINT_FUNCTIONS = [
  'nw(){ NN= NM=; local r; IFS= read -r -d "" r < <(timeout 5 find "$1" -mindepth 1 -maxdepth 1 ! -name ".*" \\( -type f -o -type d \\) -printf "%T@\\t%P\\0" 2>/dev/null' +
    ' | while IFS= read -r -d "" x; do t=${x%%$\'\\t\'*}; printf "%s\\t%s\\0" "${t%%.*}" "${x#*$\'\\t\'}"; done' +
    " | LC_ALL=C sort -z -t $'\\t' -k1,1n -k2V | tail -z -n 1); [ -n \"$r\" ] || return 0; NM=${r%%$'\\t'*} NN=${r#*$'\\t'}; }",
  'ms(){ { timeout 5 find "$1" -type f -printf "%P\\t%s\\0" 2>/dev/null | LC_ALL=C sort -z | head -z -n 1000000' +
    ' | { b=0 c=0; while IFS= read -r -d "" x; do s=${x##*$\'\\t\'}; s=${s//[!0-9]/}; b=$((b + ${s:-0})) c=$((c + 1)); printf "%s\\0" "$x"; done; printf "%s %s " $b $c >&3; }' +
    ' | sha256sum | head -c 64; } 3>&1; }',
  'hx(){ printf %s "$1" | head -c 1000 | od -An -v -tx1 | tr -d \' \\n\'; }',
  'dx(){ DX=; local h=$1 i o=; case $h in ""|*[!0-9a-f]*) return 1;; esac; [ $((${#h} % 2)) = 0 ] && [ ${#h} -le 2000 ] || return 1' +
    '; for ((i = 0; i < ${#h}; i += 2)); do case ${h:i:2} in 00|2f) return 1;; esac; o+="\\\\x${h:i:2}"; done; printf -v DX %b "$o"; case $DX in .|..) DX=; return 1;; esac; }',
].join('\n');

/** What the start of a resumable job is given. */
export interface ResumableStart {
  readonly spec: ResumeSpec;
  /** The same machine's on-demand GPU price in $/h when known: what "saved" is counted against. */
  readonly onDemandPerHour?: number;
  /** Create the checkpoint folder (it did not exist and the user said so). */
  readonly createCheckpointDir?: boolean;
}

export const RESUME_HOOK_BEGIN = '# >>> gpu-rental resume >>>';
export const RESUME_HOOK_END = '# <<< gpu-rental resume <<<';

/** Seconds after the start-up script begins that the hook resumes the jobs (sshd and the disk settle first). */
export const RESUME_HOOK_DELAY_SECONDS = 5;

/**
 * The start-up hook: in the background, a few seconds after the instance starts, runs the `resume`
 * of every job in `~/.gpu-rental/jobs`; each decides for itself whether there is anything to resume.
 */
export function resumeHook(): string {
  return [
    RESUME_HOOK_BEGIN,
    `(sleep ${RESUME_HOOK_DELAY_SECONDS}; for r in "\${HOME:-/root}"/.gpu-rental/jobs/*/resume; do [ -f "$r" ] && bash "$r"; done) >/dev/null 2>&1 &`,
    RESUME_HOOK_END,
    '',
  ].join('\n');
}

/** Whether a start-up script carries the resume hook (the instance record's `onstart` says whether an instance has it). */
export function hasResumeHook(onstart: string | null | undefined): boolean {
  return !!onstart?.includes(RESUME_HOOK_BEGIN);
}

/** Sets `I` to this instance's id (CONTAINER_ID, else PID 1's, which an SSH session lacks), digits only. */
const CONTAINER_ID_LINE =
  "I=${CONTAINER_ID:-$(tr '\\0' '\\n' </proc/1/environ 2>/dev/null | sed -n \"s/^CONTAINER_ID=//p\" | head -n 1)}; I=${I//[!0-9]/}";

/** The bash that sets `W` to the job's folder and `C` to its checkpoint folder, both absolute (`$D` is the job's folder). */
const RESOLVE_LINES = [
  'W=$(r cwd); case $W in "~"|""|.) W=$HOME;; "~/"*) W="$HOME/${W#"~/"}";; /*) ;; *) W="$HOME/$W";; esac',
  'C=$(r ckpt); case $C in "~") C=$HOME;; "~/"*) C="$HOME/${C#"~/"}";; /*) ;; ""|.) C=$W;; *) C="$W/$C";; esac',
];

function checkedSpec(spec: ResumeSpec): ResumeSpec {
  // eslint-disable-next-line no-control-regex -- a folder with a control character is a typo, and unsafe in a listing
  if (!spec.checkpointDir.trim() || /[\u0000-\u001f\u007f]/.test(spec.checkpointDir) || spec.checkpointDir.length > 1000)
    throw new Error(l10n.t('"{0}" cannot be a checkpoint folder: type a folder on the instance, e.g. checkpoints.', spec.checkpointDir));
  if (!spec.resumeCommand.trim()) throw new Error(l10n.t('The job has no resume command. Type the command that resumes it.'));
  return spec;
}

/** The lines of the start script that make the job resumable (after `cmd` and `cwd` are written; `$D` is the job's folder). */
export function resumableStartLines(jobId: string, r: ResumableStart, forceSetsid?: boolean): string[] {
  const spec = checkedSpec(r.spec);
  const onDemand = r.onDemandPerHour;
  const price = onDemand !== undefined && Number.isFinite(onDemand) && onDemand > 0 && onDemand < 1000 ? String(onDemand) : undefined;
  return [
    `printf '%s\\n' ${shellQuote(spec.checkpointDir)} >"$D/ckpt"`,
    `printf '%s\\n' ${shellQuote(spec.resumeCommand)} >"$D/resume-cmd"`,
    `printf '%s\\n' ${shellQuote(policyText(spec.policy))} >"$D/policy"`,
    price ? `printf '%s\\n' ${price} >"$D/ondemand"` : ':',
    'cp "$D/cmd" "$D/cmd.orig"',
    CONTAINER_ID_LINE,
    'printf \'%s\\n\' "$I" >"$D/instance"',
    `cat >"$D/resume" <<'GPU_RENTAL_RESUME_END'`,
    resumeScript(jobId, forceSetsid) + 'GPU_RENTAL_RESUME_END',
    ...(r.createCheckpointDir ? ['r(){ head -c 2000 "$D/$1" 2>/dev/null; }', ...RESOLVE_LINES, 'mkdir -p -- "$C"'] : []),
  ];
}

/** The `resume` file of job `jobId` (see the top of this file); it finds its job's folder from its own path. */
export function resumeScript(jobId: string, forceSetsid?: boolean): string {
  if (!isJobId(jobId)) throw new Error(l10n.t('"{0}" is not a job id GPU Rental makes.', jobId));
  return [
    '#!/bin/bash',
    `# GPU Rental: resumes job ${jobId} from its newest checkpoint; run by the start-up script and the extension.`,
    'D=$(cd "$(dirname "$0")" && pwd) || exit 1',
    // bash 5.2 would read & in a replacement as the matched text.
    'shopt -u patsub_replacement 2>/dev/null',
    'r(){ head -c 2000 "$D/$1" 2>/dev/null; }',
    WRAPPER_UP_FUNCTION,
    CHECKPOINT_FUNCTIONS,
    'done_(){ if [ -f "$D/exit" ]; then echo ended; elif [ -f "$D/cancelled" ]; then echo cancelled; elif up "$D"; then echo running; else return 1; fi; }',
    // A checkpoint named (in hex, see CHECKPOINT_FUNCTIONS): the one the move checked on this instance, whatever the times say.
    'M=""; X=""; while [ $# -gt 0 ]; do case $1 in',
    '  moved) case $2 in ""|*[!0-9]*) echo "resume: moved needs an instance id" >&2; exit 2;; esac; M=$2;;',
    '  checkpoint) dx "$2" || { echo "resume: checkpoint needs a name in hex, one path segment" >&2; exit 2; }; X=$DX;;',
    '  *) echo "usage: resume [moved <instance id>] [checkpoint <name in hex>]" >&2; exit 2;;',
    'esac; shift 2 || exit 2; done',
    'done_ && exit 0',
    'L="$D/resume.lock"',
    // A lock older than a minute was left by a resume that a stop cut short: taken over by one of those who find it.
    'if ! mkdir "$L" 2>/dev/null; then',
    '  if [ -n "$(find "$L" -maxdepth 0 -mmin +1 2>/dev/null)" ] && mv "$L" "$L.$$" 2>/dev/null; then rm -rf "$L.$$"; fi',
    '  mkdir "$L" 2>/dev/null || { echo busy; exit 0; }',
    'fi',
    'trap \'rmdir "$L" 2>/dev/null\' EXIT',
    // Another resume may have started it between the first look and the lock.
    'done_ && exit 0',
    ...RESOLVE_LINES,
    // The checkpoint named must be there (a file or a folder, not a link): never another one in its place.
    'if [ -n "$X" ]; then',
    '  N="$C/$X"; if [ -L "$N" ] || { [ ! -f "$N" ] && [ ! -d "$N" ]; }; then echo "resume: no checkpoint $(printf %q "$X") in $C" >&2; exit 4; fi',
    'else nw "$C"; N=${NN:+$C/$NN}; fi',
    // A job folder that ran on another instance came with a copy (a move): say so, whoever resumes it (the hook may be first).
    CONTAINER_ID_LINE,
    'p=$(r instance); p=${p//[!0-9]/}',
    '[ -z "$M" ] && [ -n "$I" ] && [ -n "$p" ] && [ "$I" != "$p" ] && M=$p',
    '[ -n "$I" ] && printf \'%s\\n\' "$I" >"$D/instance"',
    'now=$(date +%s); s=$(r started); s=${s//[!0-9]/}',
    // The time the last run had: from its start to its log's last write.
    'g=$(stat -c %Y -- "$D/log" 2>/dev/null); t=$(r ran); t=${t//[!0-9]/}; t=${t:-0}',
    '[ -n "$s" ] && [ -n "$g" ] && [ "$g" -gt "$s" ] && t=$((t + g - s)); echo $t >"$D/ran"',
    'if [ -n "$N" ]; then',
    '  m=$(stat -c %Y -- "$N" 2>/dev/null || date -r "$N" +%s); m=${m//[!0-9]/}; lost=$((now - ${m:-$now}))',
    `  Q=$(printf %q "$N"); R=$(cat "$D/resume-cmd"); R=\${R//"${LATEST_PLACEHOLDER}"/"$Q"}`,
    '  printf \'%s\\n\' "$R" >"$D/cmd"',
    'else',
    '  lost=$((now - ${s:-$now})); cp -f "$D/cmd.orig" "$D/cmd"',
    '  echo "GPU Rental: no checkpoint in $C yet; starting the job over" >>"$D/log"',
    'fi',
    '[ "$lost" -ge 0 ] || lost=0',
    'if [ -n "$M" ]; then echo "$now moved $M $lost"; else echo "$now resumed $lost"; fi >>"$D/history"',
    'n=$(grep -c . "$D/history")',
    'if [ -n "$M" ]; then echo "GPU Rental: moved from #$M and resumed (×$n) from ${N:-the start}"; else echo "GPU Rental: resumed (×$n) from ${N:-the start}"; fi >>"$D/log"',
    'rm -f "$D/wpid" "$D/pid" "$D/ended"',
    ...launchLines(jobId, forceSetsid),
    'echo resumed',
    '',
  ].join('\n');
}

/** The result of `resumeCommandScript`'s run: what the resume said. */
export type ResumeOutcome = 'resumed' | 'ended' | 'cancelled' | 'running' | 'busy';

/**
 * Runs the job's `resume` over ssh (`moved <fromId>` after a move; `checkpoint`: the entry of the
 * checkpoint folder to resume from, by name, instead of the newest); prints one of ResumeOutcome.
 */
export function runResumeScript(jobDirExpression: string, movedFrom?: number, checkpoint?: string): string {
  if (movedFrom !== undefined && !(Number.isSafeInteger(movedFrom) && movedFrom > 0))
    throw new RangeError(l10n.t('{0} is not an instance id.', String(movedFrom)));
  // Hex: digits and a-f only, safe on a command line whatever the name holds.
  const args =
    (movedFrom === undefined ? '' : ` moved ${movedFrom}`) +
    (checkpoint === undefined ? '' : ` checkpoint ${checkpointNameHex(checkpoint)}`);
  return [
    `D=${jobDirExpression}`,
    '[ -f "$D/resume" ] || { echo GPU-RENTAL-JOB-NOT-RESUMABLE >&2; exit 3; }',
    `bash "$D/resume"${args} </dev/null`,
    '',
  ].join('\n');
}

/** Whether the folder `dir` (as typed; relative to `cwd`, itself relative to the home folder) exists on the instance: prints yes or no. */
export function folderExistsScript(cwd: string, dir: string): string {
  return [
    'r(){ case $1 in cwd) printf %s "$X";; ckpt) printf %s "$Y";; esac; }',
    `X=${shellQuote(cwd)} Y=${shellQuote(dir)}`,
    ...RESOLVE_LINES,
    '[ -d "$C" ] && echo yes || echo no',
    '',
  ].join('\n');
}

/** Writes a resumable job's outbid policy (`policy` file, replaced whole); exits 3 for a job that is not resumable. */
export function setPolicyScript(jobDirExpression: string, policy: OutbidPolicy): string {
  return [
    `D=${jobDirExpression}`,
    '[ -f "$D/resume" ] || { echo GPU-RENTAL-JOB-NOT-RESUMABLE >&2; exit 3; }',
    `printf '%s\\n' ${shellQuote(policyText(policy))} >"$D/policy.part" && mv -f "$D/policy.part" "$D/policy"`,
    '',
  ].join('\n');
}
