/**
 * The offer-search query language of the vast.ai CLI (`vastai search offers '...'`), parsed into an
 * `OfferQuery` and printed back.
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
  OFFER_TYPES,
  type FieldFilter,
  type FilterOp,
  type FilterScalar,
  type OfferFilters,
  type OfferOrder,
  type OfferQuery,
  type OfferType,
} from './types';
import { DRIVER_VERSION_FIELD, OFFER_QUERY_ALIASES, SPECIAL_KEYS, UNIT_FACTORS, canonicalField, isKnownQueryField } from './queryFields';
import { formatScaledDecimal, parseScaledDecimal } from './queryNumbers';

export { OFFER_QUERY_FIELDS, OFFER_QUERY_ALIASES, type OfferQueryField, type OfferQueryFieldKind } from './queryFields';

export interface ParseOptions {
  /** Filters applied before the text, in API units (e.g. verified=true rentable=true external=false rented=false). */
  defaults?: OfferFilters;
}

/**
 * A query the parser cannot read. `position` is the 0-based offset of the problem in the text and
 * `length` how many characters it covers; the message gives the 1-based `column`.
 */
export class OfferQueryError extends Error {
  readonly position: number;
  readonly length: number;
  /** `position + 1`, as the message shows it. */
  readonly column: number;
  /** The message without the column prefix. */
  readonly problem: string;

  constructor(problem: string, position: number, length = 1) {
    super(`at column ${position + 1}: ${problem}`);
    this.name = 'OfferQueryError';
    this.position = position;
    this.length = length;
    this.column = position + 1;
    this.problem = problem;
  }
}

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

// ---------------------------------------------------------------------------------------------------
// Vocabulary

const SYMBOL_OPS: ReadonlyMap<string, FilterOp> = new Map([
  ['<', 'lt'],
  ['<=', 'lte'],
  ['=', 'eq'],
  ['==', 'eq'],
  ['!=', 'neq'],
  ['>=', 'gte'],
  ['>', 'gt'],
]);

const WORD_OPS: ReadonlyMap<string, FilterOp> = new Map([
  ['eq', 'eq'],
  ['neq', 'neq'],
  ['noteq', 'neq'],
  ['gt', 'gt'],
  ['gte', 'gte'],
  ['lt', 'lt'],
  ['lte', 'lte'],
  ['in', 'in'],
  ['notin', 'notin'],
  ['nin', 'notin'],
]);

const OPERATOR_HINT = '(use one of = != < <= > >= in notin)';

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

const LIST_OPS: ReadonlySet<FilterOp> = new Set<FilterOp>(['in', 'notin']);

/** `field=any` (or `*`, `?`) drops the filter on that field. */
const ANY_WORDS: ReadonlySet<string> = new Set(['any', '*', '?']);

const TYPE_WORDS: ReadonlyMap<string, OfferType> = new Map([
  ['on-demand', 'on-demand'],
  ['ondemand', 'on-demand'],
  ['interruptible', 'bid'],
  ['bid', 'bid'],
  ['reserved', 'reserved'],
]);

const PRINTED_TYPES: Readonly<Record<OfferType, string>> = {
  'on-demand': 'on-demand',
  bid: 'interruptible',
  reserved: 'reserved',
};

const DEFAULT_TYPE: OfferType = 'on-demand';

/** The most offers one search may ask for with `limit=`. */
export const MAX_OFFER_LIMIT = 1000;
/** The largest disk `allocated_storage=` may price in, in GB. */
export const MAX_ALLOCATED_STORAGE_GB = 100_000;

const FIELD_NAME = /^[A-Za-z_]\w*$/;
const FIELD_AT = /[A-Za-z_]\w*/y;
const SYMBOLS_AT = /[<>=!]+/y;
const WORD_AT = /\w+/y;
const WHITESPACE = /\s/;
const DRIVER_VERSION = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** Bare values the printer may leave unquoted (and the parser reads back unchanged). */
const SAFE_BARE = /^[\p{L}\p{N}_.+\-:/@]+$/u;

