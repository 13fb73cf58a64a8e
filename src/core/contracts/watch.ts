/**
 * The account's contracts as the Instances view and the notices see them: the hosts' pending price
 * increases (one listing for all instances: the service has no filter by instance), read at most
 * once a minute as the poller's snapshots come in and at once when asked (Refresh, an answer sent),
 * and the contracts that end soon (from each instance's `end_date`). Each increase and each end is
 * told once per account, in one window: windows share what was told through stored state, as the
 * outbid notices do.
 */
import type { PendingIncreaseRecord } from '../api/contracts';
import type { Instance } from '../api/instances';
import { Emitter, type Disposable } from '../events';
import { formatDollars } from '../format';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { l10n, sentences } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import { priceIncreaseOf, totals, utcDate, type PriceIncrease } from './increase';

/** The least time between two listings made by the poll (an explicit refresh does not wait). */
export const PENDING_REFRESH_MS = 60_000;
/** How long a told entry is kept after it was last seen: an increase or an end gone for this long is forgotten. */
const FORGET_AFTER_MS = 90 * 86_400_000;

export interface ContractAccount {
  readonly baseUrl: string;
  readonly profileId: string;
}

export interface ContractWatchDeps {
  /** The account bound now; nothing is read without one. */
  account(): ContractAccount | undefined;
  list(): Promise<{ rows: PendingIncreaseRecord[]; truncated: boolean }>;
  /** Reads and changes the record of what was told (shared by every window). */
  told: {
    get(): Readonly<Record<string, number>>;
    change(update: (told: Readonly<Record<string, number>>) => Record<string, number>): Promise<unknown>;
  };
  logger: Logger;
  now?(): number;
}

/** What the row of one instance shows about its contract. */
export interface ContractFacts {
  readonly increase?: PriceIncrease;
  /** Days left before the contract ends, when that is within the notice window. */
  readonly endsInDays?: number;
}

/** The buttons of the contract notices. */
export type ContractAction = 'accept' | 'reject' | 'rentElsewhere';

export function contractActionLabel(action: ContractAction): string {
  switch (action) {
    case 'accept':
      return l10n.t('Accept…');
    case 'reject':
      return l10n.t('Reject…');
    case 'rentElsewhere':
      return l10n.t('Rent Like This Elsewhere…');
  }
}

/** A notice to show, and the instance it is about. */
export interface ContractNotice {
  readonly instanceId: number;
  readonly increase?: PriceIncrease;
  readonly notice: Notice<ContractAction>;
}

/** Days from now to an epoch-seconds date, rounded up (0 once it passed). */
export function daysUntil(epochSeconds: number, nowMs: number): number {
  return Math.max(0, Math.ceil((epochSeconds * 1000 - nowMs) / 86_400_000));
}

/** What a row shows about its contract: the pending increase, and the end when within `noticeDays` (0: never). */
export function contractFacts(
  instance: Instance,
  increase: PriceIncrease | undefined,
  nowMs: number,
  noticeDays: number,
): ContractFacts | undefined {
  const end = instance.end_date;
  const phase = instancePhase(instance);
  const endsInDays =
    noticeDays > 0 && typeof end === 'number' && end > 0 && phase !== 'gone' && end * 1000 - nowMs <= noticeDays * 86_400_000
      ? daysUntil(end, nowMs)
      : undefined;
  return increase || endsInDays !== undefined ? { increase, endsInDays } : undefined;
}

/** The notice for a new pending increase: the numbers, with Accept, Reject and Rent Like This Elsewhere. */
export function increaseNotice(instance: Instance | undefined, inc: PriceIncrease): Notice<ContractAction> {
  const name = instance ? instanceName(instance) : l10n.t('instance #{0}', inc.instanceId);
  const { old, next } = totals(inc);
  const head =
    old !== undefined && next !== undefined
      ? l10n.t('GPU Rental: the host of {0} asks {1}/h instead of {2}/h', name, formatDollars(next), formatDollars(old))
      : l10n.t('GPU Rental: the host of {0} asks a higher price', name);
  const when = inc.startsAt === undefined ? '.' : ` ${l10n.t('from {0}, when the contract ends.', utcDate(inc.startsAt))}`;
  return {
    severity: 'warning',
    text: sentences(`${head}${when}`, l10n.t('Accept it to keep the machine after that date, or reject it.')),
    actions: ['accept', 'reject', 'rentElsewhere'],
  };
}

