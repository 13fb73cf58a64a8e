/**
 * The extension's side of resumable jobs: what a listing says of them (`resumableJob`), when one
 * waits to be resumed, what its end says when its resume command failed at once, and the book's
 * own resume of an instance's jobs when the start-up hook did not (`AutoResume`).
 */
import type { Timers } from '../instances/poller';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { ResumableJob } from './resumable';
import type { ResumeOutcome } from './resumeScripts';
import type { JobStatus } from './status';

/** A resumed job that exits non-zero within this many seconds of its resume: its resume command failed at once. */
export const FAILED_AT_ONCE_SECONDS = 30;

/** How long the book lets the start-up hook resume an instance's jobs before it resumes them itself. */
export const HOOK_GRACE_MS = 60_000;

/** How often, within HOOK_GRACE_MS, the book lists the jobs to see whether the hook resumed them (then follows them at once). */
export const HOOK_LOOK_MS = 3_000;

/** The resumable job a status line describes; undefined for a plain job. */
export function resumableJob(instanceId: number, s: JobStatus): ResumableJob | undefined {
  const r = s.resume;
  if (!r) return undefined;
  return {
    instanceId,
    jobId: s.jobId,
    label: s.label,
    cwd: s.cwd,
    spec: { checkpointDir: r.checkpointDir, resumeCommand: '', policy: r.policy },
    checkpointPath: r.checkpointPath,
    jobPath: r.jobPath,
    onDemandPerHour: r.onDemandPerHour,
    recoveries: r.recoveries,
    latest: r.latest,
    ended: s.exitCode !== undefined || s.cancelled !== undefined,
    ...(r.policySource ? { policySource: r.policySource } : {}),
  };
}

/** A resumable job whose processes died with its instance, not ended nor stopped by hand: it waits for a resume. */
export function waitsToResume(s: JobStatus): boolean {
  return s.resume !== undefined && s.exitCode === undefined && s.cancelled === undefined && !s.alive;
}

/** A resumed job that exited non-zero within FAILED_AT_ONCE_SECONDS of its resume. */
export function resumeFailedAtOnce(s: JobStatus): boolean {
  if (!s.resume || s.resume.recoveryCount === 0 || s.cancelled || s.exitCode === undefined || s.exitCode === 0) return false;
  return s.startedAt !== undefined && s.endedAt !== undefined && s.endedAt - s.startedAt <= FAILED_AT_ONCE_SECONDS;
}

/** The end notice of a resumed job whose resume command failed at once; undefined for any other end. */
export function resumeFailedMessage(s: JobStatus, instanceId: number): string | undefined {
  if (!resumeFailedAtOnce(s) || !s.resume) return undefined;
  const where = l10n.t('on #{0} in {1}', instanceId, s.resume.checkpointPath);
  return s.resume.lastLogLine
    ? l10n.t(
        'GPU Rental: {0} failed at once when resumed (exit {1}): "{2}". Its checkpoints are {3}; fix the resume command and run it again.',
        s.label,
        String(s.exitCode),
        s.resume.lastLogLine,
        where,
      )
    : l10n.t(
        'GPU Rental: {0} failed at once when resumed (exit {1} after {2} s). Its checkpoints are {3}; fix the resume command and run it again.',
        s.label,
        String(s.exitCode),
        (s.endedAt ?? 0) - (s.startedAt ?? 0),
        where,
      );
}

/** What AutoResume needs of the job book. */
export interface ResumingBook {
  /** The instance's last listing. */
  statusesOf(instanceId: number): readonly JobStatus[];
  /** Lists the instance's jobs again. */
  list(instanceId: number): Promise<void>;
  /** Whether the instance runs now. */
  instanceRuns(instanceId: number): boolean;
  resume(instanceId: number, jobId: string): Promise<ResumeOutcome>;
  /** Follows the instance's unfinished jobs again (their output goes on in their terminals). */
  reattachOn(instanceId: number): void;
}

/**
 * When an instance runs again with resumable jobs waiting, resumes them: at once when its start-up
 * script has no hook, else after HOOK_GRACE_MS when the hook did not. Says so in the log, never in
 * a notification. One wait per instance.
 */
export class AutoResume {
  private readonly waits = new Map<number, unknown>();

  constructor(
    private readonly timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>,
    private readonly logger: Logger,
    private readonly book: ResumingBook,
  ) {}

  /** The instance runs again and its listing was just read; `hooked`: its start-up script carries the hook. */
  cameBack(instanceId: number, hooked: boolean): void {
    if (!this.book.statusesOf(instanceId).some(waitsToResume) || this.waits.has(instanceId)) return;
    if (!hooked) {
      void this.resumeWaiting(instanceId, false);
      return;
    }
    this.look(instanceId, 0);
  }

  /**
   * Lists the instance's jobs every HOOK_LOOK_MS: once none waits (the hook resumed them) their
   * output is followed again at once; after HOOK_GRACE_MS the book resumes those still waiting.
   */
  private look(instanceId: number, waited: number): void {
    const timer = this.timers.setTimeout(() => {
      this.waits.delete(instanceId);
      if (!this.book.instanceRuns(instanceId)) return;
      const now = waited + HOOK_LOOK_MS;
      void this.book.list(instanceId).then(() => {
        if (!this.book.statusesOf(instanceId).some(waitsToResume)) this.book.reattachOn(instanceId);
        else if (now >= HOOK_GRACE_MS) void this.resumeWaiting(instanceId, true);
        else this.look(instanceId, now);
      });
    }, HOOK_LOOK_MS);
    this.waits.set(instanceId, timer);
  }

  /** `hooked`: the hook had its time and did not resume them (else the instance has no hook). */
  private async resumeWaiting(instanceId: number, hooked: boolean): Promise<void> {
    const waiting = this.book.statusesOf(instanceId).filter(waitsToResume);
    for (const s of waiting) {
      try {
        const outcome = await this.book.resume(instanceId, s.jobId);
        this.logger.info(
          `Resumed job ${s.jobId} on #${instanceId} (${hooked ? `the start-up hook did not within ${HOOK_GRACE_MS / 1000} s` : 'its start-up script has no resume hook'}): ${outcome}.`,
        );
      } catch (error) {
        this.logger.warn(
          `Job ${s.jobId} on #${instanceId} could not be resumed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (waiting.length > 0) await this.book.list(instanceId);
  }

  dispose(): void {
    for (const timer of this.waits.values()) this.timers.clearTimeout(timer);
    this.waits.clear();
  }
}
