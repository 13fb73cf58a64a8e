/**
 * Prints an `OfferQuery` back as offer-search query text in the units people type (GB, days,
 * `535.86.05`), so that the parser reads it back to the same query.
 */
import {
  FILTER_OPS,
  OFFER_TYPES,
  type FieldFilter,
  type FilterOp,
  type FilterScalar,
  type OfferQuery,
  type OfferType,
} from '../../api/offerQuery';
import { DRIVER_VERSION_FIELD, OFFER_QUERY_ALIASES, SPECIAL_KEYS, UNIT_FACTORS } from './fields';
import { formatScaledDecimal } from './numbers';
import {
  ANY_WORDS,
  DEFAULT_TYPE,
  LIST_OPS,
  MAX_ALLOCATED_STORAGE_GB,
  MAX_OFFER_LIMIT,
  getOwn,
  readBare,
  type QueryOptions,
} from './syntax';
import { l10n } from '../../l10n';

/** How each operator is printed. */
const PRINTED_OPS: Readonly<Record<FilterOp, string>> = {
  eq: '=',
  neq: '!=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  in: ' in ',
  notin: ' notin ',
};

const PRINTED_TYPES: Readonly<Record<OfferType, string>> = {
  'on-demand': 'on-demand',
  bid: 'interruptible',
  reserved: 'reserved',
};

const FIELD_NAME = /^[A-Za-z_]\w*$/;
/** Bare values the printer may leave unquoted (and the parser reads back unchanged). */
const SAFE_BARE = /^[\p{L}\p{N}_.+\-:/@]+$/u;

function sameScalar(a: FilterScalar, b: FilterScalar): boolean {
  return Object.is(a, b);
}

function sameValue(a: FilterScalar | FilterScalar[] | undefined, b: FilterScalar | FilterScalar[] | undefined): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameScalar(x, b[i] as FilterScalar));
  }
  if (a === undefined || b === undefined) return a === b;
  return sameScalar(a, b);
}

function printableField(name: string, where: string): string {
  if (!FIELD_NAME.test(name) || SPECIAL_KEYS.has(name) || OFFER_QUERY_ALIASES.has(name)) {
    throw new RangeError(l10n.t("{0} '{1}' cannot be written in an offer query", where, name));
  }
  return name;
}

function quote(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function printNumber(value: number, field: string): string {
  if (!Number.isFinite(value)) throw new RangeError(l10n.t('{0}: {1} cannot be written in an offer query', field, value));
  if (field === DRIVER_VERSION_FIELD && Number.isInteger(value) && value >= 0 && value <= 999_999_999 && !Object.is(value, -0)) {
    const major = Math.floor(value / 1_000_000);
    const minor = Math.floor(value / 1_000) % 1_000;
    const patch = value % 1_000;
    return `${major}.${minor}.${String(patch).padStart(2, '0')}`;
  }
  return formatScaledDecimal(value, UNIT_FACTORS.get(field) ?? 1n);
}

/** The text of one value in user units, quoted only when a bare word would read differently. */
function printScalar(value: FilterScalar, field: string): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    const text = printNumber(value, field);
    const back = readBare(text, field);
    if (!back.ok || !Object.is(back.value, value))
      throw new Error(l10n.t("internal: {0} value {1} printed as '{2}' reads back differently", field, value, text));
    return text;
  }
  if (typeof value !== 'string') throw new RangeError(l10n.t('{0}: unsupported value {1}', field, String(value)));
  const bare = value.replaceAll(' ', '_'); // 'a_b' reads back as 'a b', so the check below quotes it
  if (bare !== '' && SAFE_BARE.test(bare) && !ANY_WORDS.has(bare)) {
    const back = readBare(bare, field);
    if (back.ok && back.value === value) return bare;
  }
  return quote(value);
}

