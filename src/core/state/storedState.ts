import type { Logger } from '../log';
import { DEFAULT_COLUMN_LAYOUT, readColumnLayout, type ColumnLayout } from '../offers/explorer/columns';
import { validateSearchName, type SavedSearch, type SeenOffers } from '../offers/saved';
import { isOfferSort, type OfferSort } from '../offers/search';
import { readPendingRent } from '../rent/journal';
import { readProfiles } from '../session/profiles';
import {
  ReadError,
  arrayOf,
  guarded,
  integer,
  mapped,
  number,
  objectOf,
  optional,
  orElse,
  readableItems,
  recordOf,
  string,
  type Reader,
} from './readers';
import { l10n } from '../l10n';

/** What VS Code's Memento offers; globalState fits it, and tests pass a Map-backed one. */
export interface KeyValueStore {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
  keys?(): readonly string[];
}

/** One stored key: where it lives, what it holds, what a missing value reads as, and how an older shape becomes today's. */
export interface StoredSpec<T> {
  /** The key in global state. It never changes: existing installs keep their state under it. */
  readonly key: string;
  /** Reads the stored value, or throws a ReadError (src/core/state/readers.ts). */
  readonly read: Reader<T>;
  readonly default: T;
  /** Turns a value stored by an older version into one `read` accepts; only tried when `read` rejects the value. */
  readonly migrate?: (old: unknown) => unknown;
}

function spec<T>(key: string, read: Reader<T>, fallback: T, migrate?: (old: unknown) => unknown): StoredSpec<T> {
  return migrate ? { key, read, default: fallback, migrate } : { key, read, default: fallback };
}

/** "Most recently used first" lists of the rent flow: template hashes and image names. */
const recentList = arrayOf(string);

/**
 * Every value GPU Rental keeps in global state (shared by all windows, kept across reloads). Keys
 * never hold an API key or other secret: those live in SecretStorage.
 */
