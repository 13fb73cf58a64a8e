import { Emitter, type Disposable } from '../events';
import { arrayOf, nullable, number, objectOf, oneOf, optional, string, type Reader } from '../state/readers';
import { l10n } from '../l10n';

/**
 * A rent written down before its request is sent. The service has no idempotency keys, so a create
 * whose answer is not seen (timeout, reset, 5xx, 429, an unreadable body, a window closed mid-rent)
 * may or may not have made an instance. The entry says where to look (base URL, profile, the key
 * the request carried) and what for (the rent's unique label, among instances that did not exist
 * before), until the outcome is known.
 */
export interface PendingRent {
  /** The rent's label, unique per rent: what the account is searched for. */
  readonly label: string;
  readonly offerId: number;
  readonly machineId?: number | null;
  /** "RTX 4090 ×2 in NL", for messages. */
  readonly description: string;
  readonly perHour: number;
  readonly profileId: string;
  /** The normalized base URL the request went to; the key stored with the entry belongs to it. */
  readonly baseUrl: string;
  /** The account, when known, for messages. */
  readonly account?: string;
  /** Instance ids the account had before the request: a match must be a new instance. */
  readonly before: readonly number[];
  /** When the request was (about to be) sent, epoch ms. */
  readonly sentAt: number;
  /** `sending`: no answer yet; `uncertain`: an answer came that says nothing reliable. */
  readonly state: 'sending' | 'uncertain';
  /** Which window works on it, and until when; another window takes over an expired lease. */
  readonly lease: { readonly owner: string; readonly until: number };
  /** What went wrong, for the status bar's tooltip. */
  readonly problem?: string;
}

/** A stored journal entry as read back from global state; the stored state drops an entry it cannot read. */
export const readPendingRent: Reader<PendingRent> = objectOf({
  label: string,
  offerId: number,
  machineId: optional(nullable(number)),
  description: string,
  perHour: number,
  profileId: string,
  baseUrl: string,
  account: optional(string),
  before: arrayOf(number),
  sentAt: number,
  state: oneOf(['sending', 'uncertain']),
  lease: objectOf({ owner: string, until: number }),
  problem: optional(string),
});

/** Extension storage shared by every window (global state), and the secret store for the keys. */
export interface JournalStorage {
  read(): readonly PendingRent[];
  write(entries: readonly PendingRent[]): Promise<void>;
  /** Keeps the key the rent was sent with, so the account is checked with that key alone. */
  storeKey(label: string, key: string): Promise<void>;
  getKey(label: string): Promise<string | undefined>;
  deleteKey(label: string): Promise<void>;
  /** Fires when another window changed the entries. */
  readonly onDidChange?: (listener: () => void) => Disposable;
}

export const LEASE_MS = 30_000;

/**
 * The pending rents of every window. Each window renews the lease of the entries it works on; an
 * entry whose window closed or reloaded mid-rent is taken over once its lease runs out.
 */
export class RentJournal implements Disposable {
  private readonly changed = new Emitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: Disposable | undefined;
  /** Writes are queued, so two updates of this window never interleave. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: JournalStorage,
    /** This window, for leases. */
    readonly owner: string,
    private readonly now: () => number = Date.now,
  ) {
    this.subscription = storage.onDidChange?.(() => this.changed.fire());
  }

  /** Every pending rent, of every window and account. */
  entries(): readonly PendingRent[] {
    return this.storage.read();
  }

  get(label: string): PendingRent | undefined {
    return this.entries().find((e) => e.label === label);
  }

  /** Pending rents sent to this account (base URL and profile). */
  for(baseUrl: string | undefined, profileId: string): PendingRent[] {
    return this.entries().filter((e) => e.baseUrl === baseUrl && e.profileId === profileId);
  }

  /**
   * Why the account must not change now, or undefined. A key, profile or base URL change while a
   * rent is unsettled would show another account than the one the instance may be billing in.
   */
  freezeReason(): string | undefined {
    const pending = this.entries();
    if (pending.length === 0) return undefined;
    const what = pending.map((e) => `"${e.label}" (${e.description})`).join(', ');
    return l10n.t(
      'the rent of {0} is not settled yet: GPU Rental is still checking whether the service made the instance. Changing the key, profile or service now could hide an instance that bills. Try again once the status bar no longer shows the check (it settles within minutes).',
      what,
    );
  }

  /** Written before the request is sent; the key is kept in the secret store beside it. */
  async begin(entry: Omit<PendingRent, 'lease' | 'state' | 'sentAt'>, key: string): Promise<PendingRent> {
    const full: PendingRent = { ...entry, state: 'sending', sentAt: this.now(), lease: this.lease() };
    await this.storage.storeKey(entry.label, key);
    await this.update((list) => [...list.filter((e) => e.label !== entry.label), full]);
    return full;
  }

  async markUncertain(label: string, problem: string): Promise<void> {
    await this.update((list) => list.map((e) => (e.label === label ? { ...e, state: 'uncertain', problem, lease: this.lease() } : e)));
  }

  /** Extends this window's lease on an entry; false when another window holds it now. */
  async renew(label: string): Promise<boolean> {
    let mine = false;
    await this.update((list) =>
      list.map((e) => {
        if (e.label !== label || !this.mayTake(e)) return e;
        mine = true;
        return { ...e, lease: this.lease() };
      }),
    );
    return mine;
  }

  /** Entries no live window works on: this window's own, and those whose lease ran out. */
  claimable(): PendingRent[] {
    return this.entries().filter((e) => this.mayTake(e));
  }

  key(label: string): Promise<string | undefined> {
    return this.storage.getKey(label);
  }

  /** The outcome is known: the entry and its key copy go. */
  async settle(label: string): Promise<void> {
    await this.update((list) => list.filter((e) => e.label !== label));
    await this.storage.deleteKey(label);
  }

  /** Lets another window take over at once (this window is closing). */
  async release(): Promise<void> {
    await this.update((list) => list.map((e) => (e.lease.owner === this.owner ? { ...e, lease: { owner: this.owner, until: 0 } } : e)));
  }

  dispose(): void {
    this.subscription?.dispose();
    this.changed.dispose();
  }

  private mayTake(e: PendingRent): boolean {
    return e.lease.owner === this.owner || e.lease.until <= this.now();
  }

  private lease(): PendingRent['lease'] {
    return { owner: this.owner, until: this.now() + LEASE_MS };
  }

  private update(change: (list: readonly PendingRent[]) => readonly PendingRent[]): Promise<void> {
    const run = this.queue.then(async () => {
      await this.storage.write(change(this.storage.read()));
      this.changed.fire();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
