/**
 * The saved-search commands as core flows: Save Search, Delete, Watch Search, Stop Watching and
 * Check Watched Searches Now decide here what to ask, what to refuse and what the user is told.
 * src/ui/commands/searches.ts registers them and shows what they return.
 */
import type { Offer, SearchOffersRequest } from '../api/offers';
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import { decimalText } from '../numbers';
import { info, type Notice } from '../notice';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import type { StoredAccess } from '../state/storedState';
import {
  checkCeilingValue,
  findSearch,
  parseCeiling,
  removeSearch,
  saveSearch,
  savedSearchRequest,
  seenKey,
  unwatched,
  updateSearch,
  validateCeiling,
  validateSearchName,
  watchedSearches,
  type SavedSearch,
  type SeenOffers,
} from './saved';
import { OFFER_SORTS, describeSearch, type OfferSort } from './search';
import type { WatchedSearch } from './watchNotice';

/** What the user is told, how loudly, and the buttons (identifiers; `label` words them). */
export interface SearchNotice<A extends string = never> extends Notice<A> {
  readonly severity: 'info' | 'warning';
}

/** What the saved-search flows read and change. */
export interface SavedSearchDeps {
  readonly ask: Ask;
  readonly state: StoredAccess<{ savedSearches: SavedSearch[]; watchSeen: Record<string, SeenOffers> }>;
}

/** What Watch Search also needs: the account it searches with, one search request, the watcher's baseline, the interval. */
export interface WatchDeps extends SavedSearchDeps {
  /** The signed-in account (normalized base URL and profile), or undefined when signed out. */
  readonly account: () => { baseUrl: string; profileId: string } | undefined;
  readonly searchOffers: (request: SearchOffersRequest) => Promise<Offer[]>;
  /** Shows progress while a search runs (not cancellable: one request). */
  readonly busy: Progress;
  readonly watcher: { baseline(search: WatchedSearch): Promise<Offer[]>; checkNow(): Promise<{ searched: number; told: number }> };
  readonly intervalMinutes: () => number;
  readonly now: () => number;
}

/** The search the Offers view shows. */
export interface CurrentSearch {
  query: string;
  sort: OfferSort;
}

/** The button after a search is saved. */
export type SavedAction = 'Watch';

export function savedActionLabel(action: SavedAction): string {
  return action === 'Watch' ? l10n.t('Watch…') : action;
}

/** The interval as the messages say it: "5 min", "1 h 30 min". */
export function intervalText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = Math.round(minutes % 60);
  if (h === 0) return l10n.t('{0} min', m);
  return m ? l10n.t('{0} h {1} min', h, m) : l10n.t('{0} h', h);
}

/** A saved search as a row of a quick pick. */
export function savedSearchRow(search: SavedSearch): { label: string; description?: string; detail: string } {
  return {
    label: search.watch ? `$(eye) ${search.name}` : search.name,
    description: search.watch ? l10n.t('watched: at or under {0}/h', formatDollars(search.watch.ceilingPerHour)) : undefined,
    detail: `${describeSearch({ ...search, pages: 1 })} · ${OFFER_SORTS[search.sort].label}`,
  };
}

const list = (d: SavedSearchDeps) => d.state.get('savedSearches');

/**
 * Saves the current search under a name (asked unless given); a name in use is replaced only
 * after a confirmation, and a watch on it stops. Undefined when the user backed out.
 */
export async function saveCurrentSearch(
  d: SavedSearchDeps,
  current: CurrentSearch,
  given?: string,
): Promise<{ name: string; notice: SearchNotice<SavedAction> } | undefined> {
  const { query, sort } = current;
  const now = describeSearch({ query, sort, pages: 1 });
  const typed =
    given ??
    (await d.ask.input({
      title: l10n.t('GPU Rental: Save Search'),
      prompt: l10n.t('A name for this search ({0}, {1})', now, OFFER_SORTS[sort].label.toLowerCase()),
      placeholder: l10n.t('e.g. Cheap 4090s'),
      validate: validateSearchName,
    }));
  const name = typed?.trim();
  if (name === undefined) return undefined;
  const problem = validateSearchName(name);
  if (problem) throw new Error(l10n.t('GPU Rental: cannot save the search as "{0}": {1}', name, problem));
  const existing = findSearch(list(d), name);
  if (existing) {
    const before = describeSearch({ ...existing, pages: 1 });
    const replace = await d.ask.confirm(
      l10n.t('Replace the saved search "{0}"?', existing.name),
      existing.watch
        ? l10n.t('It searches {0}; it will search {1}. Its watch stops.', before, now)
        : l10n.t('It searches {0}; it will search {1}.', before, now),
      l10n.t('Replace'),
    );
    if (!replace) return undefined;
  }
  await d.state.change('savedSearches', (all) => saveSearch(all, { name, query, sort }));
  if (existing?.watch) await forgetSeen(d, name);
  return {
    name,
    notice: {
      severity: 'info',
      text: l10n.t('GPU Rental: saved the search "{0}". Pick it from Saved Searches in the Offers view, or watch it for a price.', name),
      actions: ['Watch'],
    },
  };
}

