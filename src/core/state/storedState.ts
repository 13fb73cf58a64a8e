import * as z from 'zod';
import type { Logger } from '../log';
import { isOfferSort, type OfferSort } from '../offers/search';
import { pendingRentSchema } from '../rent/journal';
import { readProfiles } from '../session/profiles';

/** What VS Code's Memento offers; globalState fits it, and tests pass a Map-backed one. */
export interface KeyValueStore {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
  keys?(): readonly string[];
}

/** One stored key: where it lives, what it holds, what a missing value reads as, and how an older shape becomes today's. */
export interface StoredSpec<S extends z.ZodType> {
  /** The key in global state. It never changes: existing installs keep their state under it. */
  readonly key: string;
  readonly schema: S;
  readonly default: z.output<S>;
  /** Turns a value stored by an older version into one `schema` reads; only tried when `schema` rejects the value. */
  readonly migrate?: (old: unknown) => unknown;
}

function spec<S extends z.ZodType>(key: string, schema: S, fallback: z.output<S>, migrate?: (old: unknown) => unknown): StoredSpec<S> {
  return migrate ? { key, schema, default: fallback, migrate } : { key, schema, default: fallback };
}

/**
 * A list that keeps the items it can read and drops the others, as the readers before this module
 * did: one damaged entry does not cost the rest.
 */
function readableItems<T>(item: z.ZodType<T>): z.ZodType<T[], unknown[]> {
  return z.array(z.unknown()).transform((list) =>
    list.flatMap((raw) => {
      const read = item.safeParse(raw);
      return read.success ? [read.data] : [];
    }),
  );
}

/** "Most recently used first" lists of the rent flow: template hashes and image names. */
const recentList = z.array(z.string());

/**
 * Every value GPU Rental keeps in global state (shared by all windows, kept across reloads). Keys
 * never hold an API key or other secret: those live in SecretStorage.
 */
export const STORED = {
  /** The added profiles (names and base URLs); the default profile is never stored. Malformed or duplicate entries are dropped. */
  profiles: spec('gpuRental.profiles', z.array(z.unknown()).transform(readProfiles), []),
  /** The id of the profile chosen last, in any window: new windows start with it. */
  activeProfile: spec('gpuRental.activeProfile', z.string().optional(), undefined),
  /** Normalized base URLs the user signed out of: the key from the environment is not imported for them again. */
  signedOut: spec('gpuRental.signedOut', z.array(z.string()), []),
  /** Template hashes the rent flow offers first, most recent first. */
  recentTemplates: spec('gpuRental.recentTemplates', recentList, []),
  /** Image names the rent flow offers first, most recent first. */
  recentImages: spec('gpuRental.recentImages', recentList, []),
  /** API keys created here, per base URL: the secret's fingerprint → the key's id (never the secret itself). */
  createdApiKeys: spec('gpuRental.createdApiKeys', z.record(z.string(), z.record(z.string(), z.number())), {}),
  /**
   * The Offers view's search: the query text and the sort. A field it cannot read falls back on
   * its own (the query to none, the sort to `value`), as the view always did.
   */
  offerSearch: spec(
    'gpuRental.offerSearch',
    z.object({
      query: z.string().catch(''),
      sort: z.custom<OfferSort>(isOfferSort).catch('value'),
    }),
    { query: '', sort: 'value' },
  ),
  /** Boots in progress (instance id, epoch ms it began), so a reload keeps watching them. */
  boots: spec('gpuRental.boots', readableItems(z.object({ id: z.number().int(), since: z.number().finite() })), []),
  /** Epoch ms until which the low-credit warning is snoozed; 0 when it is not. */
  lowCreditSnoozedUntil: spec('gpuRental.lowCreditSnoozedUntil', z.number(), 0),
  /** Rents whose outcome is not known yet, of every window (see src/core/rent/journal.ts). */
  rentJournal: spec('gpuRental.rentJournal', readableItems(pendingRentSchema), []),
  /** Instance id → epoch ms a window connected to it last said so (see src/core/idle/windowClaims.ts). */
  connectedWindows: spec('gpuRental.connectedWindows', z.record(z.string(), z.number()), {}),
  /** The one idle countdown running in any window: its instance, its window, and when the claim lapses. */
  idleCountdown: spec('gpuRental.idleCountdown', z.object({ id: z.number(), owner: z.string(), until: z.number() }).optional(), undefined),
};

export type StoredKey = keyof typeof STORED;

/** What a stored key holds, as read and as written. */
export type Stored<K extends StoredKey> = z.output<(typeof STORED)[K]['schema']>;

/** A stored value read against its spec: the value; whether it was migrated; why it was not readable, if it was not. */
export interface StoredRead<T> {
  value: T;
  migrated?: true;
  problem?: string;
}

/**
 * Reads one raw stored value: missing → the default; readable → parsed; rejected but migratable →
 * the migrated value; anything else → the default, with the reason.
 */
export function readStored<S extends z.ZodType>(spec: StoredSpec<S>, raw: unknown): StoredRead<z.output<S>> {
  if (raw === undefined) return { value: structuredClone(spec.default) };
  const read = spec.schema.safeParse(raw);
  if (read.success) return { value: read.data };
  if (spec.migrate) {
    const migrated = spec.schema.safeParse(spec.migrate(raw));
    if (migrated.success) return { value: migrated.data, migrated: true };
  }
  return { value: structuredClone(spec.default), problem: describeIssue(read.error) };
}

/** Where and why a value was rejected, without the value itself (it may be anything a user had stored). */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unreadable';
  const path = issue.path.length ? issue.path.map(String).join('.') : 'the value';
  return `${path}: ${issue.message}`;
}

/**
 * Typed access to GPU Rental's global state. Every read is parsed against the key's schema, so a
 * value damaged or written by another version never reaches the code as the wrong type: an older
 * shape is migrated, anything else reads as the default (logged once per key).
 */
export class StoredState {
  private readonly warned = new Set<StoredKey>();

  constructor(
    private readonly store: KeyValueStore,
    private readonly logger?: Logger,
  ) {}

  get<K extends StoredKey>(key: K): Stored<K> {
    const spec = STORED[key] as StoredSpec<z.ZodType<Stored<K>>>;
    const read = readStored(spec, this.store.get(spec.key));
    if (read.problem !== undefined && !this.warned.has(key)) {
      this.warned.add(key);
      this.logger?.warn(`Stored ${spec.key} could not be read (${read.problem}); using the default until it is written again.`);
    }
    return read.value;
  }

  /** Stores a value; `undefined` removes the key, and reads give the default again. */
  async update<K extends StoredKey>(key: K, value: Stored<K> | undefined): Promise<void> {
    await this.store.update(STORED[key].key, value);
  }

  /**
   * Reads, edits and writes one key; resolves with what was written. The read and the write are
   * one synchronous step as far as this window goes (global state applies an update in memory at
   * once), so two changes of this window never lose each other's edit. Windows are not locked
   * against each other: global state has no compare-and-set.
   */
  async change<K extends StoredKey>(key: K, edit: (current: Stored<K>) => Stored<K> | undefined): Promise<Stored<K> | undefined> {
    const next = edit(this.get(key));
    await this.update(key, next);
    return next;
  }
}
