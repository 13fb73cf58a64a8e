/** The offer-search vocabulary in the service's wire form: the API client sends it, the query language and the views build it. */

export const FILTER_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export type FilterScalar = string | number | boolean | null;
/** `in` and `notin` take a list; every other operator takes a scalar. */
export type FieldFilter = Partial<Record<FilterOp, FilterScalar | FilterScalar[]>>;
/** Wire form: `{ "<field>": { "<op>": value, ... }, ... }`, field names and units as the API has them. */
export type OfferFilters = Record<string, FieldFilter>;

/** `on-demand` is the default; `bid` is interruptible (spot) pricing; `reserved` is prepaid. */
export const OFFER_TYPES = ['on-demand', 'bid', 'reserved'] as const;
export type OfferType = (typeof OFFER_TYPES)[number];

export type SortDirection = 'asc' | 'desc';
export type OfferOrder = Array<[field: string, direction: SortDirection]>;

/** A parsed search: what the user asked for, before `limit` and paging are added. */
export interface OfferQuery {
  filters: OfferFilters;
  order: OfferOrder;
  type: OfferType;
  /** `limit=N`: at most this many offers; becomes the request's `limit`. */
  limit?: number;
  /** `allocated_storage=N`: GB of disk to price in; the query object's top-level `allocated_storage`. */
  allocatedStorage?: number;
}

/** Offers carry the physical cluster their machine belongs to (null when none); machines of one cluster share a LAN. */
export const CLUSTER_FIELD = 'cluster_id';

/**
 * The filter on `cluster_id`: offers in any cluster (`cluster_id!=None`, no argument), in one
 * cluster (`cluster_id=ID`) or in one of several (`cluster_id in [..]`). Ids travel as JSON
 * numbers, as every numeric filter of the language does (the service reads the CLI's "4812" and
 * 4812 alike); "none" is null.
 */
export function clusterFilter(ids?: number | readonly number[]): FieldFilter {
  if (ids === undefined) return { neq: null };
  return typeof ids === 'number' ? { eq: ids } : { in: [...ids] };
}
