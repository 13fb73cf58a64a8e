import { formatClock } from '../format';
import { isJobId, printable, STATUS_MARK } from './scripts';
import { l10n } from '../l10n';
import { visibleText } from '../text';
import { checkpointNameOf, parsePolicy, type PolicySource, type CheckpointInfo, type OutbidPolicy, type Recovery } from './resumable';

/** What the listing says of a resumable job beyond a plain job's status. */
export interface ResumeStatus {
  /**
   * The outbid policy the extension follows. As listed, the instance's copy (or "wait" when that
   * copy is unreadable); after the job book's reconcile (choices.ts), what the user chose on this
   * machine, and `policySource` says how the instance's copy compares.
   */
  readonly policy: OutbidPolicy;
  /** The instance's `policy` file as it read, when it is not a policy (shown as text, never followed). */
  readonly policyOnInstance?: string;
  readonly policySource?: PolicySource;
  /** The checkpoint folder as typed, and as the instance resolved it. */
  readonly checkpointDir: string;
  readonly checkpointPath: string;
  /** The job's own folder, absolute. */
  readonly jobPath: string;
  /** How many times it resumed, and the last (at most 20) of those recoveries, oldest first. */
  readonly recoveryCount: number;
  readonly recoveries: readonly Recovery[];
  readonly onDemandPerHour: number | undefined;
  readonly latest: CheckpointInfo | undefined;
  /** Seconds it ran before its last start (the runs the stops cut short). */
  readonly ranBeforeSeconds: number;
  /** The log's last line, once it ended. */
  readonly lastLogLine: string | undefined;
}

/** What a job's folder on the instance says about it (one status line, see scripts.ts). */
export interface JobStatus {
  readonly jobId: string;
  /** Unix seconds, when the wrapper started it. */
  readonly startedAt: number | undefined;
  readonly endedAt: number | undefined;
  /** The command's exit code, once it ended. */
  readonly exitCode: number | undefined;
  /** The wrapper still runs (the command, or the wait before it stops the instance). */
  readonly alive: boolean;
  /** The instance was to stop when the job ended. */
  readonly stopAtEnd: boolean;
  /** What the wrapper recorded about the stop request: `HTTP 200`, or why it did not ask. */
  readonly stopAnswer: string | undefined;
  /** Stop Job ran: `keep` (the instance keeps running) or `stop`. */
  readonly cancelled: 'keep' | 'stop' | undefined;
  /** The log's size in bytes; undefined when the log is missing. */
  readonly logBytes: number | undefined;
  /** The folder it runs in, as typed (`~/…` allowed): where its outputs are. */
  readonly cwd: string;
  readonly label: string;
  /** Set for a resumable job. */
  readonly resume?: ResumeStatus;
}

/** running: the command runs; exited: it ended with `exitCode`; interrupted: it died with its wrapper (the instance stopped). */
export type JobPhase = 'running' | 'exited' | 'interrupted';

export function jobPhase(s: JobStatus): JobPhase {
  if (s.exitCode !== undefined) return 'exited';
  return s.alive ? 'running' : 'interrupted';
}

function int(text: string | undefined): number | undefined {
  return text !== undefined && /^-?\d{1,15}$/.test(text) ? Number(text) : undefined;
}

function absolutePath(text: string | undefined): string | undefined {
  return text && text.startsWith('/') && text.length <= 1000 && printable(text) === text ? text : undefined;
}

function readRecovery(entry: string): Recovery | undefined {
  const m = /^(\d{1,12}):(?:resumed|moved:(\d{1,12})):(\d{1,12})$/.exec(entry);
  if (!m) return undefined;
  const movedFrom = m[2] === undefined ? undefined : Number(m[2]);
  return { at: Number(m[1]), lostSeconds: Number(m[3]), ...(movedFrom ? { movedFrom } : {}) };
}

/**
 * The resumable fields of a status line (11 to 22, then 24 and 25 after the label); undefined for a
 * plain job, or when its policy or folders are not believable.
 */
function readResume(f: readonly string[]): ResumeStatus | undefined {
  const policyRaw = printable(f[11] ?? '')
    .trim()
    .slice(0, 100);
  const parsed = parsePolicy(policyRaw);
  // An unreadable copy keeps the job resumable; the extension follows the user's own choice anyway (choices.ts).
  const policy: OutbidPolicy = parsed ?? { kind: 'wait' };
  const checkpointDir = printable(f[12] ?? '').trim();
  const checkpointPath = absolutePath(f[13]);
  const jobPath = absolutePath(f[14]);
  if (!checkpointDir || !checkpointPath || !jobPath) return undefined;
  const recoveries = (f[16] ?? '')
    .split(',')
    .map(readRecovery)
    .filter((r): r is Recovery => r !== undefined);
  const count = int(f[15]);
  const price = /^\d{1,4}(?:\.\d{1,8})?$/.test(f[17] ?? '') ? Number(f[17]) : undefined;
  const latest = readCheckpoint(f[18], f[19], f[24], f[25], f[20]);
  const ran = int(f[21]);
  const last = printable(f[22] ?? '').trim();
  return {
    policy,
    ...(parsed ? {} : { policyOnInstance: policyRaw }),
    checkpointDir,
    checkpointPath,
    jobPath,
    recoveryCount: count !== undefined && count >= recoveries.length ? count : recoveries.length,
    recoveries,
    onDemandPerHour: price !== undefined && price > 0 ? price : undefined,
    latest,
    ranBeforeSeconds: ran !== undefined && ran > 0 ? ran : 0,
    lastLogLine: last ? visibleText(last, 200) : undefined,
  };
}

