/**
 * The messages between the Offer Explorer's webview and the extension. The extension trusts
 * nothing the webview sends: every message passes `readWebviewMessage`, which returns undefined
 * for anything that is not exactly one of these shapes.
 */
import type { Offer } from '../../api/offers';
import type { OfferType } from '../../api/offerQuery';
import { readColumnLayout, type ColumnLayout } from './columns';
import type { OfferColumns } from './transfer';

/** The explorer asks for this many offers a page: far more than the view's page, as a table and a plot compare many. */
export const EXPLORER_PAGE_SIZE = 1000;
/** "Load more" stops here: ten pages, the most the table is built and measured for. */
export const EXPLORER_MAX_PAGES = 10;
/** A query longer than this is not a query anyone typed. */
export const MAX_QUERY_LENGTH = 4000;

/** What the webview keeps with getState/setState (besides what the extension sends again on `ready`). */
export interface ExplorerViewState {
  sort?: unknown;
  selected?: number;
  scrollTop?: number;
  draft?: string;
  /** Whether offers are grouped by cluster. */
  grouped?: boolean;
  /** The cluster whose row is selected (while grouping), instead of an offer. */
  selectedCluster?: number;
}

/** The extension's messages to the webview. */
export type ExtensionMessage =
  | { type: 'layout'; layout: ColumnLayout }
  | { type: 'loading'; query: string }
  | {
      type: 'offers';
      query: string;
      offerType: OfferType;
      /** Only what the page shows and works on, column by column (transfer.ts); the full offers stay in the extension. */
      offers: OfferColumns;
      /** Date.now() when the extension began to encode and post them: the page measures the whole transfer against it. */
      sentAt: number;
      /** Offers the answer held that could not be read. */
      unreadable: number;
      canLoadMore: boolean;
      /** Whether the query fixes its own `limit=`, so Load more does not apply. */
      ownLimit: boolean;
    }
  | { type: 'error'; query: string; message: string }
  /** One offer in full, as the page asked for its details. */
  | { type: 'offerDetails'; offer: Offer }
  /** Price statistics per GPU model (src/core/offers/priceContext.ts's GpuPriceStats), sent once per search. */
  | { type: 'priceStats'; stats: Record<string, unknown> }
  | { type: 'notice'; text: string };

/**
 * What the webview measured, for the benchmark: a first render, a sort, a narrowing, turning
 * grouping by cluster on or off, and the transfer (from the extension starting to send offers to
 * their first render, layout included).
 */
export type TimingName = 'render' | 'sort' | 'filter' | 'group' | 'transfer';
const TIMING_NAMES: ReadonlySet<unknown> = new Set<TimingName>(['render', 'sort', 'filter', 'group', 'transfer']);

/** At most this many offers in one Rent Cluster… message: every offer the explorer can hold. */
export const MAX_CLUSTER_OFFERS = EXPLORER_PAGE_SIZE * EXPLORER_MAX_PAGES;

/** The webview's messages to the extension. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'setQuery'; query: string }
  | { type: 'loadMore' }
  | { type: 'rent'; offerId: number }
  | { type: 'copyId'; offerId: number }
  /** The page shows an offer's details: it asks for the whole offer. */
  | { type: 'offerDetails'; offerId: number }
  | { type: 'machineOffers'; machineId: number }
  /** Show the offers of one cluster (an offer's details). */
  | { type: 'clusterOffers'; clusterId: number }
  /** Rent Cluster… from a group row: the cluster and its offers as the page listed them. */
  | { type: 'rentCluster'; clusterId: number; offerIds: number[] }
  | { type: 'layout'; layout: ColumnLayout }
  | { type: 'timing'; name: TimingName; ms: number; rows: number };

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** The message if it is one the webview may send, else undefined. */
export function readWebviewMessage(raw: unknown): WebviewMessage | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const m = raw as Record<string, unknown>;
  switch (m['type']) {
    case 'ready':
      return { type: 'ready' };
    case 'loadMore':
      return { type: 'loadMore' };
    case 'setQuery': {
      const query = m['query'];
      return typeof query === 'string' && query.length <= MAX_QUERY_LENGTH ? { type: 'setQuery', query } : undefined;
    }
    case 'rent':
    case 'copyId':
    case 'offerDetails': {
      const offerId = m['offerId'];
      return isId(offerId) ? { type: m['type'], offerId } : undefined;
    }
    case 'machineOffers': {
      const machineId = m['machineId'];
      return isId(machineId) ? { type: 'machineOffers', machineId } : undefined;
    }
    case 'clusterOffers': {
      const clusterId = m['clusterId'];
      return isId(clusterId) ? { type: 'clusterOffers', clusterId } : undefined;
    }
    case 'rentCluster': {
      const { clusterId, offerIds } = m as { clusterId?: unknown; offerIds?: unknown };
      if (!isId(clusterId) || !Array.isArray(offerIds) || offerIds.length === 0 || offerIds.length > MAX_CLUSTER_OFFERS) return undefined;
      if (!offerIds.every(isId)) return undefined;
      return { type: 'rentCluster', clusterId, offerIds: [...new Set(offerIds)] };
    }
    case 'layout': {
      const layout = m['layout'];
      return layout && typeof layout === 'object' ? { type: 'layout', layout: readColumnLayout(layout) } : undefined;
    }
    case 'timing': {
      const { name, ms, rows } = m as { name?: unknown; ms?: unknown; rows?: unknown };
      const okName = TIMING_NAMES.has(name);
      const okMs = typeof ms === 'number' && Number.isFinite(ms) && ms >= 0;
      const okRows = typeof rows === 'number' && Number.isSafeInteger(rows) && rows >= 0;
      return okName && okMs && okRows ? { type: 'timing', name: name as TimingName, ms, rows } : undefined;
    }
    default:
      return undefined;
  }
}

/** The page count after "Load more", or undefined when no more can be asked for. */
export function nextPages(pages: number): number | undefined {
  return pages < EXPLORER_MAX_PAGES ? pages + 1 : undefined;
}
