/**
 * Query evaluation: `{"<field>": {"<op>": value}}` filters, `[[field, dir]]` order and limit, as
 * the search endpoints take them. The same functions filter instances and templates.
 */
import type { FilterOp } from '../../src/core/api/offerQuery';
import type { Offer } from './catalogue';
import type { PricingType } from './pricing';

export const OPS: readonly FilterOp[] = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin'];

export interface Condition {
  field: string;
  op: FilterOp;
  value: unknown;
}

export type Order = Array<[string, 'asc' | 'desc']>;

export class QueryError extends Error {}

type Row = Record<string, unknown>;

/** Keys of a search body that are settings, not filters. */
const SEARCH_SETTINGS = new Set([
  'order',
  'type',
  'limit',
  'allocated_storage',
  'disable_bundling',
  'target_reliability',
  'extra_ids',
  'gpu_option',
  'show_incompatible',
  'sort_option',
  'template_id',
  'select_cols',
  'api_key',
  'client_id',
  'q',
]);

/** Filter fields the service translates instead of reading a column. */
const VIRTUAL_FIELDS = new Set(['geolocation', 'verified', 'datacenter', 'driver_version']);

/** Turns strings that look like numbers, booleans or null into those, as the service does. */
export function coerce(value: unknown, kind: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => coerce(v, kind));
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === 'None' || text === 'null') return null;
  if (kind === 'boolean') {
    if (/^(true|1)$/i.test(text)) return true;
    if (/^(false|0)$/i.test(text)) return false;
  }
  if (kind === 'number' && text !== '' && Number.isFinite(Number(text))) return Number(text);
  return value;
}

/** Reads `{field: {op: value}}` into conditions; values are coerced using `kinds` (field -> typeof). */
export function parseFilters(source: Row, kinds: Record<string, string>, skip: ReadonlySet<string> = new Set()): Condition[] {
  const out: Condition[] = [];
  for (const [field, spec] of Object.entries(source)) {
    if (skip.has(field)) continue;
    const ops: Row = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Row) : { eq: spec };
    for (const [op, raw] of Object.entries(ops)) {
      if (!(OPS as readonly string[]).includes(op)) throw new QueryError(`Unknown operator '${op}' for field '${field}'.`);
      const kind = field === 'verified' || field === 'datacenter' ? 'boolean' : kinds[field];
      let value = coerce(raw, kind);
      if ((op === 'in' || op === 'notin') && !Array.isArray(value)) value = [value];
      out.push({ field, op: op as FilterOp, value });
    }
  }
  return out;
}

function equal(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b;
  return a === b || (a == null && b == null);
}

function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return undefined;
}

export function test(actual: unknown, op: FilterOp, expected: unknown): boolean {
  switch (op) {
    case 'eq':
      return equal(actual, expected);
    case 'neq':
      return !equal(actual, expected);
    case 'in':
      return (expected as unknown[]).some((v) => equal(actual, v));
    case 'notin':
      return !(expected as unknown[]).some((v) => equal(actual, v));
    default: {
      const c = compare(actual, expected);
      if (c === undefined) return false;
      return op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : c <= 0;
    }
  }
}

/** The country code at the end of "Region, CC". */
export function countryOf(geolocation: unknown): string | null {
  if (typeof geolocation !== 'string') return null;
  const m = /,\s*([A-Za-z]{2})\s*$/.exec(geolocation);
  return m ? m[1]!.toUpperCase() : null;
}

/** One offer against one condition, including the fields the service translates. */
export function offerMatches(offer: Offer, c: Condition): boolean {
  const row = offer as unknown as Row;
  switch (c.field) {
    case 'geolocation': {
      // Two-letter codes match the country; anything else matches the whole text.
      const values = Array.isArray(c.value) ? c.value : [c.value];
      const byCode = values.every((v) => typeof v === 'string' && /^[A-Za-z]{2}$/.test(v));
      if (!byCode) return test(offer.geolocation, c.op, c.value);
      const upper = Array.isArray(c.value) ? c.value.map((v) => String(v).toUpperCase()) : String(c.value).toUpperCase();
      return test(countryOf(offer.geolocation), c.op, upper);
    }
    case 'verified':
      return test(offer.verification === 'verified', c.op, c.value);
    case 'datacenter':
      return test(offer.hosting_type === 1, c.op, c.value);
    case 'driver_version':
      // The CLI sends versions packed into an integer (535.86.05 -> 535086005).
      return typeof c.value === 'number' || Array.isArray(c.value)
        ? test(offer.driver_vers, c.op, c.value)
        : test(offer.driver_version, c.op, c.value);
    default:
      return test(row[c.field], c.op, c.value);
  }
}