/** The notice for a contract that ends soon. */
export function endNotice(instance: Instance, days: number): Notice<ContractAction> {
  const when = utcDate(instance.end_date ?? 0);
  return {
    severity: 'warning',
    text:
      days <= 1
        ? l10n.t(
            'GPU Rental: the contract of {0} ends within a day ({1}): the host may stop renting the machine then. Save your work, or rent like it elsewhere.',
            instanceName(instance),
            when,
          )
        : l10n.t(
            'GPU Rental: the contract of {0} ends in {1} days ({2}): the host may stop renting the machine then. Save your work, or rent like it elsewhere.',
            instanceName(instance),
            days,
            when,
          ),
    actions: ['rentElsewhere'],
  };
}

export class ContractWatch implements Disposable {
  private pending = new Map<number, PriceIncrease>();
  private readAt = 0;
  private reading: Promise<void> | undefined;
  private readonly changed = new Emitter<void>();
  /** Fires when the pending increases changed. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly deps: ContractWatchDeps) {}

  /** The increase pending on an instance, as last listed. */
  increaseOf(instanceId: number): PriceIncrease | undefined {
    return this.pending.get(instanceId);
  }

  /** Every pending increase, as last listed. */
  get increases(): readonly PriceIncrease[] {
    return [...this.pending.values()];
  }

  /** Lists the pending increases again: at once with `force`, else when the last listing is a minute old. */
  refresh(force = false): Promise<void> {
    const now = this.deps.now?.() ?? Date.now();
    if (this.reading) return this.reading;
    if (!force && now - this.readAt < PENDING_REFRESH_MS) return Promise.resolve();
    if (!this.deps.account()) return Promise.resolve(this.set(new Map()));
    this.readAt = now;
    this.reading = this.deps
      .list()
      .then(({ rows }) => {
        const next = new Map<number, PriceIncrease>();
        // One pending increase per contract: the newest one (the service replaces older asks).
        for (const row of rows) {
          const inc = priceIncreaseOf(row);
          const had = next.get(inc.instanceId);
          if (!had || had.id < inc.id) next.set(inc.instanceId, inc);
        }
        this.set(next);
      })
      .catch((error: unknown) => {
        // A key without instance_read, a 404 from an older server: the rows go without; nothing else changes.
        this.deps.logger.warn(`Could not list the hosts' price increases: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Forgets the listing (another account, signed out). */
  forget(): void {
    this.readAt = 0;
    this.set(new Map());
  }

  /**
   * The notices to show now for `instances`: each pending increase and each end within
   * `noticeDays`, not yet told by any window. Records them as told first, so no window tells twice.
   */
  async toTell(instances: readonly Instance[], noticeDays: number): Promise<ContractNotice[]> {
    const account = this.deps.account();
    if (!account) return [];
    const now = this.deps.now?.() ?? Date.now();
    const prefix = `${account.profileId}|${account.baseUrl}|`;
    const byId = new Map(instances.map((i) => [i.id, i]));
    const candidates: Array<{ key: string; notice: ContractNotice }> = [];
    for (const inc of this.pending.values())
      candidates.push({
        key: `${prefix}increase:${inc.id}`,
        notice: { instanceId: inc.instanceId, increase: inc, notice: increaseNotice(byId.get(inc.instanceId), inc) },
      });
    for (const instance of instances) {
      const days = contractFacts(instance, undefined, now, noticeDays)?.endsInDays;
      if (days === undefined || instancePhase(instance) === 'gone') continue;
      candidates.push({
        key: `${prefix}end:${instance.id}:${Math.round(instance.end_date ?? 0)}`,
        notice: { instanceId: instance.id, notice: endNotice(instance, days) },
      });
    }
    const tell: ContractNotice[] = [];
    // Written only when something is new or old enough to forget: polls come every few seconds.
    const told = this.deps.told.get();
    const stale = Object.entries(told).some(([key, at]) => key.startsWith(prefix) && now - at >= FORGET_AFTER_MS);
    if (!stale && candidates.every((c) => told[c.key] !== undefined)) return [];
    try {
      await this.deps.told.change((told) => {
        const next: Record<string, number> = {};
        for (const [key, at] of Object.entries(told)) if (now - at < FORGET_AFTER_MS) next[key] = at;
        for (const c of candidates) {
          if (told[c.key] === undefined) tell.push(c.notice);
          next[c.key] = now;
        }
        return next;
      });
    } catch (error) {
      // Without the record, every window would tell on every poll: say nothing this time.
      this.deps.logger.warn(`Could not record contract notices: ${String(error)}`);
      return [];
    }
    return tell;
  }

  dispose(): void {
    this.changed.dispose();
  }

  private set(next: Map<number, PriceIncrease>): void {
    const same = next.size === this.pending.size && [...next].every(([id, inc]) => this.pending.get(id)?.id === inc.id);
    this.pending = next;
    if (!same) this.changed.fire();
  }
}
