/**
 * An instance's cost since it started, for its tooltip: the charges whose source is
 * `instance-<id>` from its start until now. Read once when a tooltip asks (never per poll), and
 * kept a few minutes per instance; a failed read is kept a short while too, so hovering again does
 * not hammer the service.
 */
import type { BillingPage, BillingRange } from '../api/billing';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { readPages } from './spendRead';
import { secondsOf, utcIso } from './period';

export type LifetimeCost =
  | { readonly kind: 'read'; readonly amount: number; readonly since: number; readonly upTo: number }
  | { readonly kind: 'failed'; readonly reason: string };

/** What of an instance the read needs: its id and when it started (Unix seconds), or how long it has run. */
export interface LifetimeSubject {
  readonly id: number;
  readonly start_date?: number | null;
  readonly duration?: number | null;
}

export interface LifetimeCostsOptions {
  charges(range: BillingRange): Promise<BillingPage>;
  now?: () => number;
  /** How long a read is kept: 3 minutes. */
  ttlMs?: number;
  /** How long a failure is kept: 30 seconds. */
  failedTtlMs?: number;
  /** Pages of instance charges read at most (500 a page). */
  maxPages?: number;
}

/** The lifetime costs of instances, cached per instance; one read at a time per instance. */
export class LifetimeCosts {
  private readonly cache = new Map<number, { at: number; cost: LifetimeCost }>();
  private readonly inFlight = new Map<number, Promise<LifetimeCost>>();
  private generation = 0;

  constructor(private readonly o: LifetimeCostsOptions) {}

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** The cost kept for `id` while fresh; undefined when it must be read. */
  cached(id: number): LifetimeCost | undefined {
    const hit = this.cache.get(id);
    if (!hit) return undefined;
    const ttl = hit.cost.kind === 'read' ? (this.o.ttlMs ?? 180_000) : (this.o.failedTtlMs ?? 30_000);
    return this.now() - hit.at < ttl ? hit.cost : undefined;
  }

  /** The cost of `instance`, from the cache when fresh, else read (once, however many ask at the same time). */
  costOf(instance: LifetimeSubject): Promise<LifetimeCost> {
    const hit = this.cached(instance.id);
    if (hit) return Promise.resolve(hit);
    const running = this.inFlight.get(instance.id);
    if (running) return running;
    const generation = this.generation;
    const read = this.read(instance).then((cost) => {
      // A read begun before forget() (another account) is not kept.
      if (generation === this.generation) this.cache.set(instance.id, { at: this.now(), cost });
      return cost;
    });
    const tracked = read.finally(() => this.inFlight.delete(instance.id));
    this.inFlight.set(instance.id, tracked);
    return tracked;
  }

  /** Forget every cost, e.g. after signing out or switching accounts. */
  forget(): void {
    this.generation++;
    this.cache.clear();
    this.inFlight.clear();
  }

  private async read(instance: LifetimeSubject): Promise<LifetimeCost> {
    const nowMs = this.now();
    const to = Math.ceil(nowMs / 1000);
    const since =
      typeof instance.start_date === 'number' && instance.start_date > 0
        ? instance.start_date
        : typeof instance.duration === 'number' && instance.duration >= 0
          ? to - instance.duration
          : undefined;
    if (since === undefined) return { kind: 'failed', reason: l10n.t('the service gave no start time') };
    const from = Math.min(Math.floor(since), to);
    try {
      const read = await readPages(
        (afterToken) => this.o.charges({ from, to, limit: 500, afterToken, types: ['instance'] }),
        this.o.maxPages ?? 20,
      );
      const mine = read.entries.filter((e) => e.source === `instance-${instance.id}`);
      if (!read.complete && mine.length === 0) return { kind: 'failed', reason: l10n.t('too many charges to read') };
      // A charge whose end is no time (see `secondsOf`) still counts; an end after now says now.
      const ends = mine.map((e) => secondsOf(e.end)).filter((t): t is number => t !== undefined);
      return {
        kind: 'read',
        amount: mine.reduce((t, e) => t + e.amount, 0),
        since,
        upTo: ends.length ? Math.min(Math.max(...ends), to) : to,
      };
    } catch (error) {
      return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** "3 days", "5 hours", "1 minute": how long an instance has run, each count its own words. */
export function spanWords(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s >= 2 * 86_400) return l10n.t('{0} days', Math.floor(s / 86_400));
  if (s >= 86_400) return l10n.t('1 day');
  if (s >= 2 * 3600) return l10n.t('{0} hours', Math.floor(s / 3600));
  if (s >= 3600) return l10n.t('1 hour');
  const m = Math.floor(s / 60);
  return m === 1 ? l10n.t('1 minute') : l10n.t('{0} minutes', m);
}

/** "2026-10-31 14:05 UTC"; "an unknown time" for a time that is none (see `secondsOf`). */
export function utcMinute(seconds: number): string {
  const iso = utcIso(seconds);
  return iso ? l10n.t('{0} UTC', iso.slice(0, 16).replace('T', ' ')) : l10n.t('an unknown time');
}

/** Text from elsewhere (an error message) made literal inside Markdown. */
function markdownLiteral(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_{}[\]()<>#+!|~-]/g, (c) => `\\${c}`);
}

/** The tooltip's sentence: "Cost so far: $12.34 over 3 days (charges up to 2026-10-31 14:05 UTC)". */
export function lifetimeCostText(cost: LifetimeCost, nowMs: number): string {
  if (cost.kind === 'failed') return l10n.t('Cost so far: not read ({0})', markdownLiteral(cost.reason));
  return l10n.t(
    'Cost so far: {0} over {1} (charges up to {2})',
    formatDollars(cost.amount),
    spanWords(nowMs / 1000 - cost.since),
    utcMinute(cost.upTo),
  );
}

/** The instance's tooltip (Markdown) with its cost so far below. */
export function tooltipWithCost(tooltip: string, cost: LifetimeCost, nowMs: number): string {
  return `${tooltip}\n\n${lifetimeCostText(cost, nowMs)}`;
}