/** Deletes a saved search (and its watch) after a confirmation; the notice, or undefined when declined. */
export async function deleteSavedSearch(d: SavedSearchDeps, search: SavedSearch): Promise<SearchNotice | undefined> {
  const sure = await d.ask.confirm(
    l10n.t('Delete the saved search "{0}"?', search.name),
    search.watch ? l10n.t('It is watched: the watch stops too.') : l10n.t('The Offers view keeps its current search.'),
    l10n.t('Delete'),
  );
  if (!sure) return undefined;
  await d.state.change('savedSearches', (all) => removeSearch(all, search.name));
  await forgetSeen(d, search.name);
  return info(l10n.t('GPU Rental: deleted the saved search "{0}".', search.name));
}

async function forgetSeen(d: SavedSearchDeps, name: string): Promise<void> {
  await d.state.change('watchSeen', (all) => {
    const rest = { ...all };
    delete rest[seenKey(name)];
    return rest;
  });
}

/** Asks for one saved search (only the watched ones with `watchedOnly`); undefined when dismissed or there is none. */
async function pickSearch(d: SavedSearchDeps, title: string, watchedOnly: boolean): Promise<SavedSearch | undefined> {
  const searches = watchedOnly ? watchedSearches(list(d)) : list(d);
  if (searches.length === 0) return undefined;
  return d.ask.pick({ title: l10n.t('GPU Rental: {0}', title), items: searches.map((s) => ({ ...savedSearchRow(s), value: s })) });
}

/** An offer in a sentence: "RTX 4090 ×2 at $0.610/h". */
function describeOffer(o: Offer): string {
  const gpus = o.num_gpus > 1 ? l10n.t('{0} ×{1}', o.gpu_name, o.num_gpus) : o.gpu_name;
  return l10n.t('{0} at {1}/h', gpus, formatDollars(o.dph_total));
}

/** Which search to watch: the one named, else a pick, else (none saved) the current search saved first. */
async function searchToWatch(d: WatchDeps, current: CurrentSearch, name: string | undefined): Promise<SavedSearch | undefined> {
  if (name !== undefined) {
    const search = findSearch(list(d), name);
    if (!search) throw new Error(l10n.t('GPU Rental: there is no saved search "{0}". Save the search first, then watch it.', name));
    return search;
  }
  if (list(d).length > 0) return pickSearch(d, l10n.t('Watch Search'), false);
  const saved = await saveCurrentSearch(d, current);
  return saved && findSearch(list(d), saved.name);
}

/** Asks for the ceiling, showing the cheapest match now (one request); undefined when dismissed. */
async function askCeiling(d: WatchDeps, search: SavedSearch): Promise<number | undefined> {
  const offers = await d.busy(
    l10n.t('reading what "{0}" finds now…', search.name),
    () => d.searchOffers(savedSearchRequest({ ...unwatched(search), sort: 'price' }, 1)),
    { cancellable: false },
  );
  const cheapest = offers[0];
  const text = await d.ask.input({
    title: l10n.t('GPU Rental: Watch "{0}"', search.name),
    prompt: cheapest
      ? l10n.t('Tell me about new offers at or under this price, in $/h. The cheapest match now: {0}.', describeOffer(cheapest))
      : l10n.t('Tell me about new offers at or under this price, in $/h. No offer matches now.'),
    placeholder: cheapest ? String(Math.floor(cheapest.dph_total * 100) / 100) : '0.60',
    value: search.watch ? decimalText(search.watch.ceilingPerHour) : undefined,
    validate: validateCeiling,
  });
  return text === undefined ? undefined : parseCeiling(text);
}

/**
 * Watches a saved search with a price ceiling: asks which search and the ceiling (unless given),
 * records the baseline and says how many offers match now. Undefined when the user backed out.
 */
