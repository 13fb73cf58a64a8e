/**
 * Sorting and narrowing the explorer's offers in the webview: instant, on what is loaded. The
 * order is the explorer's own (it never changes the Offers view's sort); narrowing by the query's
 * filters shows a changed filter at once while the service answers the new search.
 */
import type { Offer } from '../../api/offers';
import { countryCode } from '../present';
import type { FieldFilter, FilterScalar, OfferFilters } from '../../api/offerQuery';
import { COLUMNS, columnById, type ColumnId, type RowContext } from './columns';
import { l10n } from '../../l10n';

export type SortDirection = 'asc' | 'desc';
export interface SortKey {
  readonly column: ColumnId;
  readonly direction: SortDirection;
}

/** At most this many sort keys: a primary and a secondary (shift+click). */
export const MAX_SORT_KEYS = 2;

/**
 * Sort keys after a header was chosen: the same primary column flips its direction, another
 * column becomes the primary (numbers start descending, text ascending); with `add` (shift) the
 * column becomes or flips the secondary key and the primary stays.
 */
export function nextSort(keys: readonly SortKey[], column: ColumnId, add = false): SortKey[] {
  const start: SortDirection = columnById(column).kind === 'number' ? 'desc' : 'asc';
  const flip = (d: SortDirection): SortDirection => (d === 'asc' ? 'desc' : 'asc');
  const existing = keys.find((k) => k.column === column);
  if (add && keys.length > 0 && keys[0]!.column !== column) {
    const secondary: SortKey = { column, direction: existing ? flip(existing.direction) : start };
    return [keys[0]!, secondary];
  }
  if (keys[0]?.column === column) return [{ column, direction: flip(keys[0].direction) }, ...keys.slice(1)];
  return [{ column, direction: start }];
}

/** Reads sort keys from anywhere (webview state, a message); unknown columns dropped. */
export function readSortKeys(raw: unknown): SortKey[] {
  if (!Array.isArray(raw)) return [];
  const out: SortKey[] = [];
  for (const k of raw) {
    if (!k || typeof k !== 'object') continue;
    const { column, direction } = k as { column?: unknown; direction?: unknown };
    if (!COLUMNS.some((c) => c.id === column) || (direction !== 'asc' && direction !== 'desc')) continue;
    if (out.some((o) => o.column === column)) continue;
    out.push({ column: column as ColumnId, direction });
  }
  return out.slice(0, MAX_SORT_KEYS);
}

type Keys = Float64Array | Array<string | undefined>;

/**
 * The offers of one search, with each column's sort values computed once (the first sort by a
 * column pays for it; later sorts by it only compare).
 */
export class OfferTable {
  private readonly keyCache = new Map<ColumnId, Keys>();

  constructor(
    readonly offers: readonly Offer[],
    readonly ctx: RowContext,
  ) {}

  /** Forget computed values (after the price context arrived, for one). */
  invalidate(column?: ColumnId): void {
    if (column) this.keyCache.delete(column);
    else this.keyCache.clear();
  }

  private keys(column: ColumnId): Keys {
    let keys = this.keyCache.get(column);
    if (keys) return keys;
    const spec = columnById(column);
    if (spec.kind === 'number') {
      const nums = new Float64Array(this.offers.length);
      this.offers.forEach((o, i) => {
        const v = spec.value(o, this.ctx);
        nums[i] = typeof v === 'number' && Number.isFinite(v) ? v : NaN;
      });
      keys = nums;
    } else {
      keys = this.offers.map((o) => {
        const v = spec.value(o, this.ctx);
        return v === undefined ? undefined : String(v).toLowerCase();
      });
    }
    this.keyCache.set(column, keys);
    return keys;
  }

  /**
   * Indices of `rows` (all offers when not given) in the order of `sort`; unknown values last in
   * either direction, ties kept in the service's order.
   */
  sorted(sort: readonly SortKey[], rows?: readonly number[]): number[] {
    const order = rows ? [...rows] : this.offers.map((_, i) => i);
    if (sort.length === 0) return order;
    const comparers = sort.map((k) => {
      const keys = this.keys(k.column);
      const sign = k.direction === 'asc' ? 1 : -1;
      if (keys instanceof Float64Array) {
        return (a: number, b: number): number => {
          const x = keys[a]!;
          const y = keys[b]!;
          if (x !== x) return y !== y ? 0 : 1;
          if (y !== y) return -1;
          return x === y ? 0 : x < y ? -sign : sign;
        };
      }
      return (a: number, b: number): number => {
        const x = keys[a];
        const y = keys[b];
        if (x === undefined) return y === undefined ? 0 : 1;
        if (y === undefined) return -1;
        return x === y ? 0 : x < y ? -sign : sign;
      };
    });
    order.sort((a, b) => {
      for (const cmp of comparers) {
        const c = cmp(a, b);
        if (c !== 0) return c;
      }
      return a - b;
    });
    return order;
  }