/**
 * A checkpoint as a script prints it: its name in hex (kept as the disk has it: a newline or a tab
 * is part of it; what shows it uses visibleText), bytes, file count, manifest digest and time.
 * Undefined when any part is missing or not believable (a line of an older listing has no count).
 */
export function readCheckpoint(
  nameHex: string | undefined,
  bytesText: string | undefined,
  filesText: string | undefined,
  digest: string | undefined,
  modifiedText: string | undefined,
): CheckpointInfo | undefined {
  const name = checkpointNameOf(nameHex);
  const bytes = int(bytesText);
  const files = int(filesText);
  const modifiedAt = int(modifiedText);
  if (name === undefined || bytes === undefined || bytes < 0 || files === undefined || files < 0) return undefined;
  if (digest === undefined || !/^[0-9a-f]{64}$/.test(digest) || modifiedAt === undefined || modifiedAt <= 0) return undefined;
  return { name, bytes, files, digest, modifiedAt };
}

/** Reads one status line; undefined when the line is not one (ssh's own warnings share stderr). */
export function parseStatusLine(line: string): JobStatus | undefined {
  const f = line.replace(/\r$/, '').split('\t');
  if (f[0] !== STATUS_MARK || f.length < 24 || !isJobId(f[1] ?? '')) return undefined;
  const resume = readResume(f);
  const cancelled = f[8] === 'keep' || f[8] === 'stop' ? f[8] : undefined;
  const bytes = int(f[9]);
  return {
    jobId: f[1]!,
    startedAt: int(f[2]),
    endedAt: int(f[3]),
    exitCode: int(f[4]),
    alive: f[5] === '1',
    stopAtEnd: f[6] === '1',
    stopAnswer: f[7] || undefined,
    cancelled,
    logBytes: bytes === undefined || bytes < 0 ? undefined : bytes,
    cwd: printable(f[10] ?? '').trim(),
    // What the instance wrote reaches the tree and the notices: visible text, no link syntax (the checkpoint's count and digest follow it).
    label: visibleText(printable(f[23] ?? '').trim(), 120) || f[1]!,
    ...(resume ? { resume } : {}),
  };
}

/** Every status line in a listing's output, in the order of their ids (the oldest job first). */
export function parseStatusLines(text: string): JobStatus[] {
  return text
    .split('\n')
    .map(parseStatusLine)
    .filter((s): s is JobStatus => s !== undefined)
    .sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
}

/** The HTTP status the wrapper got when it asked to stop the instance, if it asked. */
export function stopStatusCode(s: JobStatus): number | undefined {
  return int(/^HTTP (\d{1,3})$/.exec(s.stopAnswer ?? '')?.[1]);
}

/** The row's description: "running 12:03", "exited 0 after 1:02:11", "failed (exit 2) after 0:04", "interrupted (the instance stopped)". */
export function describeJob(s: JobStatus, nowMs: number): string {
  const phase = jobPhase(s);
  if (phase === 'running')
    return s.startedAt === undefined ? l10n.t('starting') : l10n.t('running {0}', formatClock(nowMs / 1000 - s.startedAt));
  if (phase === 'interrupted') return l10n.t('interrupted (the instance stopped)');
  const took = s.startedAt !== undefined && s.endedAt !== undefined ? formatClock(s.endedAt - s.startedAt) : undefined;
  if (s.cancelled) return took === undefined ? l10n.t('stopped by you') : l10n.t('stopped by you after {0}', took);
  if (s.exitCode === 0) return took === undefined ? l10n.t('exited 0') : l10n.t('exited 0 after {0}', took);
  return took === undefined
    ? l10n.t('failed (exit {0})', String(s.exitCode))
    : l10n.t('failed (exit {0}) after {1}', String(s.exitCode), took);
}

/** What the end of a job says in a notification: "train.py finished (exit 0) on #123 after 1:02:11". */
export function jobEndMessage(s: JobStatus, instanceId: number): string {
  const took = s.startedAt !== undefined && s.endedAt !== undefined ? formatClock(s.endedAt - s.startedAt) : undefined;
  if (jobPhase(s) === 'interrupted') {
    return l10n.t(
      'GPU Rental: {0} on #{1} was interrupted: the instance stopped while it ran. Its log stays on the instance; start the instance to read it.',
      s.label,
      instanceId,
    );
  }
  const exit = String(s.exitCode);
  if (s.cancelled)
    return took === undefined
      ? l10n.t('GPU Rental: {0} on #{1} was stopped (exit {2}).', s.label, instanceId, exit)
      : l10n.t('GPU Rental: {0} on #{1} was stopped after {2} (exit {3}).', s.label, instanceId, took, exit);
  if (s.exitCode === 0)
    return took === undefined
      ? l10n.t('GPU Rental: {0} finished (exit {1}) on #{2}.', s.label, exit, instanceId)
      : l10n.t('GPU Rental: {0} finished (exit {1}) on #{2} after {3}.', s.label, exit, instanceId, took);
  return took === undefined
    ? l10n.t('GPU Rental: {0} failed (exit {1}) on #{2}.', s.label, exit, instanceId)
    : l10n.t('GPU Rental: {0} failed (exit {1}) on #{2} after {3}.', s.label, exit, instanceId, took);
}

/** Whether the wrapper was going to stop the instance at the end (it asks a moment after the command ended). */
export function stopsInstance(s: JobStatus): boolean {
  return s.stopAtEnd && s.exitCode !== undefined && s.cancelled !== 'keep';
}
