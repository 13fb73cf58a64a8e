import { DEFAULT_RENT_DISK_GB } from '../api/limits';
import type { SearchOffersRequest } from '../api/offers';
import { DEFAULT_OFFER_FILTERS } from './present';
import { parseOfferQuery } from './query/parse';
import { printOfferQuery } from './query/print';
import type { FieldFilter, OfferOrder, OfferQuery } from '../api/offerQuery';
import { l10n } from '../l10n';

export { DEFAULT_RENT_DISK_GB };

/** The sort orders the view offers; performance per dollar first, as the default. */
export const OFFER_SORTS = {
  value: { label: l10n.t('Performance per dollar'), order: [['dlperf_per_dphtotal', 'desc']] as OfferOrder },
  price: { label: l10n.t('Price, lowest first'), order: [['dph_total', 'asc']] as OfferOrder },
  reliability: { label: l10n.t('Reliability, highest first'), order: [['reliability2', 'desc']] as OfferOrder },
  gpus: { label: l10n.t('GPU count, most first'), order: [['num_gpus', 'desc']] as OfferOrder },
} as const;

export type OfferSort = keyof typeof OFFER_SORTS;

export const OFFER_PAGE_SIZE = 50;

/** What the user chose, saved across reloads: query text in the CLI's language, and a sort. */
export interface OfferSearchState {
  query: string;
  sort: OfferSort;
  /** How many pages are shown ("load more" adds one). */
  pages: number;
}

export const DEFAULT_SEARCH: OfferSearchState = Object.freeze({ query: '', sort: 'value', pages: 1 });

export function isOfferSort(value: unknown): value is OfferSort {
  return typeof value === 'string' && Object.hasOwn(OFFER_SORTS, value);
}

/** Reads saved state defensively: anything unreadable falls back to the default. */
export function restoreSearch(saved: unknown): OfferSearchState {
  if (!saved || typeof saved !== 'object') return { ...DEFAULT_SEARCH };
  const s = saved as Partial<OfferSearchState>;
  const query = typeof s.query === 'string' ? s.query : '';
  try {
    parseQuery(query);
  } catch {
    return { ...DEFAULT_SEARCH };
  }
  return { query, sort: isOfferSort(s.sort) ? s.sort : 'value', pages: 1 };
}

/** Parses the query on top of the CLI's defaults (verified, rentable, not rented, not external). */
export function parseQuery(text: string): OfferQuery {
  return parseOfferQuery(text, { defaults: DEFAULT_OFFER_FILTERS });
}

/** The disk a search prices in: its `allocated_storage=N`, else DEFAULT_RENT_DISK_GB. */
export function searchDiskGb(queryText: string): number {
  try {
    return parseQuery(queryText).allocatedStorage ?? DEFAULT_RENT_DISK_GB;
  } catch {
    return DEFAULT_RENT_DISK_GB;
  }
}

/**
 * The disk a rent of `offer` starts with: the one its listed price includes, unless the machine
 * has less free disk than that (then all of it, whole GB, at least 1).
 */
export function rentDiskFor(offer: { disk_space?: number | null }, searchedGb = DEFAULT_RENT_DISK_GB): number {
  const wanted = Math.max(1, Math.ceil(searchedGb));
  const free = offer.disk_space;
  return typeof free === 'number' && Number.isFinite(free) && free >= 1 ? Math.min(wanted, Math.floor(free)) : wanted;
}

/** How the list says which disk its prices include, e.g. "prices include 10 GB disk". */
export function describeDiskPricing(queryText: string): string {
  return l10n.t('prices include {0} disk', formatGb(searchDiskGb(queryText)));
}

function formatGb(gb: number): string {
  return `${Number.isInteger(gb) ? gb : gb.toFixed(1)} GB`;
}

/**
 * The search request for a state; a sort written in the query (`order=...`) wins over the picker's,
 * `limit=N` over the page count. `allocated_storage` is always sent: the user's
 * `allocated_storage=N`, else the disk a rent asks for by default (DEFAULT_RENT_DISK_GB), so the
 * service prices the same disk into `dph_total` that the confirmation will quote.
 */
export function searchRequest(state: OfferSearchState, pageSize = OFFER_PAGE_SIZE): SearchOffersRequest {
  const { limit, allocatedStorage, ...query } = parseQuery(state.query);
  const order = /(^|\s)(order|-o)\b/.test(state.query) && query.order.length > 0 ? query.order : OFFER_SORTS[state.sort].order;
  return {
    query: { ...query, order },
    limit: limit ?? pageSize * Math.max(1, state.pages),
    allocatedStorage: allocatedStorage ?? DEFAULT_RENT_DISK_GB,
  };
}

/** Whether "Load more" can add offers: the last answer filled its limit, and no `limit=` in the query fixes the count. */
export function mayLoadMore(state: OfferSearchState, shown: number, pageSize = OFFER_PAGE_SIZE): boolean {
  const request = searchRequest(state, pageSize);
  return parseQuery(state.query).limit === undefined && shown >= (request.limit ?? pageSize);
}

/** Sets, replaces or removes one field's filter in the query text, keeping the rest. */
export function withFilter(text: string, field: string, filter: FieldFilter | undefined): string {
  const query = parseQuery(text);
  const filters = { ...query.filters };
  // Removing a default field (verified, rentable...) means "any": the printer writes field=any.
  if (filter) filters[field] = filter;
  else delete filters[field];
  return printOfferQuery({ ...query, filters }, { defaults: DEFAULT_OFFER_FILTERS });
}

/** Each filter the user added (not the defaults), as query text without it: candidates to relax. */
export function relaxations(text: string): Array<{ field: string; without: string; description: string }> {
  const query = parseQuery(text);
  const out: Array<{ field: string; without: string; description: string }> = [];
  for (const field of Object.keys(query.filters)) {
    const isDefault =
      Object.hasOwn(DEFAULT_OFFER_FILTERS, field) && JSON.stringify(DEFAULT_OFFER_FILTERS[field]) === JSON.stringify(query.filters[field]);
    if (isDefault) continue;
    const without = withFilter(text, field, undefined);
    const shown = printOfferQuery({ filters: { [field]: query.filters[field]! }, order: [], type: query.type }, { defaults: {} });
    out.push({ field, without, description: shown.replace(/\s*type=\S+/, '').trim() || field });
  }
  return out;
}

/** The query as the view's header shows it: user filters only, or a note that only defaults apply. */
export function describeSearch(state: OfferSearchState): string {
  const text = printOfferQuery(parseQuery(state.query), { defaults: DEFAULT_OFFER_FILTERS });
  return text || l10n.t('rentable, verified machines');
}
