import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Offer } from '../../marketplace/catalogue';
import { DEFAULT_ALLOCATED_STORAGE, HOURS_PER_MONTH } from '../../marketplace/pricing';
import { call, obj, q, simulatorForSuite } from '../../support';

type Row = Record<string, unknown>;

const NUMERIC = [
  'num_gpus',
  'gpu_ram',
  'dph_total',
  'cpu_cores_effective',
  'cpu_ram',
  'disk_space',
  'inet_down',
  'reliability2',
  'dlperf_per_dphtotal',
  'direct_port_count',
  'cuda_max_good',
  'compute_cap',
  'min_bid',
  'score',
];
const STRINGS = ['gpu_name', 'verification', 'cpu_name', 'os_version'];
const BOOLS = ['rentable', 'rented', 'external', 'static_ip', 'verified'];

/** An independent reading of the documented semantics, to compare the server with. */
function expected(all: Row[], filters: Array<[string, string, unknown]>, order: Array<[string, 'asc' | 'desc']>, limit?: number): number[] {
  const cmp = (a: unknown, b: unknown): number | undefined => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
    if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
    return undefined;
  };
  const ok = (v: unknown, op: string, x: unknown): boolean => {
    if (op === 'eq') return v === x;
    if (op === 'neq') return v !== x;
    if (op === 'in') return (x as unknown[]).includes(v);
    if (op === 'notin') return !(x as unknown[]).includes(v);
    const c = cmp(v, x);
    if (c === undefined) return false;
    return { gt: c > 0, gte: c >= 0, lt: c < 0, lte: c <= 0 }[op as 'gt'];
  };
  const rows = all.filter((r) => filters.every(([f, op, x]) => ok(r[f], op, x)));
  rows.sort((a, b) => {
    for (const [f, dir] of order) {
      const c = cmp(a[f], b[f]) ?? 0;
      if (c !== 0) return dir === 'desc' ? -c : c;
    }
    return (a.id as number) - (b.id as number);
  });
  return rows.slice(0, limit ?? rows.length).map((r) => r.id as number);
}

/** How a client may spell a value: as is, or as text that the server coerces back. */
function spelled(value: unknown, asText: boolean): unknown {
  if (!asText) return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'false';
  return value;
}