// ---------------------------------------------------------------------------------------------------
// Reading the text

interface Token {
  text: string;
  start: number;
  end: number;
}

interface ScalarToken extends Token {
  kind: 'bare' | 'quoted';
}

interface ListToken extends Token {
  kind: 'list';
  items: ScalarToken[];
}

type ValueToken = ScalarToken | ListToken;

interface Clause {
  field: Token;
  op: FilterOp;
  opToken: Token;
  value: ValueToken;
}

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  get atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  isSpaceAt(i: number): boolean {
    const c = this.text[i];
    return c !== undefined && WHITESPACE.test(c);
  }

  /** Skips whitespace; tells whether there was any. */
  skipSpace(): boolean {
    const from = this.pos;
    while (this.isSpaceAt(this.pos)) this.pos++;
    return this.pos > from;
  }

  match(re: RegExp): Token | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (m === null) return undefined;
    const start = this.pos;
    this.pos += m[0].length;
    return { text: m[0], start, end: this.pos };
  }

  /** The run of non-space characters from `from`, for error messages. */
  wordAt(from: number): string {
    let end = from;
    while (end < this.text.length && !this.isSpaceAt(end)) end++;
    return this.text.slice(from, end);
  }

  clause(): Clause {
    const field = this.match(FIELD_AT);
    if (field === undefined) {
      const found = this.wordAt(this.pos);
      throw new OfferQueryError(`expected a field name, found '${found}'`, this.pos, found.length);
    }
    const [op, opToken] = this.operator(field);
    const spaced = this.skipSpace();
    if (this.atEnd) throw new OfferQueryError(`missing value after '${opToken.text}'`, opToken.start, opToken.end - opToken.start);
    const c = this.text[this.pos];
    let value: ValueToken;
    if (c === '[') value = this.list();
    else if (c === '"') value = this.quoted();
    else value = this.bare(opToken, spaced);
    if (value.kind !== 'bare' && !this.atEnd && !this.isSpaceAt(this.pos)) {
      const what = value.kind === 'list' ? "']'" : 'the closing quote';
      throw new OfferQueryError(`expected a space after ${what}, found '${this.text[this.pos] ?? ''}'`, this.pos, 1);
    }
    return { field, op, opToken, value };
  }

  operator(field: Token): [FilterOp, Token] {
    const spaced = this.skipSpace();
    if (this.atEnd) {
      throw new OfferQueryError(
        `'${field.text}' needs an operator and a value, e.g. ${field.text}=... ${OPERATOR_HINT}`,
        field.start,
        field.end - field.start,
      );
    }
    const symbols = this.match(SYMBOLS_AT);
    if (symbols !== undefined) {
      const op = SYMBOL_OPS.get(symbols.text);
      if (op === undefined) throw unknownOperator(symbols);
      return [op, symbols];
    }
    const word = spaced ? this.match(WORD_AT) : undefined;
    if (word !== undefined) {
      const lower = word.text.toLowerCase();
      if (lower === 'not') {
        const save = this.pos;
        if (this.skipSpace()) {
          const next = this.match(WORD_AT);
          const nextLower = next?.text.toLowerCase();
          if (next !== undefined && (nextLower === 'in' || nextLower === 'eq')) {
            const token = { text: this.text.slice(word.start, next.end), start: word.start, end: next.end };
            return [nextLower === 'in' ? 'notin' : 'neq', token];
          }
        }
        this.pos = save;
        throw unknownOperator(word);
      }
      const op = WORD_OPS.get(lower);
      if (op === undefined) throw unknownOperator(word);
      return [op, word];
    }
    // Something else right after the field, e.g. `num_gpus:2` or `gpu_name"x"`.
    const start = this.pos;
    const rest = this.wordAt(start);
    const junk = /^[^\w"[\]]+/.exec(rest)?.[0] ?? rest.slice(0, 1);
    throw unknownOperator({ text: junk, start, end: start + junk.length });
  }

  /** A double-quoted string; `\"` and `\\` are escapes, any other backslash is literal. */
  quoted(): ScalarToken {
    const start = this.pos;
    let text = '';
    let i = start + 1;
    for (;;) {
      const c = this.text[i];
      if (c === undefined) throw new OfferQueryError('unterminated quote: add the closing "', start, 1);
      if (c === '"') break;
      if (c === '\\' && (this.text[i + 1] === '"' || this.text[i + 1] === '\\')) {
        text += this.text[i + 1];
        i += 2;
        continue;
      }
      text += c;
      i++;
    }
    this.pos = i + 1;
    return { kind: 'quoted', text, start, end: this.pos };
  }

  bare(opToken: Token, spaced: boolean): ScalarToken {
    const start = this.pos;
    const text = this.wordAt(start);
    this.pos += text.length;
    const stray = /["[\]]/.exec(text);
    if (stray !== null) {
      throw new OfferQueryError(
        `unexpected '${stray[0]}' in value '${text}' (put the whole value in double quotes)`,
        start + stray.index,
        1,
      );
    }
    const opChar = /[<>=]/.exec(text);
    if (opChar !== null) {
      // `num_gpus>= verified=true`: the value is missing and the next condition got read as one.
      if (spaced && /^[A-Za-z_]\w*[<>=!]/.test(text)) {
        throw new OfferQueryError(`missing value after '${opToken.text}'`, opToken.start, opToken.end - opToken.start);
      }
      throw new OfferQueryError(
        `unexpected '${opChar[0]}' in value '${text}' (separate conditions with spaces, or quote the value)`,
        start + opChar.index,
        1,
      );
    }
    return { kind: 'bare', text, start, end: this.pos };
  }

  /** `[a, b, "c d"]`: comma-separated items, spaces around them ignored. */
  list(): ListToken {
    const start = this.pos;
    const items: ScalarToken[] = [];
    const unterminated = () => new OfferQueryError("unterminated list: add the closing ']'", start, 1);
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'list', items, text: this.text.slice(start, this.pos), start, end: this.pos };
    }
    for (;;) {
      this.skipSpace();
      const c = this.text[this.pos];
      if (c === undefined) throw unterminated();
      let item: ScalarToken;
      if (c === '"') {
        item = this.quoted();
        this.skipSpace();
      } else {
        const itemStart = this.pos;
        while (this.pos < this.text.length && !',]"['.includes(this.text[this.pos] ?? '')) this.pos++;
        const raw = this.text.slice(itemStart, this.pos);
        const stop = this.text[this.pos];
        if (stop === '"' || stop === '[') {
          throw new OfferQueryError(`unexpected '${stop}' in a list item (quote the whole item)`, this.pos, 1);
        }
        if (stop === undefined) throw unterminated();
        const text = raw.trimEnd();
        if (text === '') throw new OfferQueryError('empty item in list', this.pos, 1);
        item = { kind: 'bare', text, start: itemStart, end: itemStart + text.length };
      }
      items.push(item);
      const next = this.text[this.pos];
      if (next === undefined) throw unterminated();
      this.pos++;
      if (next === ']') break;
      if (next !== ',') throw new OfferQueryError(`expected ',' or ']' in list, found '${next}'`, this.pos - 1, 1);
    }
    return { kind: 'list', items, text: this.text.slice(start, this.pos), start, end: this.pos };
  }
}