  /** Indices of the offers that the filters do not rule out (see `offerMatches`). */
  matching(filters: OfferFilters): number[] {
    const test = compileFilters(filters);
    const out: number[] = [];
    this.offers.forEach((o, i) => {
      if (test(o)) out.push(i);
    });
    return out;
  }
}

/**
 * Fields whose null the service sends as a value, not as "unknown": `cluster_id` is null for a
 * machine in no cluster, so `cluster_id!=null` rules such an offer out here as the service does.
 */
const NULL_IS_A_VALUE: ReadonlySet<string> = new Set(['cluster_id']);

/**
 * A predicate for the query's filters, judged on the offer's own fields: a field the offer does
 * not carry (the client keeps only what it shows) rules nothing out, as the service is the judge
 * of it. Country filters compare the two-letter code of `geolocation`; text compares ignore case.
 */
export function compileFilters(filters: OfferFilters): (offer: Offer) => boolean {
  const tests: Array<(offer: Offer) => boolean> = [];
  for (const [field, filter] of Object.entries(filters)) {
    const read =
      field === 'geolocation'
        ? (o: Offer) => countryCode(o.geolocation)
        : field === 'reliability'
          ? (o: Offer) => o.reliability2
          : (o: Offer) => (o as unknown as Record<string, unknown>)[field];
    const nullIsAValue = NULL_IS_A_VALUE.has(field);
    tests.push((o) => fieldMatches(read(o), filter, nullIsAValue));
  }
  return (offer) => tests.every((t) => t(offer));
}

/**
 * Whether one value passes one field's filter; undefined values pass (unknown here), and so does
 * null unless `nullIsAValue` (then null equals only null and is no number to compare).
 */
export function fieldMatches(value: unknown, filter: FieldFilter, nullIsAValue = false): boolean {
  if (value === undefined || (value === null && !nullIsAValue)) return true;
  for (const [op, want] of Object.entries(filter) as Array<[keyof FieldFilter, FilterScalar | FilterScalar[] | undefined]>) {
    if (want === undefined) continue;
    if (op === 'in' || op === 'notin') {
      const list = Array.isArray(want) ? want : [want];
      const found = list.some((w) => same(value, w));
      if (found !== (op === 'in')) return false;
      continue;
    }
    if (Array.isArray(want)) continue;
    if (op === 'eq' && !same(value, want)) return false;
    if (op === 'neq' && same(value, want)) return false;
    if (op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte') {
      if (value === null) return false;
      const x = typeof value === 'number' ? value : Number(value);
      const y = typeof want === 'number' ? want : Number(want);
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      if (op === 'gt' && !(x > y)) return false;
      if (op === 'gte' && !(x >= y)) return false;
      if (op === 'lt' && !(x < y)) return false;
      if (op === 'lte' && !(x <= y)) return false;
    }
  }
  return true;
}

function same(value: unknown, want: FilterScalar): boolean {
  if (want === null) return value === null;
  if (typeof value === 'string' && typeof want === 'string') return value.toLowerCase() === want.toLowerCase();
  if (typeof value === 'number' && typeof want === 'string') return value === Number(want);
  if (typeof value === 'string' && typeof want === 'number') return Number(value) === want;
  return value === want;
}

/** "sorted by DLPerf per dollar, descending, 2,431 offers": what the live region says after a sort or filter. */
export function sortAnnouncement(sort: readonly SortKey[], count: number): string {
  const offers = `${count.toLocaleString('en-US')} ${count === 1 ? 'offer' : 'offers'}`;
  if (sort.length === 0) return l10n.t("in the service's order, {0}", offers);
  const keys = sort.map((k) => `${columnById(k.column).name}, ${k.direction === 'asc' ? 'ascending' : 'descending'}`);
  return l10n.t('sorted by {0}, {1}', keys.join(', then '), offers);
}