export function rowMatches(row: Row, conditions: readonly Condition[]): boolean {
  return conditions.every((c) => test(row[c.field], c.op, c.value));
}

/** Compares rows by each `[field, dir]`, then by id ascending, so that every order is total. */
export function compareRows(a: Row, b: Row, order: Order): number {
  for (const [field, dir] of order) {
    const c = compare(a[field], b[field]);
    if (c === undefined) {
      const an = a[field] == null;
      const bn = b[field] == null;
      if (an !== bn) return an ? 1 : -1; // missing values last
      continue;
    }
    if (c !== 0) return dir === 'desc' ? -c : c;
  }
  return (a.id as number) - (b.id as number);
}

export function sortRows<T>(rows: T[], order: Order): T[] {
  (rows as unknown as Row[]).sort((a, b) => compareRows(a, b, order));
  return rows;
}

export function parseOrder(raw: unknown): Order {
  if (raw == null) return [];
  if (!Array.isArray(raw)) throw new QueryError('order must be a list of [field, direction] pairs.');
  return raw.map((entry): [string, 'asc' | 'desc'] => {
    if (Array.isArray(entry) && typeof entry[0] === 'string') return [entry[0], entry[1] === 'desc' ? 'desc' : 'asc'];
    if (entry && typeof entry === 'object' && typeof (entry as Row).col === 'string')
      return [(entry as Row).col as string, (entry as Row).dir === 'desc' ? 'desc' : 'asc'];
    throw new QueryError('order must be a list of [field, direction] pairs.');
  });
}

export interface OfferSearch {
  conditions: Condition[];
  order: Order;
  type: PricingType;
  limit: number | undefined;
  allocatedStorage: number | undefined;
}

/**
 * Field name -> typeof its value, read from sample rows: the first row where the field is not null
 * types it, so a nullable field null in the first row still filters by its type. Offers are typed
 * from their definition instead (`OFFER_FIELD_KINDS`).
 */
export function kindsOf(sample: object | readonly object[] | undefined): Record<string, string> {
  const kinds: Record<string, string> = {};
  const rows: readonly object[] = Array.isArray(sample) ? sample : sample ? [sample as object] : [];
  for (const row of rows)
    for (const [k, v] of Object.entries(row)) if (kinds[k] === undefined || kinds[k] === 'null') kinds[k] = v === null ? 'null' : typeof v;
  return kinds;
}

/**
 * Reads a search body. Filters on fields the offers do not have are ignored (the CLI only warns
 * about unknown fields); unknown operators and malformed settings are errors.
 */
export function parseSearch(body: Row, kinds: Record<string, string>): OfferSearch {
  const known = new Set(Object.keys(kinds));
  const skip = new Set([...SEARCH_SETTINGS, ...Object.keys(body).filter((f) => !known.has(f) && !VIRTUAL_FIELDS.has(f))]);
  const conditions = parseFilters(body, kinds, skip);
  const order = parseOrder(body.order);
  const rawType = body.type ?? 'on-demand';
  const type: PricingType | undefined =
    rawType === 'on-demand' || rawType === 'ondemand'
      ? 'on-demand'
      : rawType === 'bid' || rawType === 'interruptible'
        ? 'bid'
        : rawType === 'reserved'
          ? 'reserved'
          : undefined;
  if (!type) throw new QueryError(`Unknown offer type '${String(rawType)}'; use on-demand, bid or reserved.`);
  const limit = optionalNumber(body.limit, 'limit');
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw new QueryError('limit must be a non-negative integer.');
  const allocatedStorage = optionalNumber(body.allocated_storage, 'allocated_storage');
  if (allocatedStorage !== undefined && !(allocatedStorage >= 0)) throw new QueryError('allocated_storage must be a number of GB.');
  return { conditions, order, type, limit, allocatedStorage };
}

function optionalNumber(raw: unknown, name: string): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  const value = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new QueryError(`${name} must be a number.`);
  return value;
}

/**
 * Runs a search over offers already priced for it. `allocated_storage` also asks for at least
 * that much free disk, as the service translates it.
 */
export function runSearch<T extends Pick<Offer, 'id' | 'disk_space'>>(priced: T[], search: OfferSearch): T[] {
  let rows = priced.filter((o) => search.conditions.every((c) => offerMatches(o as unknown as Offer, c)));
  if (search.allocatedStorage !== undefined) {
    const need = search.allocatedStorage;
    rows = rows.filter((o) => o.disk_space >= need);
  }
  sortRows(rows, search.order);
  return search.limit === undefined ? rows : rows.slice(0, search.limit);
}
