import type { Instance } from '../api/instances';
import { ApiError } from '../api/errors';
import { Emitter, type Disposable } from '../events';
import type { Logger } from '../log';
import { instancePhase, isTransient } from './phase';

export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** One look at the account's instances. */
export interface InstanceSnapshot {
  readonly instances: readonly Instance[];
  /** When the answer arrived (timers' clock). */
  readonly at: number;
}

export interface PollerOptions {
  /** One request for the whole list. */
  fetch: (signal: AbortSignal) => Promise<Instance[]>;
  intervalMs: () => number;
  logger: Logger;
  timers?: Timers;
  /** Longest wait after repeated failures. */
  maxBackoffMs?: number;
}

/**
 * The one poller of instance state. The tree and the status bar both read its snapshot, so they
 * never disagree. It makes at most one request per interval whatever the number of instances,
 * never has two in flight, backs off on errors (longer on 429), and only runs while signed in and
 * while something needs watching: an instance on its way somewhere, a watched id, or a visible view.
 */
export class InstancePoller implements Disposable {
  private readonly updated = new Emitter<InstanceSnapshot>();
  private readonly failed = new Emitter<unknown>();
  readonly onDidUpdate = this.updated.event;
  readonly onDidFail = this.failed.event;

  private readonly timers: Timers;
  private current: InstanceSnapshot | undefined;
  private enabled = false;
  private readonly interests = new Set<string>();
  /** Ids expected to change soon (just rented, started, rebooted) even before the list shows them. */
  private readonly watched = new Map<number, number>();
  private timer: unknown;
  private inFlight: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private failures = 0;
  /** What the last 429 asked for, if anything. */
  private retryAfterMs = 0;
  private lastStart = Number.NEGATIVE_INFINITY;
  private disposed = false;
  /** Requests made so far; the benchmark reads it. */
  requests = 0;

  constructor(private readonly options: PollerOptions) {
    this.timers = options.timers ?? realTimers;
  }

  get snapshot(): InstanceSnapshot | undefined {
    return this.current;
  }

  /** Whether the poller is scheduled to run (for tests and the status bar). */
  get active(): boolean {
    return this.enabled && (this.interests.size > 0 || this.watched.size > 0 || this.hasTransient());
  }

  /** Signed in or not. Signing out stops polling and forgets the snapshot. */
  setEnabled(enabled: boolean): void {
    if (enabled === this.enabled) return;
    this.enabled = enabled;
    if (!enabled) {
      this.cancelTimer();
      this.abort?.abort();
      this.current = undefined;
      this.failures = 0;
      this.watched.clear();
    }
    this.reschedule();
  }

  /** A reason to keep polling, such as a visible view; `on: false` withdraws it. */
  setInterest(reason: string, on: boolean): void {
    const had = this.interests.has(reason);
    if (on) this.interests.add(reason);
    else this.interests.delete(reason);
    if (had !== on) this.reschedule();
  }

  /** Keeps polling for this instance until it settles, or `forMs` passes. */
  watch(id: number, forMs = 15 * 60_000): void {
    this.watched.set(id, this.timers.now() + forMs);
    this.reschedule();
  }

  get watchedIds(): number[] {
    return [...this.watched.keys()];
  }

  /** Polls now (or joins the request in flight) and resolves when the snapshot is fresh. */
  refresh(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    this.cancelTimer();
    return this.tick();
  }

  dispose(): void {
    this.disposed = true;
    this.cancelTimer();
    this.abort?.abort();
    this.updated.dispose();
    this.failed.dispose();
  }

  private tick(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.poll().finally(() => {
      this.inFlight = undefined;
      this.reschedule();
    });
    return this.inFlight;
  }

  private async poll(): Promise<void> {
    this.abort = new AbortController();
    this.lastStart = this.timers.now();
    this.requests++;
    try {
      const instances = await this.options.fetch(this.abort.signal);
      if (!this.enabled || this.disposed) return;
      this.failures = 0;
      this.retryAfterMs = 0;
      this.settleWatched(instances);
      this.current = { instances, at: this.timers.now() };
      this.updated.fire(this.current);
    } catch (error) {
      if (!this.enabled || this.disposed) return;
      this.failures++;
      this.retryAfterMs = error instanceof ApiError && error.kind === 'rate_limited' ? (error.retryAfterMs ?? 0) : 0;
      this.options.logger.warn(
        `Polling instances failed (${this.failures} in a row): ${error instanceof ApiError ? error.toLogString() : String(error)}`,
      );
      this.failed.fire(error);
    }
  }

  /** Watched ids leave the watch list once the list shows them settled, or when their time is up. */
  private settleWatched(instances: readonly Instance[]): void {
    const now = this.timers.now();
    for (const [id, until] of this.watched) {
      const instance = instances.find((i) => i.id === id);
      if (now > until || (instance && !isTransient(instancePhase(instance)))) this.watched.delete(id);
    }
  }

  private hasTransient(): boolean {
    return this.current?.instances.some((i) => isTransient(instancePhase(i))) ?? false;
  }

  private reschedule(): void {
    if (this.disposed || this.inFlight) return;
    this.cancelTimer();
    if (!this.active) return;
    const interval = Math.max(250, this.options.intervalMs());
    const delay = this.failures === 0 ? interval : Math.max(this.backoff(interval), this.retryAfterMs);
    const wait = Math.max(0, this.lastStart + delay - this.timers.now());
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, wait);
  }

  private backoff(interval: number): number {
    const max = Math.max(interval, this.options.maxBackoffMs ?? 5 * 60_000);
    return Math.min(max, interval * 2 ** Math.min(this.failures, 10));
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
