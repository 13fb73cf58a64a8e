/**
 * The job book's listings (book.ts): each instance's jobs as its last listing over ssh showed
 * them, one listing at a time per instance, with the user's choices in place of the instance's
 * copies (choices.ts). Kept while the instance is stopped: the outbid policies read them.
 */
import type { Logger } from '../log';
import type { JobChoices } from './choices';
import { jobPhase, type JobStatus } from './status';

/** How long an instance's listing is shown without reading it again when the tree opens the instance. */
export const LISTING_FRESH_MS = 60_000;

/**
 * While a resumable job runs and writes output, its instance's listing is read again at most this
 * often, so its newest checkpoint is known close to an outbid.
 */
export const RESUMABLE_LIST_MS = 30_000;

export interface ListingsDeps {
  /** Reads the instance's status lines (over ssh); rejects when it cannot. */
  read(instanceId: number): Promise<JobStatus[]>;
  readonly choices: JobChoices;
  readonly logger: Logger;
  now(): number;
  /** A listing changed: the tree redraws. */
  changed(): void;
}

export class Listings {
  private readonly statuses = new Map<number, JobStatus[]>();
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly listedAt = new Map<number, number>();

  constructor(private readonly deps: ListingsDeps) {}

  /** The last listing of an instance's jobs. */
  of(instanceId: number): readonly JobStatus[] {
    return this.statuses.get(instanceId) ?? [];
  }

  /** The instances listed so far. */
  instances(): IterableIterator<number> {
    return this.statuses.keys();
  }

  /** The listing on its way for the instance, if one is. */
  pending(instanceId: number): Promise<void> | undefined {
    return this.inFlight.get(instanceId);
  }

  /** Reads the instance's jobs (one call at a time) and redraws; a failure is logged and keeps the last list. */
  list(instanceId: number): Promise<void> {
    const running = this.inFlight.get(instanceId);
    if (running) return running;
    const run = (async () => {
      try {
        const listed = await this.deps.read(instanceId);
        // The instance's copies of the user's choices are compared, never followed (choices.ts).
        this.statuses.set(
          instanceId,
          listed.map((s) => this.deps.choices.reconcile(instanceId, s, this.deps.logger)),
        );
        this.listedAt.set(instanceId, this.deps.now());
        this.deps.changed();
      } catch (error) {
        this.deps.logger.warn(`Jobs of #${instanceId} could not be listed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        this.inFlight.delete(instanceId);
      }
    })();
    this.inFlight.set(instanceId, run);
    return run;
  }

  /** The tree shows the instance's jobs: a listing older than LISTING_FRESH_MS is read again, in the background. */
  opened(instanceId: number): void {
    if (!this.inFlight.has(instanceId) && this.age(instanceId) > LISTING_FRESH_MS) void this.list(instanceId);
  }

  /** A resumable job wrote output: its instance is listed again when the last listing is older than RESUMABLE_LIST_MS. */
  freshen(instanceId: number): void {
    if (this.inFlight.has(instanceId) || this.age(instanceId) < RESUMABLE_LIST_MS) return;
    if (this.of(instanceId).some((s) => s.resume !== undefined && jobPhase(s) === 'running')) void this.list(instanceId);
  }

  /**
   * The account shows the instance stopped: its jobs' processes died with it, so a job its last
   * listing showed running is interrupted now, not running until the instance runs again. A job
   * that stops its instance at its end is left as listed: the stop is most likely its own, after its
   * exit code was written, which the next listing reads. Whether anything changed.
   */
  interrupted(instanceId: number): boolean {
    const diedWith = (s: JobStatus) => jobPhase(s) === 'running' && !s.stopAtEnd;
    const listed = this.statuses.get(instanceId);
    if (!listed?.some(diedWith)) return false;
    this.statuses.set(
      instanceId,
      listed.map((s) => (diedWith(s) ? { ...s, alive: false } : s)),
    );
    this.deps.logger.info(`The jobs running on #${instanceId} were interrupted: the instance stopped.`);
    return true;
  }

  clear(): void {
    this.statuses.clear();
    this.listedAt.clear();
  }

  private age(instanceId: number): number {
    return this.deps.now() - (this.listedAt.get(instanceId) ?? 0);
  }
}
