/**
 * Parses the offer-search query language of the vast.ai CLI (`vastai search offers '...'`) into an
 * `OfferQuery`.
 *
 *   gpu_name=RTX_4090 num_gpus>=2 dph<1.5 geolocation in [US,CA] type=interruptible order=dph_total,reliability-
 *
 * Besides filters, `type`, `order`, `limit` (how many offers) and `allocated_storage` (GB of disk to
 * price in) are settings of the search, each written `key=value`.
 *
 * Conditions are `field op value`, separated by whitespace. Values in the text are in the units people
 * think in (GB, days, `535.86.05`); the result carries API units (MB, seconds, 535086005).
 */
import {
  FILTER_OPS,
  type FieldFilter,
  type FilterScalar,
  type OfferFilters,
  type OfferOrder,
  type OfferQuery,
  type OfferType,
} from '../../api/offerQuery';
import { OfferQueryError, readClauses, type Clause, type ScalarToken } from './clauses';
import { canonicalField, isKnownQueryField } from './fields';
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

export { OfferQueryError } from './clauses';

/** Where a field the parser does not know appears in the text (the CLI only warns about these). */
export interface UnknownQueryField {
  name: string;
  position: number;
  length: number;
}

export interface OfferQueryAnalysis {
  query: OfferQuery;
  unknownFields: UnknownQueryField[];
}

const TYPE_WORDS: ReadonlyMap<string, OfferType> = new Map([
  ['on-demand', 'on-demand'],
  ['ondemand', 'on-demand'],
  ['interruptible', 'bid'],
  ['bid', 'bid'],
  ['reserved', 'reserved'],
]);

function scalarOf(token: ScalarToken, field: string): FilterScalar {
  if (token.kind === 'quoted') return token.text;
  const read = readBare(token.text, field);
  if (!read.ok) throw new OfferQueryError(read.problem, token.start, token.end - token.start);
  return read.value;
}

/** Sets an own property even for names like `__proto__`. */
function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

