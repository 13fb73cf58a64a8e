import assert from 'node:assert/strict';
import fc from 'fast-check';
import { OFFER_QUERY_ALIASES, OFFER_QUERY_FIELDS } from '../../../../src/core/offers/query/fields';
import { OfferQueryError, parseOfferQuery } from '../../../../src/core/offers/query/parse';
import { printOfferQuery } from '../../../../src/core/offers/query/print';
import { MAX_ALLOCATED_STORAGE_GB, MAX_OFFER_LIMIT } from '../../../../src/core/offers/query/syntax';
import { FILTER_OPS, OFFER_TYPES, type FieldFilter, type FilterScalar, type OfferQuery } from '../../../../src/core/api/offerQuery';
import { DEFAULTS } from './cliDefaults';

const RESERVED = new Set(['type', 'order', 'limit', 'allocated_storage', ...OFFER_QUERY_ALIASES.keys()]);
const KNOWN_NAMES = OFFER_QUERY_FIELDS.map((field) => field.name);
const fieldName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_NAMES, 'gpu_ram', 'cpu_ram', 'gpu_total_ram', 'duration', 'driver_version') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/).filter((name) => !RESERVED.has(name)) },
);

const trickyStrings = fc.constantFrom(
  'RTX 4090',
  'RTX_4090',
  'a_b c',
  'true',
  'False',
  'None',
  'null',
  'any',
  '*',
  '?',
  '',
  ' ',
  '2',
  '-0',
  '1e5',
  '535.86.05',
  'x=y',
  '[US]',
  'a,b',
  'say "hi"',
  'back\\slash',
  '\\"',
  'tab\there',
  'new\nline',
  'Zürich',
  'us',
  'US',
  'on-demand',
);
const scalar: fc.Arbitrary<FilterScalar> = fc.oneof(
  trickyStrings,
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.stringMatching(/^[A-Za-z0-9 _.-]{1,12}$/),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.integer({ min: 0, max: 999_999_999 }),
  fc.boolean(),
  fc.constant(null),
);
const list = fc.array(scalar, { maxLength: 4 });

const fieldFilter: fc.Arbitrary<FieldFilter> = fc
  .record(
    { eq: scalar, neq: scalar, gt: scalar, gte: scalar, lt: scalar, lte: scalar, in: list, notin: list },
    { requiredKeys: [], noNullPrototype: true },
  )
  .filter((filter) => Object.keys(filter).length > 0);

const filters = fc.dictionary(fieldName, fieldFilter, { maxKeys: 6, noNullPrototype: true });
const order = fc.array(fc.tuple(fieldName, fc.constantFrom('asc' as const, 'desc' as const)), { maxLength: 4 });
const offerQuery: fc.Arbitrary<OfferQuery> = fc.record(
  {
    filters,
    order,
    type: fc.constantFrom(...OFFER_TYPES),
    limit: fc.integer({ min: 1, max: MAX_OFFER_LIMIT }),
    allocatedStorage: fc.double({ min: Number.MIN_VALUE, max: MAX_ALLOCATED_STORAGE_GB, noNaN: true }),
  },
  { requiredKeys: ['filters', 'order', 'type'], noNullPrototype: true },
);