function unknownOperator(token: Token): OfferQueryError {
  return new OfferQueryError(`unknown operator '${token.text}' ${OPERATOR_HINT}`, token.start, token.end - token.start);
}

// ---------------------------------------------------------------------------------------------------
// Values

type BareValue = { ok: true; value: FilterScalar } | { ok: false; problem: string };

/** What an unquoted value means for `field`: booleans, null, numbers (in API units) or a string. */
function readBare(text: string, field: string): BareValue {
  switch (text) {
    case 'true':
    case 'True':
      return { ok: true, value: true };
    case 'false':
    case 'False':
      return { ok: true, value: false };
    case 'None':
    case 'null':
      return { ok: true, value: null };
  }
  if (field === DRIVER_VERSION_FIELD) {
    const m = DRIVER_VERSION.exec(text);
    if (m !== null) return { ok: true, value: Number(m[1]) * 1_000_000 + Number(m[2]) * 1_000 + Number(m[3]) };
  }
  const number = parseScaledDecimal(text, UNIT_FACTORS.get(field) ?? 1n);
  if (number !== undefined) {
    return Number.isFinite(number) ? { ok: true, value: number } : { ok: false, problem: `number '${text}' is too large` };
  }
  return { ok: true, value: text.replaceAll('_', ' ') };
}

