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
import { shellAssignments } from '../shell';
import { l10n } from '../l10n';
import { isJobId, LAUNCH_FUNCTION, launchMode, WRAPPER_UP_FUNCTION } from './launch';
import CHECKPOINTS from './remote/checkpoints.sh';
import FOLDER_EXISTS from './remote/folder-exists.sh';
import HOOK from './remote/hook.sh';
import PATHS from './remote/paths.sh';
import RESUMABLE_START from './remote/resumable-start.sh';
import RESUME from './remote/resume.sh';
import RUN_RESUME from './remote/run-resume.sh';
import SET_POLICY from './remote/set-policy.sh';
import { checkpointNameHex, policyText, type OutbidPolicy, type ResumeSpec } from './resumable';

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
export const CHECKPOINT_FUNCTIONS = CHECKPOINTS.trimEnd();

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

/** Seconds after the start-up script begins that the hook resumes the jobs (sshd and the disk settle first): its `sleep`. */
export const RESUME_HOOK_DELAY_SECONDS = Number(/^\(sleep (\d+);/.exec(HOOK)?.[1]);

/**
 * The start-up hook: in the background, a few seconds after the instance starts, runs the `resume`
 * of every job in `~/.gpu-rental/jobs`; each decides for itself whether there is anything to resume.
 */
export function resumeHook(): string {
  return [RESUME_HOOK_BEGIN, HOOK.trimEnd(), RESUME_HOOK_END, ''].join('\n');
}

/** Whether a start-up script carries the resume hook (the instance record's `onstart` says whether an instance has it). */
export function hasResumeHook(onstart: string | null | undefined): boolean {
  return !!onstart?.includes(RESUME_HOOK_BEGIN);
}

/** paths.sh: `resolve` sets W and C to the job's folder and its checkpoint folder; `instance_id` sets I. */
const PATH_FUNCTIONS = PATHS.trimEnd();

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
  const values = {
    ckpt: spec.checkpointDir,
    resume_cmd: spec.resumeCommand,
    policy: policyText(spec.policy),
    ondemand: price ?? '',
    mkckpt: r.createCheckpointDir ? 1 : 0,
  };
  return [
    PATH_FUNCTIONS,
    shellAssignments(values),
    RESUMABLE_START.trimEnd(),
    `cat >"$D/resume" <<'GPU_RENTAL_RESUME_END'`,
    resumeScript(jobId, forceSetsid) + 'GPU_RENTAL_RESUME_END',
  ];
}

/** The `resume` file of job `jobId` (see the top of this file); it finds its job's folder from its own path. */
export function resumeScript(jobId: string, forceSetsid?: boolean): string {
  if (!isJobId(jobId)) throw new Error(l10n.t('"{0}" is not a job id GPU Rental makes.', jobId));
  return [
    '#!/bin/bash',
    `# GPU Rental: resumes job ${jobId} from its newest checkpoint; run by the start-up script and the extension.`,
    `how=${launchMode(forceSetsid)}`,
    WRAPPER_UP_FUNCTION,
    CHECKPOINT_FUNCTIONS,
    PATH_FUNCTIONS,
    LAUNCH_FUNCTION,
    RESUME,
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
  return [`D=${jobDirExpression}`, `set --${args}`, RUN_RESUME].join('\n');
}

/** Whether the folder `dir` (as typed; relative to `cwd`, itself relative to the home folder) exists on the instance: prints yes or no. */
export function folderExistsScript(cwd: string, dir: string): string {
  return [PATH_FUNCTIONS, shellAssignments({ X: cwd, Y: dir }), FOLDER_EXISTS].join('\n');
}

/** Writes a resumable job's outbid policy (`policy` file, replaced whole); exits 3 for a job that is not resumable. */
export function setPolicyScript(jobDirExpression: string, policy: OutbidPolicy): string {
  return [`D=${jobDirExpression} ${shellAssignments({ policy: policyText(policy) })}`, SET_POLICY].join('\n');
}