describe('offer query language: properties', () => {
  it('reads printed queries back unchanged', () => {
    fc.assert(
      fc.property(offerQuery, (query) => {
        const text = printOfferQuery(query);
        assert.deepStrictEqual(parseOfferQuery(text), query, text);
      }),
      { numRuns: 1500 },
    );
  });

  it('reads printed queries back unchanged under defaults', () => {
    fc.assert(
      fc.property(offerQuery, fc.option(filters, { nil: undefined }), (query, defaults) => {
        const options = { defaults: defaults ?? DEFAULTS };
        const text = printOfferQuery(query, options);
        assert.deepStrictEqual(parseOfferQuery(text, options), query, text);
      }),
      { numRuns: 800 },
    );
  });

  // Query texts as people type them: any operator spelling, optional spaces, aliases, lists, quotes.
  const space = fc.constantFrom(' ', '  ', '\t');
  const maybeSpace = fc.constantFrom('', ' ');
  const bareWord = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.:-]{0,9}$/).filter((word) => !['any'].includes(word));
  const numberText = fc.oneof(
    // Typed in user units, so keep clear of the double range: 1e306 GB does not fit in MB (tested above).
    fc.double({ noNaN: true, min: -1e300, max: 1e300 }).map(String),
    fc.integer({ min: -1000, max: 100_000 }).map(String),
    fc.constantFrom('0.5', '.25', '1e3', '-0', '+7', '24', '0.98', '1.005', '007'),
  );
  const quotedText = fc.string({ maxLength: 10 }).map((s) => `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`);
  const scalarText = fc.oneof(
    bareWord,
    numberText,
    quotedText,
    fc.constantFrom('true', 'True', 'false', 'False', 'None', 'null', 'RTX_4090', '535.86.05', '570.124.04'),
  );
  const listText = fc
    .tuple(fc.array(scalarText, { maxLength: 4 }), fc.constantFrom(',', ', ', ' , '))
    .map(([items, separator]) => `[${items.join(separator)}]`);
  const typedField = fc.oneof(fieldName, fc.constantFrom(...OFFER_QUERY_ALIASES.keys()));
  const symbolOp = fc.constantFrom('<', '<=', '=', '==', '!=', '>=', '>');
  const wordOp = fc.constantFrom('eq', 'neq', 'noteq', 'not eq', 'gt', 'gte', 'lt', 'lte', 'GT');
  const listOp = fc.constantFrom('in', 'notin', 'nin', 'not in', 'IN');
  const clause = fc.oneof(
    fc.tuple(typedField, maybeSpace, symbolOp, maybeSpace, scalarText).map((parts) => parts.join('')),
    fc.tuple(typedField, space, wordOp, space, scalarText).map((parts) => parts.join('')),
    fc.tuple(typedField, space, listOp, maybeSpace, listText).map((parts) => parts.join('')),
    fc.tuple(typedField, fc.constantFrom('=any', '=*', '=?', ' == any')).map((parts) => parts.join('')),
    fc
      .constantFrom('type', 'type ')
      .chain((key) => fc.constantFrom('on-demand', 'ondemand', 'interruptible', 'bid', 'reserved', 'any').map((v) => `${key}=${v}`)),
    fc
      .array(fc.tuple(typedField, fc.constantFrom('', '+', '-')), { minLength: 1, maxLength: 3 })
      .map((items) => `order=${items.map(([name, dir]) => name + dir).join(',')}`),
    fc.oneof(fc.integer({ min: 1, max: MAX_OFFER_LIMIT }).map(String), fc.constant('any')).map((v) => `limit=${v}`),
    fc.oneof(fc.constantFrom('8', '0.5', '64.25', '1e3', '100000', 'any')).map((v) => `allocated_storage=${v}`),
  );
  const queryText = fc.tuple(fc.array(clause, { maxLength: 8 }), space).map(([clauses, separator]) => clauses.join(separator));

  it('parses typed queries, and print then parse is stable', () => {
    fc.assert(
      fc.property(queryText, fc.boolean(), (text, withDefaults) => {
        const options = withDefaults ? { defaults: DEFAULTS } : {};
        const first = parseOfferQuery(text, options);
        const printed = printOfferQuery(first, options);
        const second = parseOfferQuery(printed, options);
        assert.deepStrictEqual(second, first, `${text}\n -> ${printed}`);
        assert.equal(printOfferQuery(second, options), printed, 'printing is canonical');
      }),
      { numRuns: 1500 },
    );
  });

  it('reports every error with a position inside the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab_1. =<>!["],\\-'), maxLength: 24 }), (text) => {
        try {
          parseOfferQuery(text);
        } catch (e) {
          assert.ok(e instanceof OfferQueryError, String(e));
          assert.ok(e.position >= 0 && e.position <= text.length, `${JSON.stringify(text)}: ${e.message}`);
          assert.ok(e.length >= 1);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the operator order of FILTER_OPS when printing several on one field', () => {
    const all: FieldFilter = { notin: [1], in: [2], lte: 3, lt: 4, gte: 5, gt: 6, neq: 7, eq: 8 };
    const text = printOfferQuery({ filters: { x: all }, order: [], type: 'on-demand' });
    assert.equal(text, 'x=8 x!=7 x>6 x>=5 x<4 x<=3 x in [2] x notin [1]');
    assert.deepStrictEqual(Object.keys(parseOfferQuery(text).filters.x ?? {}), [...FILTER_OPS]);
  });
});