export const STORED = {
  /** The added profiles (names and base URLs); the default profile is never stored. Malformed or duplicate entries are dropped. */
  profiles: spec(
    'gpuRental.profiles',
    mapped(
      arrayOf((raw) => raw),
      readProfiles,
    ),
    [],
  ),
  /** The id of the profile chosen last, in any window: new windows start with it. */
  activeProfile: spec<string | undefined>('gpuRental.activeProfile', optional(string), undefined),
  /** Normalized base URLs the user signed out of: the key from the environment is not imported for them again. */
  signedOut: spec('gpuRental.signedOut', arrayOf(string), []),
  /** Template hashes the rent flow offers first, most recent first. */
  recentTemplates: spec('gpuRental.recentTemplates', recentList, []),
  /** Image names the rent flow offers first, most recent first. */
  recentImages: spec('gpuRental.recentImages', recentList, []),
  /** API keys created here, per base URL: the secret's fingerprint → the key's id (never the secret itself). */
  createdApiKeys: spec('gpuRental.createdApiKeys', recordOf(recordOf(number)), {}),
  /**
   * The Offers view's search: the query text and the sort. A field it cannot read falls back on
   * its own (the query to none, the sort to `value`), as the view always did.
   */
  offerSearch: spec(
    'gpuRental.offerSearch',
    objectOf({
      query: orElse(string, ''),
      sort: orElse<OfferSort>(guarded(isOfferSort, l10n.t('an offer sort')), 'value'),
    }),
    { query: '', sort: 'value' as OfferSort },
  ),
  /** The Offer Explorer's columns: which show, in order, and the widths the user dragged (src/core/offers/explorer/columns.ts). */
  explorerColumns: spec<ColumnLayout>('gpuRental.explorerColumns', readColumnLayout, DEFAULT_COLUMN_LAYOUT),
  /** Boots in progress (instance id, epoch ms it began), so a reload keeps watching them. */
  boots: spec('gpuRental.boots', readableItems(objectOf({ id: integer, since: number })), []),
  /** Epoch ms until which the low-credit warning is snoozed; 0 when it is not. */
  lowCreditSnoozedUntil: spec('gpuRental.lowCreditSnoozedUntil', number, 0),
  /** Rents whose outcome is not known yet, of every window (see src/core/rent/journal.ts). */
  rentJournal: spec('gpuRental.rentJournal', readableItems(readPendingRent), []),
  /** Instance id → epoch ms a window connected to it last said so (see src/core/idle/windowClaims.ts). */
  connectedWindows: spec('gpuRental.connectedWindows', recordOf(number), {}),
  /** Outbid instances already notified, by any window (outbidKey → epoch ms); see src/core/instances/outbid.ts. */
  outbidNotified: spec('gpuRental.outbidNotified', recordOf(number), {}),
  /** The one idle countdown running in any window: its instance, its window, and when the claim lapses. */
  idleCountdown: spec<{ id: number; owner: string; until: number } | undefined>(
    'gpuRental.idleCountdown',
    optional(objectOf({ id: number, owner: string, until: number })),
    undefined,
  ),
  /** The user's saved searches (see src/core/offers/saved.ts). An unreadable search is dropped, not the list; an unreadable watch is dropped, not the search. */
  savedSearches: spec<SavedSearch[]>(
    'gpuRental.savedSearches',
    readableItems(
      objectOf({
        name: guarded((raw): raw is string => typeof raw === 'string' && validateSearchName(raw) === undefined, l10n.t('a search name')),
        query: string,
        sort: guarded(isOfferSort, l10n.t('an offer sort')),
        watch: orElse(optional(objectOf({ ceilingPerHour: number, baseUrl: string, profileId: string, since: number })), undefined),
      }),
    ),
    [],
  ),
  /** Per watched search (seenKey of its name): offer ids already counted as seen, so no window notifies one twice. */
  watchSeen: spec<Record<string, SeenOffers>>(
    'gpuRental.watchSeen',
    mapped(
      recordOf((raw) => raw),
      (all) =>
        Object.fromEntries(
          Object.entries(all).flatMap(([name, raw]) => readOr(objectOf({ since: number, ids: arrayOf(integer) }), raw, name)),
        ),
    ),
    {},
  ),
  /** The one window that runs the search watcher, and when its lease lapses unless renewed. */
  searchWatchClaim: spec<{ owner: string; until: number } | undefined>(
    'gpuRental.searchWatchClaim',
    optional(objectOf({ owner: string, until: number })),
    undefined,
  ),
};

export type StoredKey = keyof typeof STORED;

/** `[[key, value]]` when `raw` reads, else nothing: one damaged map entry is dropped, not the map. */
function readOr<T>(read: Reader<T>, raw: unknown, key: string): Array<[string, T]> {
  try {
    return [[key, read(raw, key)]];
  } catch (error) {
    if (error instanceof ReadError) return [];
    throw error;
  }
}

/** What a stored key holds, as read and as written. */
export type Stored<K extends StoredKey> = (typeof STORED)[K]['default'];

/** A stored value read against its spec: the value; whether it was migrated; why it was not readable, if it was not. */
export interface StoredRead<T> {
  value: T;
  migrated?: true;
  problem?: string;
}

/**
 * Reads one raw stored value: missing → the default; readable → read; rejected but migratable →
 * the migrated value; anything else → the default, with the reason.
 */
export function readStored<T>(spec: StoredSpec<T>, raw: unknown): StoredRead<T> {
  if (raw === undefined) return { value: structuredClone(spec.default) };
  const first = attempt(spec.read, raw);
  if (first.ok) return { value: first.value };
  if (spec.migrate) {
    const migrated = attempt(spec.read, spec.migrate(raw));
    if (migrated.ok) return { value: migrated.value, migrated: true };
  }
  return { value: structuredClone(spec.default), problem: first.problem };
}

/** Runs a reader; a ReadError becomes its reason (where and why, without the value itself: it may be anything a user had stored). */
function attempt<T>(read: Reader<T>, raw: unknown): { ok: true; value: T } | { ok: false; problem: string } {
  try {
    return { ok: true, value: read(raw) };
  } catch (error) {
    if (error instanceof ReadError) return { ok: false, problem: error.message };
    throw error;
  }
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
    const spec = STORED[key] as StoredSpec<Stored<K>>;
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
