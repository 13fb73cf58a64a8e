import type { SearchOffersRequest } from '../api/offers';
import { OFFER_PAGE_SIZE, parseQuery, searchRequest, withFilter, type OfferSort } from './search';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { boxProblem, boxValue, checkInBox, type NumberBox } from '../numbers';

/** A search the user named and saved; the Offers view, the watcher and Rent Best Match read it. */
export interface SavedSearch {
  name: string;
  /** Query text in the CLI's language, as the Offers view has it. */
  query: string;
  sort: OfferSort;
  /** Set while watched: notify when a new offer matches at or under `ceilingPerHour` (dph_total, $/h). */
  watch?: {
    ceilingPerHour: number;
    /** The account the watch searches with (normalized base URL and profile id), fixed when it was watched. */
    baseUrl: string;
    profileId: string;
    /** Epoch ms the watch began; a new `since` is a new watch with its own baseline. */
    since: number;
  };
}

/** Long enough for "RTX 4090 under $0.50 in Europe", short enough for a quick pick and a notification. */
export const MAX_SEARCH_NAME_LENGTH = 60;
/** Enough for every search a person keeps; the list is in global state, shared by all windows. */
export const MAX_SAVED_SEARCHES = 50;
/** A ceiling above this is a typing mistake, not a price anyone watches for. */
export const MAX_CEILING_PER_HOUR = 1000;

/** Why `name` cannot name a saved search, or undefined when it can (it is trimmed first). */
export function validateSearchName(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed.length === 0) return l10n.t('Give the search a name.');
  if (trimmed.length > MAX_SEARCH_NAME_LENGTH) return l10n.t('Use at most {0} characters.', MAX_SEARCH_NAME_LENGTH);
  // Names reach notifications and quick picks; control characters would garble them.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return l10n.t('Use letters, digits, spaces and punctuation only.');
  return undefined;
}

/** The watch's price ceiling box: dollars per hour above 0 and at most MAX_CEILING_PER_HOUR, a leading `$` taken. */
export function ceilingBox(): NumberBox {
  return {
    min: 0,
    minExclusive: true,
    max: MAX_CEILING_PER_HOUR,
    dollars: true,
    hint: l10n.t('Enter a price in dollars per hour above $0 and at most {0}, such as 0.60.', formatDollars(MAX_CEILING_PER_HOUR)),
    tooLow: l10n.t('Enter a price above $0/h.'),
    tooHigh: l10n.t('Enter at most {0}/h.', formatDollars(MAX_CEILING_PER_HOUR)),
  };
}

/** Why `text` is not a price ceiling in $/h, or undefined when it is one (see src/core/numbers.ts). */
export function validateCeiling(text: string): string | undefined {
  return boxProblem(text, ceilingBox());
}

/** The ceiling `text` gives, read as validateCeiling reads it; a RangeError when it refuses it. */
export function parseCeiling(text: string): number {
  return boxValue(text, ceilingBox());
}

/** Why a ceiling passed as a number (a command's argument) cannot be watched with, or undefined when it can. */
export function checkCeilingValue(value: number): string | undefined {
  return checkInBox(value, ceilingBox()).problem;
}

/** Names compare without case and surrounding space: "A100 cheap" and "a100 cheap " are one search. */
export function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** The saved search called `name`, if any. */
export function findSearch(list: readonly SavedSearch[], name: string): SavedSearch | undefined {
  return list.find((s) => sameName(s.name, name));
}

/**
 * The list with `search` saved: a search of the same name is replaced in place (a replaced
 * search keeps no watch unless `search` has one), a new one is added at the end. Throws when the
 * list is full or the query does not parse, so nothing unusable is ever saved.
 */
export function saveSearch(list: readonly SavedSearch[], search: SavedSearch): SavedSearch[] {
  const problem = validateSearchName(search.name);
  if (problem) throw new Error(problem);
  parseQuery(search.query);
  const saved: SavedSearch = { ...search, name: search.name.trim() };
  const index = list.findIndex((s) => sameName(s.name, saved.name));
  if (index >= 0) return list.map((s, i) => (i === index ? saved : s));
  if (list.length >= MAX_SAVED_SEARCHES)
    throw new Error(l10n.t('At most {0} searches can be saved; delete one first.', MAX_SAVED_SEARCHES));
  return [...list, saved];
}

/** The list without the search called `name`. */
export function removeSearch(list: readonly SavedSearch[], name: string): SavedSearch[] {
  return list.filter((s) => !sameName(s.name, name));
}

/** The list with the search called `name` changed by `edit` (nothing else changes; a missing name changes nothing). */
export function updateSearch(list: readonly SavedSearch[], name: string, edit: (search: SavedSearch) => SavedSearch): SavedSearch[] {
  return list.map((s) => (sameName(s.name, name) ? edit(s) : s));
}

/** The search with its watch removed. */
export function unwatched(search: SavedSearch): SavedSearch {
  const { watch: _watch, ...rest } = search;
  return rest;
}

/** The watched searches of a list. */
export function watchedSearches(list: readonly SavedSearch[]): Array<SavedSearch & { watch: NonNullable<SavedSearch['watch']> }> {
  return list.filter((s): s is SavedSearch & { watch: NonNullable<SavedSearch['watch']> } => s.watch !== undefined);
}

/**
 * The search request a saved search sends: its query and sort, one page (or `pageSize` offers),
 * and while watched its ceiling as `dph_total lte`, merged with any price filter the query has.
 * Throws when the query does not parse.
 */
export function savedSearchRequest(search: SavedSearch, pageSize = OFFER_PAGE_SIZE): SearchOffersRequest {
  let query = search.query;
  if (search.watch) {
    const existing = parseQuery(query).filters['dph_total'] ?? {};
    // The query's own price filter is kept: lte takes the lower of the two ceilings.
    const own = typeof existing.lte === 'number' ? existing.lte : Infinity;
    query = withFilter(query, 'dph_total', { ...existing, lte: Math.min(own, search.watch.ceilingPerHour) });
  }
  return searchRequest({ query, sort: search.sort, pages: 1 }, pageSize);
}

/** What the watcher keeps per watched search: the watch it belongs to (its `since`) and the offer ids already seen, newest last. */
export interface SeenOffers {
  since: number;
  ids: number[];
}

/** Ids kept per watched search: more than a page of matches, and a bounded share of global state. */
export const MAX_SEEN_IDS = 500;

/** The key a search's seen ids are kept under: names compare without case (see sameName). */
export function seenKey(name: string): string {
  return name.trim().toLowerCase();
}

/** `seen` with `ids` added after the ones it has (each once), the oldest dropped past MAX_SEEN_IDS. */
export function withSeen(seen: SeenOffers, ids: readonly number[]): SeenOffers {
  const known = new Set(seen.ids);
  const added = ids.filter((id) => !known.has(id) && (known.add(id), true));
  const all = [...seen.ids, ...added];
  return { since: seen.since, ids: all.slice(Math.max(0, all.length - MAX_SEEN_IDS)) };
}