function scalarOf(token: ScalarToken, field: string): FilterScalar {
  if (token.kind === 'quoted') return token.text;
  const read = readBare(token.text, field);
  if (!read.ok) throw new OfferQueryError(read.problem, token.start, token.end - token.start);
  return read.value;
}

// ---------------------------------------------------------------------------------------------------
// Parsing

function getOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
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
      `'${key}' only takes '=', not '${clause.opToken.text}'`,
      clause.opToken.start,
      clause.opToken.end - clause.opToken.start,
    );
  }
  if (clause.value.kind === 'list') {
    throw new OfferQueryError(`'${key}' does not take a list in brackets`, clause.value.start, clause.value.end - clause.value.start);
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
      `unknown offer type '${value.text}' (use on-demand, interruptible or reserved)`,
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
        ? "order ends with ','; write it without spaces (order=dph_total,reliability-) or in double quotes"
        : 'empty field name in order';
      throw new OfferQueryError(problem, trailing ? partStart - 1 : partStart, Math.max(1, part.length));
    }
    const m = /^([A-Za-z_]\w*)([+-]?)$/.exec(item);
    if (m === null || m[1] === undefined) {
      throw new OfferQueryError(
        `bad sort field '${item}' (write field names separated by commas, '-' after a name sorts descending)`,
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
        `'limit' takes a whole number of offers from 1 to ${MAX_OFFER_LIMIT}, not '${value.text}'`,
        value.start,
        value.end - value.start,
      );
    }
  } else if (n === undefined || !(n > 0) || n > MAX_ALLOCATED_STORAGE_GB) {
    throw new OfferQueryError(
      `'allocated_storage' takes a disk size in GB, more than 0 and at most ${MAX_ALLOCATED_STORAGE_GB}, not '${value.text}'`,
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
        `'${value.text}' removes the filter on '${field}' and only works with '=', not '${opToken.text}'`,
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
        `'${opToken.text}' needs a list in brackets, e.g. ${clause.field.text} ${opToken.text} [${value.text}]`,
        value.start,
        value.end - value.start,
      );
    }
    parsed = value.items.map((item) => scalarOf(item, field));
  } else {
    if (value.kind === 'list') {
      throw new OfferQueryError(`a list in brackets needs 'in' or 'notin', not '${opToken.text}'`, value.start, value.end - value.start);
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
export function analyzeOfferQuery(text: string, options: ParseOptions = {}): OfferQueryAnalysis {
  const state: ParseState = { filters: {}, order: [], type: DEFAULT_TYPE };
  for (const [field, filter] of Object.entries(options.defaults ?? {})) setOwn(state.filters, field, cloneFilter(filter));
  const unknownFields: UnknownQueryField[] = [];
  const reader = new Reader(text);
  reader.skipSpace();
  while (!reader.atEnd) {
    const clause = reader.clause();
    if (!isKnownQueryField(clause.field.text)) {
      unknownFields.push({ name: clause.field.text, position: clause.field.start, length: clause.field.end - clause.field.start });
    }
    applyClause(state, clause);
    reader.skipSpace();
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
export function parseOfferQuery(text: string, options: ParseOptions = {}): OfferQuery {
  return analyzeOfferQuery(text, options).query;
}

// ---------------------------------------------------------------------------------------------------
// Printing

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
    throw new RangeError(`${where} '${name}' cannot be written in an offer query`);
  }
  return name;
}

function quote(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function printNumber(value: number, field: string): string {
  if (!Number.isFinite(value)) throw new RangeError(`${field}: ${value} cannot be written in an offer query`);
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
      throw new Error(`internal: ${field} value ${value} printed as '${text}' reads back differently`);
    return text;
  }
  if (typeof value !== 'string') throw new RangeError(`${field}: unsupported value ${String(value)}`);
  const bare = value.replaceAll(' ', '_'); // 'a_b' reads back as 'a b', so the check below quotes it
  if (bare !== '' && SAFE_BARE.test(bare) && !ANY_WORDS.has(bare)) {
    const back = readBare(bare, field);
    if (back.ok && back.value === value) return bare;
  }
  return quote(value);
}

function printCondition(field: string, op: FilterOp, value: FilterScalar | FilterScalar[]): string {
  if (LIST_OPS.has(op)) {
    if (!Array.isArray(value)) throw new RangeError(`${field}: '${op}' needs a list`);
    return `${field}${PRINTED_OPS[op]}[${value.map((v) => printScalar(v, field)).join(',')}]`;
  }
  if (Array.isArray(value)) throw new RangeError(`${field}: '${op}' cannot take a list`);
  return `${field}${PRINTED_OPS[op]}${printScalar(value, field)}`;
}

function presentOps(field: string, filter: FieldFilter): Array<[FilterOp, FilterScalar | FilterScalar[]]> {
  for (const key of Object.keys(filter)) {
    if (!(FILTER_OPS as readonly string[]).includes(key)) throw new RangeError(`${field}: unknown operator '${key}'`);
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
export function printOfferQuery(query: OfferQuery, options: ParseOptions = {}): string {
  const defaults = options.defaults ?? {};
  const parts: string[] = [];
  const write = (field: string, filter: FieldFilter | undefined, base: FieldFilter | undefined) => {
    printableField(field, base === undefined ? 'field' : 'default field');
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
      if (ops.length === 0) throw new RangeError(`field '${field}' has no operators`);
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
    if (!(OFFER_TYPES as readonly string[]).includes(query.type)) throw new RangeError(`unknown offer type '${String(query.type)}'`);
    parts.push(`type=${PRINTED_TYPES[query.type]}`);
  }
  if (query.limit !== undefined) {
    if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_OFFER_LIMIT)
      throw new RangeError(`limit ${query.limit} cannot be written in an offer query`);
    parts.push(`limit=${query.limit}`);
  }
  if (query.allocatedStorage !== undefined) {
    const gb = query.allocatedStorage;
    if (!(gb > 0 && gb <= MAX_ALLOCATED_STORAGE_GB)) throw new RangeError(`allocated_storage ${gb} cannot be written in an offer query`);
    parts.push(`allocated_storage=${formatScaledDecimal(gb, 1n)}`);
  }
  if (query.order.length > 0) {
    const items = query.order.map(([field, direction]) => {
      if (!FIELD_NAME.test(field) || OFFER_QUERY_ALIASES.has(field))
        throw new RangeError(`sort field '${field}' cannot be written in an offer query`);
      if (direction !== 'asc' && direction !== 'desc') throw new RangeError(`sort direction '${String(direction)}' for '${field}'`);
      return direction === 'desc' ? `${field}-` : field;
    });
    parts.push(`order=${items.join(',')}`);
  }
  return parts.join(' ');
}