function cloneFilter(filter: FieldFilter): FieldFilter {
  const out: FieldFilter = {};
  for (const op of FILTER_OPS) {
    const v = filter[op];
    if (v !== undefined) out[op] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

interface ParseState {
  filters: OfferFilters;
  order: OfferOrder;
  type: OfferType;
  limit?: number;
  allocatedStorage?: number;
}

function soleValue(clause: Clause, key: string): ScalarToken {
  if (clause.op !== 'eq') {
    throw new OfferQueryError(
      l10n.t("'{0}' only takes '=', not '{1}'", key, clause.opToken.text),
      clause.opToken.start,
      clause.opToken.end - clause.opToken.start,
    );
  }
  if (clause.value.kind === 'list') {
    throw new OfferQueryError(
      l10n.t("'{0}' does not take a list in brackets", key),
      clause.value.start,
      clause.value.end - clause.value.start,
    );
  }
  return clause.value;
}

function applyType(state: ParseState, clause: Clause): void {
  const value = soleValue(clause, 'type');
  if (value.kind === 'bare' && ANY_WORDS.has(value.text)) {
    state.type = DEFAULT_TYPE;
    return;
  }
  const type = TYPE_WORDS.get(value.text.toLowerCase());
  if (type === undefined) {
    throw new OfferQueryError(
      l10n.t("unknown offer type '{0}' (use on-demand, interruptible or reserved)", value.text),
      value.start,
      value.end - value.start,
    );
  }
  state.type = type;
}

function applyOrder(state: ParseState, clause: Clause): void {
  const value = soleValue(clause, 'order');
  if (value.kind === 'bare' && ANY_WORDS.has(value.text)) {
    state.order = [];
    return;
  }
  const base = value.kind === 'quoted' ? value.start + 1 : value.start;
  const order: OfferOrder = [];
  let offset = 0;
  for (const part of value.text.split(',')) {
    const partStart = base + offset;
    offset += part.length + 1;
    const item = part.trim();
    if (item === '') {
      const trailing = value.kind === 'bare' && offset > value.text.length;
      const problem = trailing
        ? l10n.t("order ends with ','; write it without spaces (order=dph_total,reliability-) or in double quotes")
        : l10n.t('empty field name in order');
      throw new OfferQueryError(problem, trailing ? partStart - 1 : partStart, Math.max(1, part.length));
    }
    const m = /^([A-Za-z_]\w*)([+-]?)$/.exec(item);
    if (m === null || m[1] === undefined) {
      throw new OfferQueryError(
        l10n.t("bad sort field '{0}' (write field names separated by commas, '-' after a name sorts descending)", item),
        partStart + part.length - part.trimStart().length,
        item.length,
      );
    }
    order.push([canonicalField(m[1]), m[2] === '-' ? 'desc' : 'asc']);
  }
  state.order = order;
}

/** `limit=N` or `allocated_storage=N`: one number within bounds; `any` goes back to the default. */
function applyNumberSetting(state: ParseState, clause: Clause, key: 'limit' | 'allocated_storage'): void {
  const value = soleValue(clause, key);
  const prop = key === 'limit' ? 'limit' : 'allocatedStorage';
  if (value.kind === 'bare' && ANY_WORDS.has(value.text)) {
    delete state[prop];
    return;
  }
  const read = value.kind === 'bare' ? readBare(value.text, key) : undefined;
  const n = read?.ok && typeof read.value === 'number' ? read.value : undefined;
  if (key === 'limit') {
    if (n === undefined || !Number.isInteger(n) || n < 1 || n > MAX_OFFER_LIMIT) {
      throw new OfferQueryError(
        l10n.t("'limit' takes a whole number of offers from 1 to {0}, not '{1}'", MAX_OFFER_LIMIT, value.text),
        value.start,
        value.end - value.start,
      );
    }
  } else if (n === undefined || !(n > 0) || n > MAX_ALLOCATED_STORAGE_GB) {
    throw new OfferQueryError(
      l10n.t("'allocated_storage' takes a disk size in GB, more than 0 and at most {0}, not '{1}'", MAX_ALLOCATED_STORAGE_GB, value.text),
      value.start,
      value.end - value.start,
    );
  }
  state[prop] = n;
}

function applyClause(state: ParseState, clause: Clause): void {
  const field = canonicalField(clause.field.text);
  if (field === 'type') return applyType(state, clause);
  if (field === 'order') return applyOrder(state, clause);
  if (field === 'limit' || field === 'allocated_storage') return applyNumberSetting(state, clause, field);
  const { op, opToken, value } = clause;
  if (value.kind === 'bare' && ANY_WORDS.has(value.text)) {
    if (op !== 'eq') {
      throw new OfferQueryError(
        l10n.t("'{0}' removes the filter on '{1}' and only works with '=', not '{2}'", value.text, field, opToken.text),
        value.start,
        value.end - value.start,
      );
    }
    delete state.filters[field];
    return;
  }
  let parsed: FilterScalar | FilterScalar[];
  if (LIST_OPS.has(op)) {
    if (value.kind !== 'list') {
      throw new OfferQueryError(
        l10n.t("'{0}' needs a list in brackets, e.g. {1} {2} [{3}]", opToken.text, clause.field.text, opToken.text, value.text),
        value.start,
        value.end - value.start,
      );
    }
    parsed = value.items.map((item) => scalarOf(item, field));
  } else {
    if (value.kind === 'list') {
      throw new OfferQueryError(
        l10n.t("a list in brackets needs 'in' or 'notin', not '{0}'", opToken.text),
        value.start,
        value.end - value.start,
      );
    }
    parsed = scalarOf(value, field);
  }
  let filter = getOwn(state.filters, field);
  if (filter === undefined) {
    filter = {};
    setOwn(state.filters, field, filter);
  }
  filter[op] = parsed;
}

/** Parses a query and also reports the fields it does not know (which are still passed through). */
export function analyzeOfferQuery(text: string, options: QueryOptions = {}): OfferQueryAnalysis {
  const state: ParseState = { filters: {}, order: [], type: DEFAULT_TYPE };
  for (const [field, filter] of Object.entries(options.defaults ?? {})) setOwn(state.filters, field, cloneFilter(filter));
  const unknownFields: UnknownQueryField[] = [];
  for (const clause of readClauses(text)) {
    if (!isKnownQueryField(clause.field.text)) {
      unknownFields.push({ name: clause.field.text, position: clause.field.start, length: clause.field.end - clause.field.start });
    }
    applyClause(state, clause);
  }
  const query: OfferQuery = { filters: state.filters, order: state.order, type: state.type };
  if (state.limit !== undefined) query.limit = state.limit;
  if (state.allocatedStorage !== undefined) query.allocatedStorage = state.allocatedStorage;
  return { query, unknownFields };
}

/**
 * Parses CLI query text into filters (defaults first, then the text), order and type.
 * Throws OfferQueryError with the position of the first problem.
 */
export function parseOfferQuery(text: string, options: QueryOptions = {}): OfferQuery {
  return analyzeOfferQuery(text, options).query;
}
