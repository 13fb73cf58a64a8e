import assert from 'node:assert/strict';
import { OfferQueryError, analyzeOfferQuery, parseOfferQuery } from '../../../../src/core/offers/query/parse';
import { printOfferQuery } from '../../../../src/core/offers/query/print';
import { MAX_ALLOCATED_STORAGE_GB, MAX_OFFER_LIMIT } from '../../../../src/core/offers/query/syntax';
import type { FieldFilter, OfferFilters } from '../../../../src/core/api/offerQuery';
import { DEFAULTS } from './cliDefaults';

const filtersOf = (text: string, defaults?: OfferFilters) => parseOfferQuery(text, { defaults }).filters;

/** Asserts that `text` fails with an OfferQueryError at the given 1-based column. */
function assertError(text: string, column: number, message: RegExp, length?: number): OfferQueryError {
  let caught: unknown;
  try {
    parseOfferQuery(text);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof OfferQueryError, `${JSON.stringify(text)} should fail, got ${String(caught)}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, 'OfferQueryError');
  assert.equal(caught.column, column, `${JSON.stringify(text)}: ${caught.message}`);
  assert.equal(caught.position, column - 1);
  assert.ok(caught.message.startsWith(`at column ${column}: `), caught.message);
  assert.match(caught.message, message);
  if (length !== undefined) assert.equal(caught.length, length, `${JSON.stringify(text)}: length`);
  return caught;
}

describe('offer query language: parsing', () => {
  it('reads the documented example exactly', () => {
    const query = parseOfferQuery('gpu_name=RTX_4090 num_gpus>=2 dph_total<1.5 reliability>0.98 verified=true geolocation in [US,CA]');
    assert.deepStrictEqual(query, {
      filters: {
        gpu_name: { eq: 'RTX 4090' },
        num_gpus: { gte: 2 },
        dph_total: { lt: 1.5 },
        reliability: { gt: 0.98 },
        verified: { eq: true },
        geolocation: { in: ['US', 'CA'] },
      },
      order: [],
      type: 'on-demand',
    });
  });

  it('gives an empty query for blank text, and only the defaults when there are some', () => {
    assert.deepStrictEqual(parseOfferQuery(''), { filters: {}, order: [], type: 'on-demand' });
    assert.deepStrictEqual(parseOfferQuery('  \t \n'), { filters: {}, order: [], type: 'on-demand' });
    assert.deepStrictEqual(filtersOf('', DEFAULTS), DEFAULTS);
  });

  it('allows whitespace around operators or none', () => {
    for (const text of ['num_gpus>=2', 'num_gpus >= 2', 'num_gpus>= 2', 'num_gpus >=2', '  num_gpus\t>=\t2  ', 'num_gpus  >=  2']) {
      assert.deepStrictEqual(filtersOf(text), { num_gpus: { gte: 2 } }, text);
    }
    assert.deepStrictEqual(filtersOf('geolocation in[US] gpu_name notin["A 1"]'), {
      geolocation: { in: ['US'] },
      gpu_name: { notin: ['A 1'] },
    });
  });

  it('accepts every operator spelling of the CLI', () => {
    const scalar: Array<[string, keyof FieldFilter]> = [
      ['<', 'lt'],
      ['<=', 'lte'],
      ['=', 'eq'],
      ['==', 'eq'],
      ['!=', 'neq'],
      ['>=', 'gte'],
      ['>', 'gt'],
      [' eq ', 'eq'],
      [' neq ', 'neq'],
      [' noteq ', 'neq'],
      [' not eq ', 'neq'],
      [' gt ', 'gt'],
      [' gte ', 'gte'],
      [' lt ', 'lt'],
      [' lte ', 'lte'],
      [' GTE ', 'gte'],
    ];
    for (const [spelling, op] of scalar) {
      assert.deepStrictEqual(filtersOf(`num_gpus${spelling}4`), { num_gpus: { [op]: 4 } }, spelling);
    }
    const list: Array<[string, keyof FieldFilter]> = [
      ['in', 'in'],
      ['notin', 'notin'],
      ['nin', 'notin'],
      ['not in', 'notin'],
      ['not  in', 'notin'],
      ['NOT IN', 'notin'],
      ['In', 'in'],
    ];
    for (const [spelling, op] of list) {
      assert.deepStrictEqual(filtersOf(`num_gpus ${spelling} [1, 2]`), { num_gpus: { [op]: [1, 2] } }, spelling);
    }
  });

  it('types values: booleans, null, numbers and strings with underscores as spaces', () => {
    assert.deepStrictEqual(filtersOf('a=true b=True c=false d=False e=None f=null'), {
      a: { eq: true },
      b: { eq: true },
      c: { eq: false },
      d: { eq: false },
      e: { eq: null },
      f: { eq: null },
    });
    assert.deepStrictEqual(filtersOf('a=2 b=-1.5 c=.5 d=1e3 e=+7 f=0.98 g=007'), {
      a: { eq: 2 },
      b: { eq: -1.5 },
      c: { eq: 0.5 },
      d: { eq: 1000 },
      e: { eq: 7 },
      f: { eq: 0.98 },
      g: { eq: 7 },
    });
    assert.deepStrictEqual(filtersOf('gpu_name=RTX_A6000 cpu_arch=amd64 os_version=Ubuntu_22.04 x=TRUE y=0x10'), {
      gpu_name: { eq: 'RTX A6000' },
      cpu_arch: { eq: 'amd64' },
      os_version: { eq: 'Ubuntu 22.04' },
      x: { eq: 'TRUE' },
      y: { eq: '0x10' },
    });
  });

  it('keeps quoted values verbatim: spaces, underscores, keywords and digits stay strings', () => {
    assert.deepStrictEqual(filtersOf('gpu_name="RTX 4090" disk_name="a_b" a="true" b="2" c="any" d="" e="x=y [z]"'), {
      gpu_name: { eq: 'RTX 4090' },
      disk_name: { eq: 'a_b' },
      a: { eq: 'true' },
      b: { eq: '2' },
      c: { eq: 'any' },
      d: { eq: '' },
      e: { eq: 'x=y [z]' },
    });
    assert.deepStrictEqual(filtersOf(String.raw`a="say \"hi\"" b="C:\temp\\" c="\\"`), {
      a: { eq: 'say "hi"' },
      b: { eq: 'C:\\temp\\' },
      c: { eq: '\\' },
    });
  });

  it('reads lists with spaces, quotes and typed items', () => {
    assert.deepStrictEqual(
      filtersOf('gpu_name in [ RTX_4090 , "RTX 3090", A100 SXM4 ] num_gpus notin [1,8] x in [true,null,"a,b"] y in []'),
      {
        gpu_name: { in: ['RTX 4090', 'RTX 3090', 'A100 SXM4'] },
        num_gpus: { notin: [1, 8] },
        x: { in: [true, null, 'a,b'] },
        y: { in: [] },
      },
    );
  });

  it('converts GB to MB for cpu_ram, gpu_ram and gpu_total_ram, and days to seconds for duration', () => {
    assert.deepStrictEqual(filtersOf('gpu_ram>=24'), { gpu_ram: { gte: 24_000 } });
    assert.deepStrictEqual(filtersOf('cpu_ram>64 gpu_total_ram<=80.5 duration>=3 gpu_ram in [24, 48]'), {
      cpu_ram: { gt: 64_000 },
      gpu_total_ram: { lte: 80_500 },
      duration: { gte: 259_200 },
      gpu_ram: { in: [24_000, 48_000] },
    });
    // Scaled as decimals, so no float noise: 1.005 * 1000 would be 1004.9999999999999.
    assert.deepStrictEqual(filtersOf('cpu_ram=1.005 duration<0.5'), { cpu_ram: { eq: 1005 }, duration: { lt: 43_200 } });
    // Only numbers are scaled.
    assert.deepStrictEqual(filtersOf('gpu_ram=lots gpu_total_ram="24"'), { gpu_ram: { eq: 'lots' }, gpu_total_ram: { eq: '24' } });
    // Other fields keep their number as typed.
    assert.deepStrictEqual(filtersOf('disk_space>=24 dph_total<2'), { disk_space: { gte: 24 }, dph_total: { lt: 2 } });
  });

  it('packs driver versions into an integer with three-digit parts', () => {
    assert.deepStrictEqual(filtersOf('driver_version>=535.86.05'), { driver_version: { gte: 535_086_005 } });
    assert.deepStrictEqual(filtersOf('driver_version in [570.124.04, 550.54.15]'), { driver_version: { in: [570_124_004, 550_054_015] } });
    assert.deepStrictEqual(filtersOf('driver_version=535086005 other_version=535.86.05 driver_version<"560.1.2"'), {
      driver_version: { eq: 535_086_005, lt: '560.1.2' },
      other_version: { eq: '535.86.05' },
    });
  });

  it('maps the CLI aliases to API names', () => {
    assert.deepStrictEqual(filtersOf('cuda_vers>=12.1 display_active=false dlperf_usd>100 dph<0.8 flops_usd>=50'), {
      cuda_max_good: { gte: 12.1 },
      gpu_display_active: { eq: false },
      dlperf_per_dphtotal: { gt: 100 },
      dph_total: { lt: 0.8 },
      flops_per_dphtotal: { gte: 50 },
    });
    assert.deepStrictEqual(filtersOf('dph>0.2 dph_total<1'), { dph_total: { gt: 0.2, lt: 1 } });
  });

  it('merges operators on the same field, the last one of each kind winning', () => {
    assert.deepStrictEqual(filtersOf('dph_total>0.2 dph_total<1'), { dph_total: { gt: 0.2, lt: 1 } });
    assert.deepStrictEqual(filtersOf('num_gpus>1 num_gpus>3 num_gpus=2 num_gpus==4'), { num_gpus: { gt: 3, eq: 4 } });
    assert.deepStrictEqual(filtersOf('geolocation in [US] geolocation in [CA,DE]'), { geolocation: { in: ['CA', 'DE'] } });
  });

  it('puts the defaults first and lets the text change them', () => {
    const defaults = structuredClone(DEFAULTS);
    assert.deepStrictEqual(filtersOf('verified=false num_gpus>1 rented!=true', defaults), {
      verified: { eq: false },
      rentable: { eq: true },
      external: { eq: false },
      rented: { eq: false, neq: true },
      num_gpus: { gt: 1 },
    });
    assert.deepStrictEqual(defaults, DEFAULTS, 'the defaults object is not modified');
    const query = parseOfferQuery('', { defaults });
    (query.filters.verified as FieldFilter).eq = false;
    assert.deepStrictEqual(defaults, DEFAULTS, 'the result does not share objects with the defaults');
  });

  it('drops a filter, default or not, with any, * or ?', () => {
    assert.deepStrictEqual(filtersOf('verified=any rentable=* external=? num_gpus>=2', DEFAULTS), {
      rented: { eq: false },
      num_gpus: { gte: 2 },
    });
    assert.deepStrictEqual(filtersOf('dph_total>0.2 dph_total<1 dph=any'), {});
    assert.deepStrictEqual(filtersOf('num_gpus=any num_gpus>2'), { num_gpus: { gt: 2 } }, 'later conditions apply again');
    assert.deepStrictEqual(filtersOf('verified == any rented eq any', DEFAULTS), { rentable: { eq: true }, external: { eq: false } });
    assert.deepStrictEqual(filtersOf('never_set=any'), {});
    assert.deepStrictEqual(filtersOf('gpu_name in [any, "*"]'), { gpu_name: { in: ['any', '*'] } }, 'inside a list it is a plain word');
  });

  it('reads type, mapping interruptible to bid', () => {
    const typeOf = (text: string) => parseOfferQuery(text).type;
    assert.equal(typeOf('num_gpus=1'), 'on-demand');
    assert.equal(typeOf('type=on-demand'), 'on-demand');
    assert.equal(typeOf('type=ondemand'), 'on-demand');
    assert.equal(typeOf('type=interruptible'), 'bid');
    assert.equal(typeOf('type=bid'), 'bid');
    assert.equal(typeOf('type=reserved'), 'reserved');
    assert.equal(typeOf('type = Interruptible'), 'bid');
    assert.equal(typeOf('type="reserved"'), 'reserved');
    assert.equal(typeOf('type=bid type=reserved'), 'reserved');
    assert.equal(typeOf('type=bid type=any'), 'on-demand');
    assert.deepStrictEqual(parseOfferQuery('type=bid').filters, {}, 'type is not a filter');
  });

  it('reads order in the -o syntax, with aliases', () => {
    const orderOf = (text: string) => parseOfferQuery(text).order;
    assert.deepStrictEqual(orderOf('num_gpus=1'), []);
    assert.deepStrictEqual(orderOf('order=dph_total,reliability-'), [
      ['dph_total', 'asc'],
      ['reliability', 'desc'],
    ]);
    assert.deepStrictEqual(orderOf('order=num_gpus+,dph-,dlperf_usd'), [
      ['num_gpus', 'asc'],
      ['dph_total', 'desc'],
      ['dlperf_per_dphtotal', 'asc'],
    ]);
    assert.deepStrictEqual(orderOf('order="score-, num_gpus"'), [
      ['score', 'desc'],
      ['num_gpus', 'asc'],
    ]);
    assert.deepStrictEqual(orderOf('order=score- order=dph'), [['dph_total', 'asc']]);
    assert.deepStrictEqual(orderOf('order=score- order=any'), []);
    assert.deepStrictEqual(parseOfferQuery('order=score-').filters, {}, 'order is not a filter');
  });

  it('reads limit and allocated_storage as settings of the search, not filters', () => {
    assert.deepStrictEqual(parseOfferQuery('num_gpus>=2 limit=20 allocated_storage=64.5'), {
      filters: { num_gpus: { gte: 2 } },
      order: [],
      type: 'on-demand',
      limit: 20,
      allocatedStorage: 64.5,
    });
    assert.deepStrictEqual(parseOfferQuery('limit=20 limit=5').limit, 5, 'the last one wins');
    assert.deepStrictEqual(parseOfferQuery('limit=20 limit=any'), { filters: {}, order: [], type: 'on-demand' });
    assert.deepStrictEqual(
      parseOfferQuery(`limit=${MAX_OFFER_LIMIT} allocated_storage=${MAX_ALLOCATED_STORAGE_GB}`).limit,
      MAX_OFFER_LIMIT,
    );
    assert.deepStrictEqual(analyzeOfferQuery('limit=3 allocated_storage=8').unknownFields, [], 'known keys');
  });

  it('passes unknown fields through and reports where they are', () => {
    const analysis = analyzeOfferQuery('num_gpus=1 brand_new_field>=3 dph<1 type=bid mystery in [a_b]');
    assert.deepStrictEqual(analysis.query.filters, {
      num_gpus: { eq: 1 },
      brand_new_field: { gte: 3 },
      dph_total: { lt: 1 },
      mystery: { in: ['a b'] },
    });
    assert.deepStrictEqual(analysis.unknownFields, [
      { name: 'brand_new_field', position: 11, length: 15 },
      { name: 'mystery', position: 45, length: 7 },
    ]);
  });

  it('handles field names that are also Object.prototype members', () => {
    const filters = filtersOf('__proto__=1 constructor=2 toString in [3]');
    assert.deepStrictEqual(Object.keys(filters), ['__proto__', 'constructor', 'toString']);
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(filters, '__proto__')?.value, { eq: 1 });
    assert.equal(Object.getPrototypeOf(filters), Object.prototype);
    assert.equal(printOfferQuery({ filters, order: [], type: 'on-demand' }), '__proto__=1 constructor=2 toString in [3]');
  });
});

describe('offer query language: errors', () => {
  it('rejects an unknown operator, at the operator', () => {
    const e = assertError(
      'num_gpus>=2 dph_total=>1',
      22,
      /^at column 22: unknown operator '=>' \(use one of = != < <= > >= in notin\)$/,
      2,
    );
    assert.equal(e.problem, "unknown operator '=>' (use one of = != < <= > >= in notin)");
    assertError('num_gpus=<2', 9, /unknown operator '=<'/, 2);
    assertError('num_gpus===2', 9, /unknown operator '==='/, 3);
    assertError('num_gpus<>2', 9, /unknown operator '<>'/, 2);
    assertError('num_gpus gtt 2', 10, /unknown operator 'gtt'/, 3);
    assertError('num_gpus gte2', 10, /unknown operator 'gte2'/, 4);
    assertError('num_gpus not 2', 10, /unknown operator 'not'/, 3);
    assertError('num_gpus:2', 9, /unknown operator ':'/, 1);
    assertError('gpu_name RTX_4090', 10, /unknown operator 'RTX_4090'/, 8);
    assertError('  num_gpus ~ 2', 12, /unknown operator '~'/);
  });

  it('rejects a field without an operator', () => {
    assertError('verified=true num_gpus', 15, /'num_gpus' needs an operator and a value/, 8);
    assertError('num_gpus   ', 1, /'num_gpus' needs an operator/);
  });

  it('rejects a blank value, pointing at the operator', () => {
    assertError('num_gpus>=', 9, /^at column 9: missing value after '>='$/, 2);
    assertError('num_gpus >=   ', 10, /missing value after '>='/);
    assertError('geolocation in', 13, /missing value after 'in'/, 2);
    assertError('num_gpus>= verified=true', 9, /missing value after '>='/);
  });

  it('rejects an unterminated quote, at the opening quote', () => {
    assertError('gpu_name="RTX 4090 num_gpus=1', 10, /unterminated quote/, 1);
    assertError('a=1 b="x\\"', 7, /unterminated quote/);
    assertError('gpu_name in ["A", "B]', 19, /unterminated quote/);
  });

  it('rejects an unterminated list, at the opening bracket', () => {
    assertError('geolocation in [US,CA num_gpus=1', 16, /unterminated list/, 1);
    assertError('geolocation in [', 16, /unterminated list/);
    assertError('geolocation in ["US"', 16, /unterminated list/);
  });

  it('rejects a list with a non-list operator', () => {
    assertError('num_gpus>=[1,2]', 11, /a list in brackets needs 'in' or 'notin', not '>='/, 5);
    assertError('gpu_name = [A, B]', 12, /needs 'in' or 'notin', not '='/);
  });

  it('rejects a non-list value with in and notin', () => {
    assertError('geolocation in US', 16, /'in' needs a list in brackets, e.g. geolocation in \[US\]/, 2);
    assertError('gpu_name notin "RTX 4090"', 16, /'notin' needs a list/);
    assertError('num_gpus not in 3', 17, /'not in' needs a list/);
  });

  it('rejects malformed values and lists', () => {
    assertError('=2', 1, /expected a field name, found '=2'/, 2);
    assertError('num_gpus=2 >=3', 12, /expected a field name/);
    assertError('num_gpus=2 "x"=1', 12, /expected a field name/);
    assertError('gpu_name=a=b', 11, /unexpected '=' in value 'a=b'/);
    assertError('gpu_name=RTX"4090"', 13, /unexpected '"' in value/);
    assertError('gpu_name="A"x', 13, /expected a space after the closing quote/);
    assertError('geolocation in [US]x', 20, /expected a space after '\]'/);
    assertError('geolocation in [US,,CA]', 20, /empty item in list/);
    assertError('geolocation in [US,]', 20, /empty item in list/);
    assertError('geolocation in [US "CA"]', 20, /unexpected '"' in a list item/);
    assertError('geolocation in ["US" CA]', 22, /expected ',' or '\]' in list, found 'C'/);
    assertError('num_gpus=1e999', 10, /number '1e999' is too large/, 5);
    assertError('gpu_ram>=1e306', 10, /number '1e306' is too large/, 5);
  });

  it('rejects any with an operator other than =', () => {
    assertError('num_gpus>any', 10, /'any' removes the filter on 'num_gpus' and only works with '=', not '>'/, 3);
    assertError('verified != *', 13, /'\*' removes the filter/);
    assertError('geolocation in any', 16, /'any' removes the filter/);
  });

  it('rejects a limit or allocated_storage that is not a positive number in range, at the value', () => {
    assertError('limit=0', 7, /'limit' takes a whole number of offers from 1 to 1000, not '0'/, 1);
    assertError('limit=2.5', 7, /'limit' takes a whole number/);
    assertError('limit=-3', 7, /'limit' takes a whole number/);
    assertError('limit=1001', 7, /not '1001'/);
    assertError('limit=ten', 7, /not 'ten'/);
    assertError('limit="20"', 7, /'limit' takes a whole number/);
    assertError('limit>=20', 6, /'limit' only takes '=', not '>='/);
    assertError(
      'num_gpus=1 allocated_storage=0',
      30,
      /'allocated_storage' takes a disk size in GB, more than 0 and at most 100000, not '0'/,
    );
    assertError('allocated_storage=-5', 19, /more than 0/);
    assertError('allocated_storage=1e9', 19, /at most 100000/);
    assertError('allocated_storage=true', 19, /not 'true'/);
    assertError('allocated_storage in [1,2]', 19, /only takes '='/);
  });

  it('rejects bad type and order values', () => {
    assertError('type=spot', 6, /unknown offer type 'spot' \(use on-demand, interruptible or reserved\)/, 4);
    assertError('type>=bid', 5, /'type' only takes '=', not '>='/);
    assertError('type in [bid]', 6, /'type' only takes '='/);
    assertError('order=[dph]', 7, /'order' does not take a list/);
    assertError('order=dph_total,-reliability', 17, /bad sort field '-reliability'/, 12);
    assertError('order=dph_total,,score', 17, /empty field name in order/);
    assertError('order=dph_total, reliability-', 16, /order ends with ','/);
    assertError('order="a, b c"', 11, /bad sort field 'b c'/);
  });
});
