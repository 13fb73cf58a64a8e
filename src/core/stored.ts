import type { CountdownClaim } from './idle/windowClaims';
import { DEFAULT_COLUMN_LAYOUT, readColumnLayout, type ColumnLayout } from './offers/explorer/columns';
import { validateSearchName, type SavedSearch, type SeenOffers } from './offers/saved';
import { isOfferSort, type OfferSort } from './offers/search';
import type { WatchClaim } from './offers/watch';
import { readPendingRent } from './rent/journal';
import { readJobChoice, type JobChoice } from './jobs/choices';
import { readProfiles } from './session/profiles';
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
} from './state/readers';
import { storedSpec, type StoredState, type StoredValues } from './state/storedState';
import { l10n } from './l10n';

/** "Most recently used first" lists of the rent flow: template hashes and image names. */
const recentList = arrayOf(string);

/**
 * Every value GPU Rental keeps in global state (shared by all windows, kept across reloads): the
 * key, a reader, the default and, where an older shape exists, its migration. The areas that own a
 * value own its reader, and this catalog names them all; it sits above every area of src/core, and
 * stored state (src/core/state/) below them all knows none. Keys never hold an API key or other
 * secret: those live in SecretStorage.
 */
export const STORED = {
  /** The added profiles (names and base URLs); the default profile is never stored. Malformed or duplicate entries are dropped. */
  profiles: storedSpec(
    'gpuRental.profiles',
    mapped(
      arrayOf((raw) => raw),
      readProfiles,
    ),
    [],
  ),
  /** The id of the profile chosen last, in any window: new windows start with it. */
  activeProfile: storedSpec<string | undefined>('gpuRental.activeProfile', optional(string), undefined),
  /** Normalized base URLs the user signed out of: the key from the environment is not imported for them again. */
  signedOut: storedSpec('gpuRental.signedOut', arrayOf(string), []),
  /** Template hashes the rent flow offers first, most recent first. */
  recentTemplates: storedSpec('gpuRental.recentTemplates', recentList, []),
  /** Image names the rent flow offers first, most recent first. */
  recentImages: storedSpec('gpuRental.recentImages', recentList, []),
  /** API keys created here, per base URL: the secret's fingerprint → the key's id (never the secret itself). */
  createdApiKeys: storedSpec('gpuRental.createdApiKeys', recordOf(recordOf(number)), {}),
  /**
   * The Offers view's search: the query text and the sort. A field it cannot read falls back on
   * its own (the query to none, the sort to `value`), as the view always did.
   */
  offerSearch: storedSpec(
    'gpuRental.offerSearch',
    objectOf({
      query: orElse(string, ''),
      sort: orElse<OfferSort>(guarded(isOfferSort, l10n.t('an offer sort')), 'value'),
    }),
    { query: '', sort: 'value' as OfferSort },
  ),
  /** The Offer Explorer's columns: which show, in order, and the widths the user dragged (src/core/offers/explorer/columns.ts). */
  explorerColumns: storedSpec<ColumnLayout>('gpuRental.explorerColumns', readColumnLayout, DEFAULT_COLUMN_LAYOUT),
  /** Boots in progress (instance id, epoch ms it began), so a reload keeps watching them. */
  boots: storedSpec('gpuRental.boots', readableItems(objectOf({ id: integer, since: number })), []),
  /** Epoch ms until which the low-credit warning is snoozed; 0 when it is not. */
  lowCreditSnoozedUntil: storedSpec('gpuRental.lowCreditSnoozedUntil', number, 0),
  /** Rents whose outcome is not known yet, of every window (see src/core/rent/journal.ts). */
  rentJournal: storedSpec('gpuRental.rentJournal', readableItems(readPendingRent), []),
  /** Instance id → epoch ms a window connected to it last said so (see src/core/idle/windowClaims.ts). */
  connectedWindows: storedSpec('gpuRental.connectedWindows', recordOf(number), {}),
  /** Outbid instances already notified, by any window (outbidKey → epoch ms); see src/core/instances/outbid.ts. */
  outbidNotified: storedSpec('gpuRental.outbidNotified', recordOf(number), {}),
  /** Price increases and contract ends already told, by any window (account|increase:id or end:instance:date → epoch ms); see src/core/contracts/watch.ts. */
  contractNotified: storedSpec('gpuRental.contractNotified', recordOf(number), {}),
  /** The one idle countdown running in any window: its instance, its window, and when the claim lapses. */
  idleCountdown: storedSpec<CountdownClaim | undefined>(
    'gpuRental.idleCountdown',
    optional(objectOf({ id: number, owner: string, until: number })),
    undefined,
  ),
  /**
   * What the user chose for each job, by `<instance id>/<job id>`: its outbid policy and ceiling and
   * whether it stops the instance at its end (src/core/jobs/choices.ts). What the outbid policies
   * follow; the instance's copies are only compared with it. An unreadable entry is dropped alone.
   */
  jobChoices: storedSpec<Record<string, JobChoice>>(
    'gpuRental.jobChoices',
    mapped(
      recordOf((raw) => raw),
      (all) =>
        Object.fromEntries(
          Object.entries(all).flatMap(([key, raw]) => {
            const choice = readJobChoice(raw);
            return choice ? [[key, choice]] : [];
          }),
        ),
    ),
    {},
  ),
  /** The user's saved searches (see src/core/offers/saved.ts). An unreadable search is dropped, not the list; an unreadable watch is dropped, not the search. */
  savedSearches: storedSpec<SavedSearch[]>(
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
  watchSeen: storedSpec<Record<string, SeenOffers>>(
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
  searchWatchClaim: storedSpec<WatchClaim | undefined>(
    'gpuRental.searchWatchClaim',
    optional(objectOf({ owner: string, until: number })),
    undefined,
  ),
  /** Health checks after a rent not done yet, by instance id: when it was rented, and the window that checks it (src/core/health/afterRent.ts). */
  healthAfterRent: storedSpec(
    'gpuRental.healthAfterRent',
    recordOf(objectOf({ since: number, owner: optional(string), until: optional(number) })),
    {},
  ),
};

export type StoredKey = keyof typeof STORED;

/** What a stored key holds, as read and as written. */
export type Stored<K extends StoredKey> = StoredValues<typeof STORED>[K];

/** GPU Rental's stored state: every key of STORED, typed. The composition root opens it on global state. */
export type GpuRentalState = StoredState<typeof STORED>;

/** `[[key, value]]` when `raw` reads, else nothing: one damaged map entry is dropped, not the map. */
function readOr<T>(read: Reader<T>, raw: unknown, key: string): Array<[string, T]> {
  try {
    return [[key, read(raw, key)]];
  } catch (error) {
    if (error instanceof ReadError) return [];
    throw error;
  }
}