function printCondition(field: string, op: FilterOp, value: FilterScalar | FilterScalar[]): string {
  if (LIST_OPS.has(op)) {
    if (!Array.isArray(value)) throw new RangeError(l10n.t("{0}: '{1}' needs a list", field, op));
    return `${field}${PRINTED_OPS[op]}[${value.map((v) => printScalar(v, field)).join(',')}]`;
  }
  if (Array.isArray(value)) throw new RangeError(l10n.t("{0}: '{1}' cannot take a list", field, op));
  return `${field}${PRINTED_OPS[op]}${printScalar(value, field)}`;
}

function presentOps(field: string, filter: FieldFilter): Array<[FilterOp, FilterScalar | FilterScalar[]]> {
  for (const key of Object.keys(filter)) {
    if (!(FILTER_OPS as readonly string[]).includes(key)) throw new RangeError(l10n.t("{0}: unknown operator '{1}'", field, key));
  }
  const out: Array<[FilterOp, FilterScalar | FilterScalar[]]> = [];
  for (const op of FILTER_OPS) {
    const v = filter[op];
    if (v !== undefined) out.push([op, v]);
  }
  return out;
}

/**
 * Canonical query text in user units. With the same `defaults`, `parseOfferQuery` reads it back to a
 * query deep-equal to `query`: defaults the query drops become `field=any`, unchanged ones are left out.
 * Throws a RangeError for a query the language cannot express (bad field names, NaN, a list under `eq`...).
 */
export function printOfferQuery(query: OfferQuery, options: QueryOptions = {}): string {
  const defaults = options.defaults ?? {};
  const parts: string[] = [];
  const write = (field: string, filter: FieldFilter | undefined, base: FieldFilter | undefined) => {
    printableField(field, base === undefined ? 'field' : l10n.t('default field'));
    if (filter === undefined) {
      parts.push(`${field}=any`);
      return;
    }
    const ops = presentOps(field, filter);
    let printed = ops;
    if (base !== undefined && presentOps(field, base).every(([op]) => filter[op] !== undefined)) {
      // Everything the default sets is still set: only the changed operators need writing.
      printed = ops.filter(([op, v]) => !sameValue(v, base[op]));
    } else {
      if (ops.length === 0) throw new RangeError(l10n.t("field '{0}' has no operators", field));
      if (base !== undefined) parts.push(`${field}=any`);
    }
    for (const [op, v] of printed) parts.push(printCondition(field, op, v));
  };
  // Defaults first, in their own order, so the text does not depend on the order of keys in `query`.
  for (const [field, base] of Object.entries(defaults)) write(field, getOwn(query.filters, field), base);
  for (const [field, filter] of Object.entries(query.filters)) {
    if (!Object.hasOwn(defaults, field)) write(field, filter, undefined);
  }
  if (query.type !== DEFAULT_TYPE) {
    if (!(OFFER_TYPES as readonly string[]).includes(query.type))
      throw new RangeError(l10n.t("unknown offer type '{0}'", String(query.type)));
    parts.push(`type=${PRINTED_TYPES[query.type]}`);
  }
  if (query.limit !== undefined) {
    if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_OFFER_LIMIT)
      throw new RangeError(l10n.t('limit {0} cannot be written in an offer query', query.limit));
    parts.push(`limit=${query.limit}`);
  }
  if (query.allocatedStorage !== undefined) {
    const gb = query.allocatedStorage;
    if (!(gb > 0 && gb <= MAX_ALLOCATED_STORAGE_GB))
      throw new RangeError(l10n.t('allocated_storage {0} cannot be written in an offer query', gb));
    parts.push(`allocated_storage=${formatScaledDecimal(gb, 1n)}`);
  }
  if (query.order.length > 0) {
    const items = query.order.map(([field, direction]) => {
      if (!FIELD_NAME.test(field) || OFFER_QUERY_ALIASES.has(field))
        throw new RangeError(l10n.t("sort field '{0}' cannot be written in an offer query", field));
      if (direction !== 'asc' && direction !== 'desc')
        throw new RangeError(l10n.t("sort direction '{0}' for '{1}'", String(direction), field));
      return direction === 'desc' ? `${field}-` : field;
    });
    parts.push(`order=${items.join(',')}`);
  }
  return parts.join(' ');
}
