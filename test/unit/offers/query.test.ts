import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_ALLOCATED_STORAGE_GB,
  MAX_OFFER_LIMIT,
  OFFER_QUERY_ALIASES,
  OFFER_QUERY_FIELDS,
  OfferQueryError,
  analyzeOfferQuery,
  parseOfferQuery,
  printOfferQuery,
} from '../../../src/core/offers/query';
import {
  FILTER_OPS,
  OFFER_TYPES,
  type FieldFilter,
  type FilterScalar,
  type OfferFilters,
  type OfferQuery,
} from '../../../src/core/offers/types';

/** What the CLI and SDK add unless told not to. */
const DEFAULTS: OfferFilters = {
  verified: { eq: true },
  rentable: { eq: true },
  external: { eq: false },
  rented: { eq: false },
};

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

  it('describes the known fields for completion and help', () => {
    const names = OFFER_QUERY_FIELDS.map((field) => field.name);
    assert.equal(new Set(names).size, names.length, 'no duplicates');
    for (const name of [
      'gpu_name',
      'num_gpus',
      'gpu_ram',
      'dph_total',
      'reliability',
      'geolocation',
      'verified',
      'cuda_max_good',
      'duration',
      'driver_version',
    ]) {
      assert.ok(names.includes(name), name);
    }
    for (const alias of OFFER_QUERY_ALIASES.keys()) assert.ok(!names.includes(alias), `${alias} is an alias, not a field`);
    assert.ok(!names.includes('type') && !names.includes('order'));
    const unit = (name: string) => OFFER_QUERY_FIELDS.find((field) => field.name === name)?.unit;
    assert.equal(unit('gpu_ram'), 'GB');
    assert.equal(unit('cpu_ram'), 'GB');
    assert.equal(unit('duration'), 'days');
    assert.equal(unit('dph_total'), '$/hour');
    for (const field of OFFER_QUERY_FIELDS) {
      assert.ok(['number', 'bool', 'string'].includes(field.kind), field.name);
      assert.ok(field.description.length > 5, field.name);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

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
