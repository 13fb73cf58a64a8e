import type { Offer, SearchOffersRequest } from '../api/offers';
import { unreadableOf } from '../api/unreadable';
import { COMMANDS } from '../ids';
import { spokenRate } from '../instances/present';
import { l10n } from '../l10n';
import {
  OFFER_SORTS,
  describeDiskPricing,
  describeSearch,
  mayLoadMore,
  relaxations,
  searchDiskGb,
  searchRequest,
  type OfferSearchState,
} from './search';

/*
 * What the Offers view shows for a search: the filters header, the offers, "load more", and when
 * nothing matches, which filter to relax (each tried first). The ui view (src/ui/views/offersView.ts)
 * turns these rows into tree items.
 */

/** At most this many filters are tried one by one when a search finds nothing. */
export const MAX_RELAX_PROBES = 6;

/** A row around the offers: the header, "load more", "no results" and "relax". */
export interface OffersActionRow {
  readonly kind: 'filters' | 'more' | 'empty' | 'relax';
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly icon: string;
  readonly tooltip?: string;
  readonly command?: { title: string; command: string; arguments?: unknown[] };
}

/** The view's rows for a search: action rows and offers (bid: found by an interruptible search), in order. */
export type OffersRow = OffersActionRow | { kind: 'offer'; offer: Offer; bid: boolean };

/** The header row: the search in words, and a click that changes it. */
export function filtersRow(state: OfferSearchState): OffersActionRow {
  return {
    kind: 'filters',
    id: 'offers-filters',
    label: l10n.t('Filters'),
    description: `${describeSearch(state)} · ${OFFER_SORTS[state.sort].label.toLowerCase()} · ${describeDiskPricing(state.query)}`,
    icon: 'filter',
    command: { title: l10n.t('Search Offers'), command: COMMANDS.searchOffers },
    tooltip: l10n.t(
      'Click to change the filters. The query uses the same language as the marketplace CLI.\n\nEach price includes {0} GB of disk, the size a rent starts with; add allocated_storage=N to the query to price another size.',
      searchDiskGb(state.query),
    ),
  };
}

/**
 * Searches and lays out the rows after the header: the offers, "load more" when a full page came
 * (counting the offers that could not be read), and the relax rows when nothing matched. The
 * unreadable row (between the offers and "load more") is the ui's: `offers` carries its count.
 */
export async function offersRows(
  search: (request: SearchOffersRequest) => Promise<Offer[]>,
  state: OfferSearchState,
): Promise<{ offers: Offer[]; after: OffersActionRow[]; bid: boolean }> {
  const request = searchRequest(state);
  const offers = await search(request);
  const bid = request.query.type === 'bid';
  const unreadable = unreadableOf(offers);
  const after: OffersActionRow[] = [];
  if (mayLoadMore(state, offers.length + (unreadable?.dropped ?? 0))) {
    after.push({
      kind: 'more',
      id: 'offers-more',
      label: l10n.t('Load more…'),
      description: l10n.t('showing {0}', offers.length),
      icon: 'fold-down',
      command: { title: l10n.t('Load More'), command: COMMANDS.loadMoreOffers },
    });
  }
  if (offers.length === 0 && !unreadable) after.push(...(await noResultsRows(search, state)));
  return { offers, after, bid };
}

/** Tries the search without each filter in turn, and offers the ones that find something; else "clear all". */
export async function noResultsRows(
  search: (request: SearchOffersRequest) => Promise<Offer[]>,
  state: OfferSearchState,
): Promise<OffersActionRow[]> {
  const rows: OffersActionRow[] = [
    {
      kind: 'empty',
      id: 'offers-empty',
      label: l10n.t('No offers match these filters'),
      description: l10n.t('relax one below'),
      icon: 'info',
    },
  ];
  for (const candidate of relaxations(state.query).slice(0, MAX_RELAX_PROBES)) {
    const found = await search(searchRequest({ ...state, query: candidate.without }, 1)).catch(() => []);
    if (found.length === 0) continue;
    rows.push({
      kind: 'relax',
      id: `offers-relax-${candidate.field}`,
      label: l10n.t('Remove {0}', candidate.description),
      description: l10n.t('finds offers'),
      icon: 'debug-restart',
      command: { title: l10n.t('Relax'), command: COMMANDS.searchOffers, arguments: [candidate.without] },
    });
  }
  if (rows.length === 1) {
    rows.push({
      kind: 'relax',
      id: 'offers-relax-all',
      label: l10n.t('Clear all filters'),
      description: '',
      icon: 'clear-all',
      command: { title: l10n.t('Clear'), command: COMMANDS.clearOfferFilters },
    });
  }
  return rows;
}

/** An offer read aloud, without the "·" separators and abbreviations: "RTX 4090 times 2 offer, 82 cents per hour, 24 GB of VRAM each, in Texas, US". */
export function offerSpoken(offer: Offer, bid: boolean): string {
  const gpus = offer.num_gpus > 1 ? l10n.t('{0} times {1}', offer.gpu_name, offer.num_gpus) : offer.gpu_name;
  const rate = spokenRate(offer.dph_total);
  const clauses = [bid ? l10n.t('{0} offer, bids from {1}', gpus, rate) : l10n.t('{0} offer, {1}', gpus, rate)];
  if (offer.gpu_ram) {
    const gb = Math.round(offer.gpu_ram / 1024);
    clauses.push(offer.num_gpus > 1 ? l10n.t('{0} GB of VRAM each', gb) : l10n.t('{0} GB of VRAM', gb));
  }
  if (offer.geolocation) clauses.push(l10n.t('in {0}', offer.geolocation));
  return clauses.join(', ');
}
