import type { BillingEntry, BillingPage, BillingRange } from '../api/billing';
import { ApiError } from '../api/errors';
import type { Logger } from '../log';

/** Sums charges per instance; the service names an instance's charges `instance-<id>`. */
export function costsByInstance(entries: readonly BillingEntry[]): Map<number, number> {
  const costs = new Map<number, number>();
  for (const e of entries) {
    const match = /^instance-(\d+)$/.exec(e.source ?? '');
    if (!match) continue;
    const id = Number(match[1]);
    costs.set(id, (costs.get(id) ?? 0) + e.amount);
  }
  return costs;
}

export interface CostTrackerOptions {
  charges: (range: BillingRange) => Promise<BillingPage>;
  logger: Logger;
  now?: () => number;
  /** Charges change slowly; reading them more often than this is waste (and rate-limited). */
  minIntervalMs?: number;
  /** How far back to read. */
  windowDays?: number;
}

/**
 * Cost so far per instance, from the account's charges, read at most once a minute. A key without
 * billing permission simply shows no costs: that is said once in the log, not on every poll.
 */
export class CostTracker {
  private costs = new Map<number, number>();
  private lastRead = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<boolean> | undefined;
  private forbidden = false;
  /** The instances that existed at the last read: a new one makes the charges stale at once. */
  private known = new Set<number>();

  constructor(private readonly options: CostTrackerOptions) {}

  costOf(id: number): number | undefined {
    return this.costs.get(id);
  }

  /**
   * Reads the charges when they are stale (older than the interval, or older than one of
   * `instanceIds`); resolves true when the costs changed.
   */
  refresh(instanceIds: readonly number[] = []): Promise<boolean> {
    const now = (this.options.now ?? Date.now)();
    const newcomer = instanceIds.some((id) => !this.known.has(id));
    const fresh = now - this.lastRead < (this.options.minIntervalMs ?? 60_000) && !newcomer;
    if (this.forbidden || this.inFlight || fresh) return this.inFlight ?? Promise.resolve(false);
    this.lastRead = now;
    this.known = new Set(instanceIds);
    this.inFlight = this.read(now).finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** Forget everything, e.g. after signing out or switching accounts. */
  reset(): void {
    this.costs = new Map();
    this.lastRead = Number.NEGATIVE_INFINITY;
    this.forbidden = false;
    this.known = new Set();
  }

  private async read(now: number): Promise<boolean> {
    const to = Math.ceil(now / 1000);
    const from = to - (this.options.windowDays ?? 30) * 86_400;
    const entries: BillingEntry[] = [];
    try {
      let afterToken: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = await this.options.charges({ from, to, limit: 500, afterToken });
        entries.push(...res.results);
        if (!res.next_token) break;
        afterToken = res.next_token;
      }
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'forbidden') {
        this.forbidden = true;
        this.options.logger.info('This API key may not read billing, so instance costs so far are not shown.');
      } else {
        this.options.logger.warn(`Reading charges failed: ${error instanceof ApiError ? error.toLogString() : String(error)}`);
      }
      return false;
    }
    const next = costsByInstance(entries);
    const changed = next.size !== this.costs.size || [...next].some(([id, v]) => this.costs.get(id) !== v);
    this.costs = next;
    return changed;
  }
}