describe('marketplace: offer search', () => {
  const sim = simulatorForSuite({}, { clock: true });
  let all: Row[];
  const search = async (body: unknown) => {
    const res = await call(sim, 'POST', '/api/v0/bundles/', body);
    assert.equal(res.status, 200, res.text);
    return obj(res).offers as Row[];
  };

  before(async () => {
    all = await search({});
  });

  it('returns the whole catalogue when nothing is asked (no server-side defaults)', () => {
    assert.equal(all.length, 300);
    assert.ok(
      all.some((o) => o.rentable === false),
      'unrentable offers are not hidden',
    );
    assert.ok(
      all.some((o) => o.verification !== 'verified'),
      'unverified offers are not hidden',
    );
  });

  it('agrees with a brute-force evaluation for random filters, orders and limits', async () => {
    const valueFor = (field: string) => fc.constantFrom(...[...new Set(all.map((o) => o[field]))].slice(0, 40));
    const filter = fc.oneof(
      fc
        .tuple(fc.constantFrom(...NUMERIC), fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte'))
        .chain(([f, op]) =>
          fc.tuple(fc.constant(f), fc.constant(op), fc.oneof(valueFor(f), fc.double({ min: 0, max: 200_000, noNaN: true }))),
        ),
      fc
        .tuple(fc.constantFrom(...[...NUMERIC, ...STRINGS]), fc.constantFrom('in', 'notin'))
        .chain(([f, op]) => fc.tuple(fc.constant(f), fc.constant(op), fc.uniqueArray(valueFor(f), { minLength: 1, maxLength: 4 }))),
      fc
        .tuple(fc.constantFrom(...STRINGS), fc.constantFrom('eq', 'neq', 'gt', 'lte'))
        .chain(([f, op]) => fc.tuple(fc.constant(f), fc.constant(op), valueFor(f))),
      fc.tuple(fc.constantFrom(...BOOLS), fc.constantFrom('eq', 'neq'), fc.boolean()),
    );
    const order = fc.array(fc.tuple(fc.constantFrom(...NUMERIC, ...STRINGS, ...BOOLS), fc.constantFrom('asc' as const, 'desc' as const)), {
      maxLength: 3,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(filter, { maxLength: 3 }),
        order,
        fc.option(fc.nat(60), { nil: undefined }),
        fc.boolean(),
        async (filters, ord, limit, asText) => {
          const body: Row = {};
          for (const [field, op, value] of filters) {
            const spec = (body[field] ??= {}) as Row;
            spec[op] = Array.isArray(value) ? value.map((v) => spelled(v, asText)) : spelled(value, asText);
          }
          // Several ops on one field all apply; a repeated op keeps the last value, as JSON would.
          const effective: Array<[string, string, unknown]> = [];
          for (const [field, spec] of Object.entries(body))
            for (const [op] of Object.entries(spec as Row)) {
              const last = [...filters].reverse().find(([f, o]) => f === field && o === op)!;
              effective.push([field, op, last[2]]);
            }
          if (ord.length) body.order = ord;
          if (limit !== undefined) body.limit = asText ? String(limit) : limit;
          const got = (await search(body)).map((o) => o.id as number);
          assert.deepEqual(got, expected(all, effective, ord, limit), JSON.stringify(body));
        },
      ),
      { numRuns: 120 },
    );
  });

  it('orders exactly and caps at the limit', async () => {
    const cheapest = await search({ order: [['dph_total', 'asc']], limit: 10 });
    assert.deepEqual(
      cheapest.map((o) => o.id),
      expected(all, [], [['dph_total', 'asc']], 10),
    );
    const best = await search({
      order: [
        ['num_gpus', 'desc'],
        ['dlperf_per_dphtotal', 'desc'],
      ],
      limit: 25,
    });
    assert.deepEqual(
      best.map((o) => o.id),
      expected(
        all,
        [],
        [
          ['num_gpus', 'desc'],
          ['dlperf_per_dphtotal', 'desc'],
        ],
        25,
      ),
    );
    assert.deepEqual(await search({ limit: 0 }), []);
  });

  it('matches geolocation by country code and verified by verification', async () => {
    const us = await search({ geolocation: { eq: 'US' } });
    assert.ok(us.length > 0 && us.every((o) => String(o.geolocation).endsWith(', US')));
    assert.equal(us.length, all.filter((o) => String(o.geolocation).endsWith(', US')).length);
    const some = await search({ geolocation: { in: ['de', 'NL'] } });
    assert.ok(some.length > 0 && some.every((o) => /, (DE|NL)$/.test(String(o.geolocation))));
    const notUs = await search({ geolocation: { notin: ['US'] } });
    assert.equal(notUs.length + us.length, all.length);
    const verified = await search({ verified: { eq: 'true' } });
    assert.deepEqual(
      verified.map((o) => o.id),
      all.filter((o) => o.verification === 'verified').map((o) => o.id),
    );
    const unverified = await search({ verified: { eq: false } });
    assert.equal(unverified.length + verified.length, all.length);
  });

  it('prices the allocated storage into dph_total (storage_cost is $/GB/month, 720 h)', async () => {
    const base = all[0]!;
    const [big] = (await search({ id: { eq: base.id }, allocated_storage: 100 })) as unknown as Offer[];
    assert.ok(big);
    const disk = ((base.storage_cost as number) * 100) / HOURS_PER_MONTH;
    assert.ok(Math.abs(big.storage_total_cost - disk) < 1e-6);
    assert.ok(Math.abs(big.dph_total - (big.dph_base + disk)) < 1e-6);
    assert.ok(
      Math.abs(
        (base.dph_total as number) -
          ((base.dph_base as number) + ((base.storage_cost as number) * DEFAULT_ALLOCATED_STORAGE) / HOURS_PER_MONTH),
      ) < 1e-6,
    );
    assert.deepEqual(big.search, {
      gpuCostPerHour: big.dph_base,
      diskHour: big.storage_total_cost,
      totalHour: big.dph_total,
      discountTotalHour: 0,
      discountedTotalPerHour: big.dph_total,
    });
    const roomy = await search({ allocated_storage: 1000 });
    assert.ok(
      roomy.every((o) => (o.disk_space as number) >= 1000),
      'allocated_storage also asks for that much disk',
    );
  });

  it('prices bids from the minimum bid and accepts both on-demand spellings', async () => {
    const bids = await search({ type: 'bid', order: [['id', 'asc']] });
    const byId = new Map(all.map((o) => [o.id, o]));
    for (const o of bids.slice(0, 20))
      assert.ok(Math.abs((o.dph_total as number) - ((o.min_bid as number) + (byId.get(o.id)!.storage_total_cost as number))) < 1e-6);
    assert.deepEqual(
      (await search({ type: 'ondemand', limit: 5 })).map((o) => o.id),
      (await search({ type: 'on-demand', limit: 5 })).map((o) => o.id),
    );
    assert.equal((await call(sim, 'POST', '/api/v0/bundles/', { type: 'spot' })).status, 400);
  });

  it('serves GET ?q= the same as POST', async () => {
    const query = { num_gpus: { gte: 4 }, order: [['dph_total', 'desc']], limit: 7 };
    const res = await call(sim, 'GET', `/api/v0/bundles/?q=${q(query)}`);
    assert.deepEqual(
      (obj(res).offers as Row[]).map((o) => o.id),
      (await search(query)).map((o) => o.id),
    );
  });

  it('refuses unknown operators and a non-object query', async () => {
    const bad = await call(sim, 'POST', '/api/v0/bundles/', { num_gpus: { between: [1, 2] } });
    assert.equal(bad.status, 400);
    assert.equal(obj(bad).error, 'invalid_args');
    assert.equal((await call(sim, 'POST', '/api/v0/bundles/', [1, 2])).status, 400);
  });

  it('ignores filters on fields offers do not have, as the service only warns about them', async () => {
    assert.equal((await search({ no_such_field: { eq: 3 } })).length, all.length);
  });
});
