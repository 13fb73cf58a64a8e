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
 * | `notify` | start | the URL of the user's Notify Me webhook, when one is set up (mode 600, from stdin, never in a script) |
 * | `run` | start | the wrapper itself |
 * | `wpid` | wrapper | the wrapper's pid |
 * | `pid` | wrapper | the command's pid, which is also its process group |
 * | `started`, `ended` | wrapper | Unix seconds |
 * | `log` | the command | its stdout and stderr |
 * | `exit` | wrapper | the command's exit code, written once it ended |
 * | `cancelled` | Stop Job | `keep` (the instance keeps running) or `stop` |
 * | `stop-asked`, `stop-answer` | wrapper | when it asked the API to stop the instance, and the HTTP status (never the key) |
 *
 * With a `notify` file, the wrapper POSTs one short text/plain line to that URL when the job
 * ends, fails or is interrupted (Stop Job, or SIGTERM/SIGHUP to the wrapper), in the background
 * (see wrapper.sh): unsigned, with the label and instance id, never the URL or a key.
 */

import { shellAssignments, shellQuote } from '../shell';
import { l10n } from '../l10n';
import { isJobId, launchLines, WRAPPER_UP_FUNCTION } from './launch';
import FOLLOW from './remote/follow.sh';
import LIST from './remote/list.sh';
import READ_LOG from './remote/read-log.sh';
import START from './remote/start.sh';
import STATUS from './remote/status.sh';
import STOP from './remote/stop.sh';
import WRAPPER from './remote/wrapper.sh';
import { CHECKPOINT_FUNCTIONS, resumableStartLines, type ResumableStart } from './resumeScripts';

export { isJobId } from './launch';

/** The prefix of the one status line each job reports (listing, following); nothing else starts with it. */
export const STATUS_MARK = 'GPU-RENTAL-JOB';

/** How long the wrapper waits after the command ended before it stops the instance, so a follower can read the end (its `sleep`). */
export const STOP_GRACE_SECONDS = Number(/^sleep (\d+)$/m.exec(WRAPPER)?.[1]);

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
 * The wrapper (remote/wrapper.sh): runs `cmd` (with the container's variables from PID 1 it lacks,
 * never the instance key) with its output in `log` and, once it ended, records the exit code and,
 * when asked, stops the instance through the API with the instance's own key. The command runs in
 * a process group of its own (`set -m`), so Stop Job ends it and everything it started while the
 * wrapper lives on to record how it ended. Its first argument is the job's folder.
 */
export function wrapperScript(): string {
  return WRAPPER;
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
  /**
   * The URL the job's end is sent to (Notify Me): it goes to the instance as the first line of
   * the start's stdin, into the job's `notify` file, never into the script (ps shows that).
   */
  notifyUrl?: string;
}

/** A URL the wrapper can send to: http(s), one line, nothing that would break out of a curl config line. */
export function checkedNotifyUrl(url: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (url.length > 2048 || !/^https?:\/\/[^\s"\\\u0000-\u001f\u007f]+$/i.test(url))
    throw new Error(l10n.t('The Notify Me URL is not one a job can send its end to. Set up Notify Me Away from VS Code again.'));
  return url;
}

function checkedUrl(baseUrl: string | undefined): string {
  const url = (baseUrl ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s'"\\]+$/.test(url))
    throw new Error(l10n.t('"{0}" is not a usable base URL to stop the instance through.', baseUrl ?? ''));
  return url;
}

/**
 * The script `bash -c` runs over ssh to start a job: its stdin is the command text, which becomes
 * `cmd` (after the Notify Me URL's line, when `notify` is 1). It writes the job's folder, then starts the wrapper detached, in a tmux session
 * `gpu-rental-<jobId>` when tmux is there, else with `setsid nohup`, and prints `started tmux` or
 * `started setsid`. The command starts only once everything it needs is written. Run again with the
 * same job id, it starts nothing and prints `started already`, so a start can be retried.
 */
export function startScript(o: StartOptions): string {
  const dir = jobDir(o.jobId, o.jobsDir);
  const url = o.stopAtEnd ? checkedUrl(o.baseUrl) : '';
  if (o.notifyUrl !== undefined) checkedNotifyUrl(o.notifyUrl);
  const notify = o.notifyUrl === undefined ? '0' : '1';
  const values = { cwd: o.cwd, label: printable(o.label), api: url, stop: o.stopAtEnd ? '1' : '0', notify };
  return [
    'set -e',
    `D=${dir} ${shellAssignments(values)}`,
    START.trimEnd(),
    `cat >"$D/run" <<'GPU_RENTAL_WRAPPER_END'`,
    WRAPPER + 'GPU_RENTAL_WRAPPER_END',
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
const STATUS_FUNCTION = [WRAPPER_UP_FUNCTION, CHECKPOINT_FUNCTIONS, STATUS.trimEnd()].join('\n');

/** Prints every job's status line (see parseStatus), one ssh call per instance. */
export function listScript(jobsDir?: string): string {
  return [STATUS_FUNCTION, `JOBS=${jobsRoot(jobsDir)}`, LIST].join('\n');
}

/**
 * Follows the job's log from byte `offset` (0-based): stdout carries the log's bytes and nothing
 * else, until the command ended; then stderr gets the job's status line. Without the job folder,
 * stderr says `<mark>-MISSING` and the exit code is 3.
 */
export function followScript(jobId: string, offset: number, jobsDir?: string): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(l10n.t('{0} is not a byte offset.', String(offset)));
  return [STATUS_FUNCTION, `D=${jobDir(jobId, jobsDir)} O=${offset + 1}`, FOLLOW].join('\n');
}

/**
 * Stops the job: records whether the instance should still stop at the end (`keep` or `stop`),
 * then signals the command's process group, TERM and after 5 s KILL. Prints `stopped`, or
 * `not-running` when it had already ended.
 */
export function stopScript(jobId: string, stopInstance: boolean, jobsDir?: string): string {
  return [`D=${jobDir(jobId, jobsDir)} cancelled=${stopInstance ? 'stop' : 'keep'}`, STOP].join('\n');
}

/** The job's whole log from `offset` (Show Output of a job that ended; the rest after a follower's last read). */
export function readLogScript(jobId: string, offset: number, jobsDir?: string): string {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(l10n.t('{0} is not a byte offset.', String(offset)));
  return [`D=${jobDir(jobId, jobsDir)} O=${offset + 1}`, READ_LOG].join('\n');
}
