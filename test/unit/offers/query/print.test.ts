import assert from 'node:assert/strict';
import { parseOfferQuery } from '../../../../src/core/offers/query/parse';
import { printOfferQuery } from '../../../../src/core/offers/query/print';
import type { FieldFilter, FilterScalar, OfferFilters, OfferQuery } from '../../../../src/core/api/offerQuery';
import { DEFAULTS } from './cliDefaults';

describe('offer query language: printing', () => {
  it('prints the documented example back as the user would write it', () => {
    const text = 'gpu_name=RTX_4090 num_gpus>=2 dph_total<1.5 reliability>0.98 verified=true geolocation in [US,CA]';
    assert.equal(printOfferQuery(parseOfferQuery(text)), text);
  });

  it('prints in user units and API names', () => {
    const query: OfferQuery = {
      filters: {
        gpu_ram: { gte: 24_000, lt: 80_500 },
        cpu_ram: { in: [64_000, 1005] },
        duration: { gte: 43_200 },
        driver_version: { gte: 535_086_005, neq: 5 },
        cuda_max_good: { gte: 12.1 },
        dph_total: { lt: 1 },
      },
      order: [
        ['dph_total', 'asc'],
        ['reliability', 'desc'],
      ],
      type: 'bid',
    };
    assert.equal(
      printOfferQuery(query),
      'gpu_ram>=24 gpu_ram<80.5 cpu_ram in [64,1.005] duration>=0.5 driver_version!=0.0.05 driver_version>=535.86.05 cuda_max_good>=12.1 dph_total<1 type=interruptible order=dph_total,reliability-',
    );
    assert.equal(printOfferQuery({ filters: {}, order: [], type: 'reserved' }), 'type=reserved');
    assert.equal(printOfferQuery({ filters: {}, order: [], type: 'on-demand' }), '');
  });

  it('quotes strings only when a bare word would read differently', () => {
    const cases: Array<[FilterScalar, string]> = [
      ['RTX 4090', 'RTX_4090'],
      ['amd64', 'amd64'],
      ['a_b', '"a_b"'],
      ['a_b c', '"a_b c"'],
      ['true', '"true"'],
      ['None', '"None"'],
      ['2', '"2"'],
      ['-1e5', '"-1e5"'],
      ['any', '"any"'],
      ['*', '"*"'],
      ['', '""'],
      ['x=y', '"x=y"'],
      ['say "hi"', String.raw`"say \"hi\""`],
      ['C:\\', String.raw`"C:\\"`],
      ['two\tparts', '"two\tparts"'],
      ['Zürich', 'Zürich'],
      [' lead', '_lead'],
      [null, 'null'],
      [false, 'false'],
      [-0, '-0'],
      [1e21, '1e+21'],
    ];
    for (const [value, text] of cases) {
      assert.equal(printOfferQuery({ filters: { x: { eq: value } }, order: [], type: 'on-demand' }), `x=${text}`, String(value));
    }
    assert.equal(
      printOfferQuery({ filters: { driver_version: { eq: '535.86.05' } }, order: [], type: 'on-demand' }),
      'driver_version="535.86.05"',
    );
    assert.equal(printOfferQuery({ filters: { gpu_ram: { eq: '24' } }, order: [], type: 'on-demand' }), 'gpu_ram="24"');
    assert.equal(
      printOfferQuery({ filters: { gpu_name: { notin: ['RTX 4090', 'a,b', 'any', 7] } }, order: [], type: 'on-demand' }),
      'gpu_name notin [RTX_4090,"a,b","any",7]',
    );
  });

  it('with defaults, leaves unchanged ones out and writes =any for dropped ones', () => {
    const query = parseOfferQuery('verified=false rented=any num_gpus>=2', { defaults: DEFAULTS });
    const text = printOfferQuery(query, { defaults: DEFAULTS });
    assert.equal(text, 'verified=false rented=any num_gpus>=2');
    assert.deepStrictEqual(parseOfferQuery(text, { defaults: DEFAULTS }), query);
    assert.equal(printOfferQuery(parseOfferQuery('', { defaults: DEFAULTS }), { defaults: DEFAULTS }), '');
    // Without the defaults, everything is written.
    assert.equal(printOfferQuery(parseOfferQuery('', { defaults: DEFAULTS })), 'verified=true rentable=true external=false rented=false');
    // A default operator that is gone can only be undone by dropping the field first.
    const ranges: OfferFilters = { num_gpus: { gte: 1, lte: 8 } };
    const narrowed: OfferQuery = { filters: { num_gpus: { gte: 1 } }, order: [], type: 'on-demand' };
    assert.equal(printOfferQuery(narrowed, { defaults: ranges }), 'num_gpus=any num_gpus>=1');
    assert.equal(printOfferQuery({ ...narrowed, filters: { num_gpus: { gte: 1, lte: 4 } } }, { defaults: ranges }), 'num_gpus<=4');
  });

  it('refuses queries the language cannot express', () => {
    const bad: Array<[string, OfferQuery]> = [
      ['NaN', { filters: { x: { eq: Number.NaN } }, order: [], type: 'on-demand' }],
      ['Infinity', { filters: { gpu_ram: { gt: Infinity } }, order: [], type: 'on-demand' }],
      ['field with a space', { filters: { 'a b': { eq: 1 } }, order: [], type: 'on-demand' }],
      ['alias as a field', { filters: { dph: { eq: 1 } }, order: [], type: 'on-demand' }],
      ['type as a field', { filters: { type: { eq: 'bid' } }, order: [], type: 'on-demand' }],
      ['list under eq', { filters: { x: { eq: [1] } }, order: [], type: 'on-demand' }],
      ['scalar under in', { filters: { x: { in: 1 } }, order: [], type: 'on-demand' }],
      ['no operators', { filters: { x: {} }, order: [], type: 'on-demand' }],
      ['unknown operator', { filters: { x: { like: 'a' } as FieldFilter }, order: [], type: 'on-demand' }],
      ['alias in order', { filters: {}, order: [['dph', 'asc']], type: 'on-demand' }],
      ['bad type', { filters: {}, order: [], type: 'spot' as OfferQuery['type'] }],
    ];
    for (const [what, query] of bad) assert.throws(() => printOfferQuery(query), RangeError, what);
  });
});
