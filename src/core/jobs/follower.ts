import { spawn, type ChildProcess } from 'node:child_process';
import { sshArgv, type SshTarget } from '../ssh/remote';
import { bashCommand } from '../shell';
import { followScript, STATUS_MARK } from './scripts';
import { jobPhase, parseStatusLine, type JobStatus } from './status';
import { l10n } from '../l10n';

export interface FollowerOptions {
  /** How ssh reaches the instance now; throws while it cannot (the instance is not running). */
  readonly target: () => Promise<SshTarget>;
  readonly jobId: string;
  /** The first byte of the log to read (0: from the start). */
  readonly offset?: number;
  /** An absolute jobs folder instead of `~/.gpu-rental/jobs` (tests). */
  readonly jobsDir?: string;
  /** The log's bytes, in order, each byte once. */
  readonly onData: (chunk: Buffer) => void;
  /** The command ended (or died with its instance) and every byte of its log was delivered. */
  readonly onEnd: (status: JobStatus) => void;
  /** The job's folder is not on the instance. */
  readonly onMissing?: () => void;
  /** A connection failed or dropped; the next try is in `delayMs`. */
  readonly onRetry?: (error: Error, delayMs: number) => void;
  /** The waits between tries after a failure, the last repeated (default 1, 2, 5, 10, 30 s). */
  readonly backoffMs?: readonly number[];
  /** The ssh binary (tests). */
  readonly ssh?: string;
}

type Outcome = { kind: 'status'; status: JobStatus } | { kind: 'missing' } | { kind: 'failed'; error: Error; gotData: boolean };

const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * Streams a job's log into the extension over ssh (`tail -F` on the instance), from a byte offset,
 * and keeps at it: a dropped connection or a stopped instance is retried with backoff and resumes
 * at the byte it stopped at, so nothing is missed or shown twice. Ends once the command ended and
 * the whole log was read. One ssh process at a time.
 */
export class JobFollower {
  private readonly o: FollowerOptions;
  private next: number;
  private child: ChildProcess | undefined;
  private wake: (() => void) | undefined;
  private disposed = false;
  private ended = false;
  private running: Promise<void> | undefined;

  constructor(options: FollowerOptions) {
    this.o = options;
    this.next = options.offset ?? 0;
  }

  /** The next byte of the log to read: how much of it was delivered when it started at 0. */
  get offset(): number {
    return this.next;
  }

  /** Whether it delivered the end (or found the job missing), or was disposed. */
  get done(): boolean {
    return this.ended || this.disposed;
  }

  /** Starts following (once); resolves when it ended or was disposed. */
  start(): Promise<void> {
    return (this.running ??= this.loop());
  }

  /** Tries again now instead of at the end of the current wait (the instance is running again). */
  poke(): void {
    this.wake?.();
  }

  dispose(): void {
    this.disposed = true;
    this.child?.kill('SIGTERM');
    this.wake?.();
  }

  private async loop(): Promise<void> {
    const backoff = this.o.backoffMs ?? BACKOFF_MS;
    let failures = 0;
    while (!this.disposed) {
      let outcome: Outcome;
      try {
        outcome = await this.once(await this.o.target());
      } catch (error) {
        outcome = { kind: 'failed', error: error instanceof Error ? error : new Error(String(error)), gotData: false };
      }
      if (this.disposed) return;
      if (outcome.kind === 'missing') {
        this.ended = true;
        this.o.onMissing?.();
        return;
      }
      if (outcome.kind === 'status') {
        const { status } = outcome;
        // The log grew after the last read (or the wrapper is between the command's end and its exit file): read again.
        if (jobPhase(status) === 'running' || (status.logBytes ?? 0) > this.next) {
          failures = 0;
          await this.sleep(jobPhase(status) === 'running' ? 200 : 0);
          continue;
        }
        this.ended = true;
        this.o.onEnd(status);
        return;
      }
      if (outcome.gotData) failures = 0;
      const delay = backoff[Math.min(failures, backoff.length - 1)] ?? 1_000;
      failures++;
      this.o.onRetry?.(outcome.error, delay);
      await this.sleep(delay);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.disposed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  private once(target: SshTarget): Promise<Outcome> {
    return new Promise((resolve) => {
      const argv = sshArgv(target, bashCommand(followScript(this.o.jobId, this.next, this.o.jobsDir)));
      const child = (this.child = spawn(this.o.ssh ?? 'ssh', argv, { stdio: ['ignore', 'pipe', 'pipe'] }));
      let stderr = '';
      let gotData = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (this.disposed) return;
        gotData = true;
        this.next += chunk.length;
        this.o.onData(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 65_536) stderr += chunk.toString('utf8');
      });
      let settled = false;
      const finish = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        if (this.child === child) this.child = undefined;
        resolve(outcome);
      };
      child.once('error', (error) => finish({ kind: 'failed', error, gotData }));
      child.once('close', (code) => {
        const lines = stderr.split('\n');
        if (code === 3 && lines.some((l) => l.trim() === `${STATUS_MARK}-MISSING`)) return finish({ kind: 'missing' });
        const status = lines.map(parseStatusLine).find((s) => s !== undefined);
        if (status) return finish({ kind: 'status', status });
        const why = lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('Warning: Permanently added'));
        finish({ kind: 'failed', error: new Error(why.pop() ?? l10n.t('ssh ended with code {0}', String(code))), gotData });
      });
    });
  }
}
