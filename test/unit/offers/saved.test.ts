import assert from 'node:assert/strict';
import {
  MAX_SEEN_IDS,
  checkCeilingValue,
  findSearch,
  parseCeiling,
  removeSearch,
  saveSearch,
  savedSearchRequest,
  unwatched,
  updateSearch,
  validateCeiling,
  validateSearchName,
  watchedSearches,
  withSeen,
  type SavedSearch,
} from '../../../src/core/offers/saved';
import { readStored } from '../../../src/core/state/storedState';
import { STORED } from '../../../src/core/stored';

const watch = { ceilingPerHour: 0.6, baseUrl: 'https://console.example.com', profileId: 'default', since: 1 };

describe('saved searches', () => {
  it('validates names: trimmed, not empty, not too long, no control characters', () => {
    assert.equal(validateSearchName('Cheap 4090'), undefined);
    assert.match(validateSearchName('   ') ?? '', /name/);
    assert.match(validateSearchName('x'.repeat(61)) ?? '', /60/);
    assert.match(validateSearchName('a\nb') ?? '', /letters/);
  });

  it('validates ceilings in $/h', () => {
    assert.equal(validateCeiling('0.60'), undefined);
    assert.equal(validateCeiling('$1.5'), undefined);
    assert.ok(validateCeiling('0'));
    assert.ok(validateCeiling('-1'));
    assert.ok(validateCeiling('cheap'));
    assert.ok(validateCeiling(''));
    assert.ok(validateCeiling('5000'));
  });

  it('refuses a ceiling in hexadecimal, binary, octal or with an exponent, and reads what it takes as typed', () => {
    const hint = 'Enter a price in dollars per hour above $0 and at most $1000.00, such as 0.60.';
    for (const text of ['0x10', '0b1', '0o7', '1e2', '$0x10', '-0.5', 'Infinity', '0,60', '0_60', '']) {
      assert.equal(validateCeiling(text), hint, text);
      assert.throws(() => parseCeiling(text), RangeError, text);
    }
    assert.equal(validateCeiling('0'), 'Enter a price above $0/h.');
    assert.equal(validateCeiling('1000.01'), 'Enter at most $1000.00/h.');
    for (const [text, value] of [
      ['0.60', 0.6],
      [' $1.5 ', 1.5],
      ['.6', 0.6],
      ['1000', 1000],
    ] as const) {
      assert.equal(validateCeiling(text), undefined, text);
      assert.equal(parseCeiling(text), value, text);
    }
    // A ceiling a command is given as a number is held to the same bounds.
    assert.equal(checkCeilingValue(0.6), undefined);
    assert.equal(checkCeilingValue(16), undefined);
    assert.ok(checkCeilingValue(0));
    assert.ok(checkCeilingValue(Number.NaN));
    assert.ok(checkCeilingValue(Number.POSITIVE_INFINITY));
  });

  it('adds, replaces by name without case, and removes', () => {
    let list = saveSearch([], { name: ' A ', query: 'num_gpus=2', sort: 'price' });
    list = saveSearch(list, { name: 'B', query: '', sort: 'value' });
    assert.deepEqual(
      list.map((s) => s.name),
      ['A', 'B'],
    );
    list = saveSearch(list, { name: 'a', query: 'num_gpus=4', sort: 'value' });
    assert.deepEqual(
      list.map((s) => [s.name, s.query]),
      [
        ['a', 'num_gpus=4'],
        ['B', ''],
      ],
    );
    assert.equal(findSearch(list, 'b ')?.name, 'B');
    assert.deepEqual(
      removeSearch(list, 'A').map((s) => s.name),
      ['B'],
    );
  });

  it('refuses to save a query that does not parse, or a bad name', () => {
    assert.throws(() => saveSearch([], { name: 'x', query: 'num_gpus>>', sort: 'value' }));
    assert.throws(() => saveSearch([], { name: '', query: '', sort: 'value' }));
  });

  it('watches and unwatches one search, leaving the rest', () => {
    const list: SavedSearch[] = [
      { name: 'A', query: '', sort: 'value' },
      { name: 'B', query: '', sort: 'value' },
    ];
    const watched = updateSearch(list, 'b', (s) => ({ ...s, watch }));
    assert.deepEqual(
      watchedSearches(watched).map((s) => s.name),
      ['B'],
    );
    assert.deepEqual(unwatched(watched[1]!), { name: 'B', query: '', sort: 'value' });
  });

  it('sends the query and sort, one page, and the ceiling as dph_total lte', () => {
    const plain = savedSearchRequest({ name: 'A', query: 'num_gpus=2', sort: 'price' });
    assert.deepEqual(plain.query.filters['num_gpus'], { eq: 2 });
    assert.equal(plain.query.filters['dph_total'], undefined);
    assert.deepEqual(plain.query.order, [['dph_total', 'asc']]);
    assert.equal(plain.limit, 50);
    const watched = savedSearchRequest({ name: 'A', query: 'num_gpus=2', sort: 'price', watch });
    assert.deepEqual(watched.query.filters['dph_total'], { lte: 0.6 });
    assert.deepEqual(watched.query.filters['num_gpus'], { eq: 2 });
  });

  it('keeps the lower of the query’s own price ceiling and the watch’s, and its other price bounds', () => {
    const lower = savedSearchRequest({ name: 'A', query: 'dph_total<=0.4', sort: 'price', watch });
    assert.deepEqual(lower.query.filters['dph_total'], { lte: 0.4 });
    const floor = savedSearchRequest({ name: 'A', query: 'dph_total>0.1', sort: 'price', watch });
    assert.deepEqual(floor.query.filters['dph_total'], { gt: 0.1, lte: 0.6 });
  });

  it('keeps seen ids once each, newest last, at most MAX_SEEN_IDS', () => {
    const seen = withSeen({ since: 1, ids: [1, 2] }, [2, 3, 3, 4]);
    assert.deepEqual(seen, { since: 1, ids: [1, 2, 3, 4] });
    const many = withSeen(
      seen,
      Array.from({ length: MAX_SEEN_IDS }, (_, i) => 100 + i),
    );
    assert.equal(many.ids.length, MAX_SEEN_IDS);
    assert.equal(many.ids[0], 100);
  });

  it('reads stored searches item by item: a damaged search is dropped, a damaged watch only loses the watch', () => {
    const read = readStored(STORED.savedSearches, [
      { name: 'A', query: 'num_gpus=2', sort: 'price', watch },
      { name: 'B', query: 7, sort: 'price' },
      { name: 'C', query: '', sort: 'nonsense' },
      { name: '', query: '', sort: 'value' },
      { name: 'D', query: '', sort: 'value', watch: { ceilingPerHour: 'cheap' } },
    ]);
    assert.deepEqual(read.value, [
      { name: 'A', query: 'num_gpus=2', sort: 'price', watch },
      { name: 'D', query: '', sort: 'value' },
    ]);
    const seen = readStored(STORED.watchSeen, { a: { since: 1, ids: [1] }, b: { since: 'x', ids: [] }, c: 4 });
    assert.deepEqual(seen.value, { a: { since: 1, ids: [1] } });
  });
});