export async function watchSearch(d: WatchDeps, current: CurrentSearch, name?: string, given?: number): Promise<SearchNotice | undefined> {
  const account = d.account();
  if (!account) throw new Error(l10n.t('GPU Rental: sign in with an API key first: a watch searches with your key.'));
  const search = await searchToWatch(d, current, name);
  if (!search) return undefined;
  const ceiling = given ?? (await askCeiling(d, search));
  if (ceiling === undefined) return undefined;
  const problem = checkCeilingValue(ceiling);
  if (problem) throw new Error(l10n.t('GPU Rental: cannot watch with that ceiling: {0}', problem));
  const watched: WatchedSearch = {
    ...search,
    watch: { ceilingPerHour: ceiling, baseUrl: account.baseUrl, profileId: account.profileId, since: d.now() },
  };
  await d.state.change('savedSearches', (all) => updateSearch(all, watched.name, () => watched));
  const every = intervalText(d.intervalMinutes());
  let matching: Offer[];
  try {
    matching = await d.watcher.baseline(watched);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      severity: 'warning',
      text: l10n.t(
        'GPU Rental: watching "{0}", but the first search failed ({1}). The watcher tries again every {2} and counts what matches then as already there.',
        watched.name,
        why,
        every,
      ),
    };
  }
  return { severity: 'info', text: watchingText(watched.name, ceiling, matching, every) };
}

function watchingText(name: string, ceiling: number, matching: readonly Offer[], every: string): string {
  const cheapest = matching.reduce<Offer | undefined>((best, o) => (!best || o.dph_total < best.dph_total ? o : best), undefined);
  const now = !cheapest
    ? l10n.t('No offer matches now; you will be told about new ones.')
    : matching.length === 1
      ? l10n.t('1 offer matches now ({0}); you will be told about new ones.', describeOffer(cheapest))
      : l10n.t('{0} offers match now (the cheapest {1}); you will be told about new ones.', matching.length, describeOffer(cheapest));
  return sentences(
    l10n.t('GPU Rental: watching "{0}" for offers at or under {1}/h.', name, formatDollars(ceiling)),
    now,
    l10n.t('All watched searches together send one search every {0}.', every),
  );
}

/** Stops a watch (named, or picked among the watched); the search stays saved. The notice, or undefined when the pick was dismissed. */
export async function stopWatching(d: SavedSearchDeps, name?: string): Promise<SearchNotice | undefined> {
  const search = name !== undefined ? findSearch(list(d), name) : await pickSearch(d, l10n.t('Stop Watching'), true);
  if (!search) {
    if (name !== undefined) return info(l10n.t('GPU Rental: there is no saved search "{0}".', name));
    return watchedSearches(list(d)).length === 0 ? info(l10n.t('GPU Rental: no search is watched.')) : undefined;
  }
  if (!search.watch) return info(l10n.t('GPU Rental: "{0}" is not watched.', search.name));
  await d.state.change('savedSearches', (all) => updateSearch(all, search.name, unwatched));
  await forgetSeen(d, search.name);
  return info(l10n.t('GPU Rental: stopped watching "{0}". The search is still saved.', search.name));
}

/** Check Watched Searches Now: one request per watched search; what it found, and what to say (nothing when a match was told). */
export async function checkWatchedNow(d: WatchDeps): Promise<{ searched: number; told: number; notice?: SearchNotice }> {
  if (watchedSearches(list(d)).length === 0)
    return {
      searched: 0,
      told: 0,
      notice: info(l10n.t('GPU Rental: no search is watched. Watch one with Watch Search… in the Offers view.')),
    };
  const result = await d.busy(l10n.t('checking the watched searches…'), () => d.watcher.checkNow(), { cancellable: false });
  const watched = watchedSearches(list(d)).length;
  if (result.searched < watched)
    return {
      ...result,
      notice: {
        severity: 'warning',
        text: l10n.t(
          'GPU Rental: {0} of {1} watched searches could not be searched now; the GPU Rental log says why. They are tried again every {2}.',
          watched - result.searched,
          watched,
          intervalText(d.intervalMinutes()),
        ),
      },
    };
  if (result.told > 0) return result;
  const text =
    result.searched === 1
      ? l10n.t('GPU Rental: checked 1 watched search: no new offers.')
      : l10n.t('GPU Rental: checked {0} watched searches: no new offers.', result.searched);
  return { ...result, notice: { severity: 'info', text } };
}
