import assert from 'node:assert/strict';
import { MockAgent } from 'undici';
import { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { pricePoints } from '../../../src/core/api/metrics';
import { permissionsFor } from '../../../src/core/api/permissions';
import { priceStatsFrom } from '../../../src/core/offers/priceContext';
import { clientFor, DEMO_KEY, failure, MemoryLogger, simulatorForSuite } from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'sk-test-metrics-0123456789abcdef';

/** A client whose GET to `path` answers `body` once; `seen` collects the paths asked. */
function answering(path: RegExp, body: unknown) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const seen: string[] = [];
  agent
    .get(BASE)
    .intercept({ path: (p) => path.test(p) && seen.push(p) > 0, method: 'GET' })
    .reply(200, JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  const logger = new MemoryLogger();
  const client = new GpuRentalClient({ dispatcher: agent, baseUrl: BASE, getApiKey: () => KEY, logger, timeoutMs: 2_000, maxAttempts: 1 });
  return { client, logger, seen, agent };
}

describe('client: GPU metrics (simulator)', () => {
  const sim = simulatorForSuite({}, { clock: true });

  it('reads the going price of every model now, per GPU per hour', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const gpus = await client.metrics.current({ verified: 'all' });
    const offers = await client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
      limit: 10_000,
    });
    const h100 = gpus.find((g) => g.gpu_name === 'H100 SXM')!;
    const perGpu = offers.filter((o) => o.gpu_name === 'H100 SXM').map((o) => o.dph_total / o.num_gpus);
    assert.ok(h100.price_median! >= Math.min(...perGpu) && h100.price_median! <= Math.max(...perGpu));
    assert.ok(h100.price_p10! <= h100.price_median! && h100.price_median! <= h100.price_p90!);
  });

  it('reads 7 days of hourly history for the named models; an unknown one is absent, and stats say what is known', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const end = Math.floor(sim.clock.now() / 1000);
    const history = await client.metrics.history(['RTX 4090', 'No Such GPU'], {
      start: end - 7 * 86_400,
      end,
      step: 3600,
      verified: 'all',
    });
    assert.deepEqual([...history.keys()], ['RTX 4090']);
    const points = history.get('RTX 4090')!.pricing;
    assert.equal(points.length, 7 * 24 + 1);
    assert.ok(points.every((p) => p.avail_median! > 0 && p.rented_median! > 0));
    assert.ok(history.get('RTX 4090')!.stats.dlperf! > 0);

    const current = await client.metrics.current({ verified: 'all' });
    const stats = priceStatsFrom(
      current.filter((g) => g.gpu_name !== 'RTX 4090'),
      history,
    );
    const rtx4090 = stats.get('RTX 4090')!;
    assert.equal(rtx4090.currentMedian, undefined, 'missing from the current metrics: only the history is known');
    assert.ok(rtx4090.median7d! > 0 && rtx4090.history.length === 7 * 24 + 1);
    const h100 = stats.get('H100 SXM')!;
    assert.equal(h100.median7d, undefined, 'missing from the history: only the current median is known');
    assert.ok(h100.currentMedian! > 0 && h100.history.length === 0);
  });

  it('is refused to a scoped key without misc, naming the permission', async () => {
    const { client: owner } = clientFor(sim.url, DEMO_KEY);
    const scoped = await owner.apiKeys.create({ name: 'instances only', permissions: permissionsFor(['instance_read']) });
    const { client } = clientFor(sim.url, scoped.key, { maxAttempts: 1 });
    for (const call of [client.metrics.current(), client.metrics.history(['RTX 4090'])]) {
      const error = await failure(call);
      assert.ok(isApiError(error, 'forbidden'), error.toLogString());
      assert.match(error.message, /misc/);
    }
  });
});

describe('client: GPU metrics, odd answers', () => {
  it('drops a record it cannot read, not the answer, and logs it once without the values', async () => {
    const { client, logger } = answering(/^\/api\/v0\/metrics\/gpu\/current/, {
      success: true,
      gpus: [
        { gpu_name: 'RTX 4090', total: 10, price_median: '0.41', price_p10: 'N/A' },
        { total: 3, price_median: 9.99 },
        { gpu_name: 'A100 SXM4', price_median: 1.2 },
      ],
    });
    const gpus = await client.metrics.current();
    assert.deepEqual(
      gpus.map((g) => [g.gpu_name, g.price_median, g.price_p10]),
      [
        ['RTX 4090', 0.41, undefined],
        ['A100 SXM4', 1.2, undefined],
      ],
    );
    const warning = logger.lines.find((l) => l.includes('read GPU prices'));
    assert.ok(warning, logger.lines.join('\n'));
    assert.ok(!warning.includes('9.99'));
  });

  it('cuts series of unequal length to the shortest present and leaves an odd value unknown', () => {
    const points = pricePoints({
      timestamps: [100, 200, 300, 400],
      avail_median: [0.4, 'x', 0.42],
      rented_median: [0.35, 0.36, 0.37, 0.38],
      avail_p10: 'not a list',
    });
    assert.deepEqual(points, [
      { t: 100, avail_median: 0.4, rented_median: 0.35 },
      { t: 200, rented_median: 0.36 },
      { t: 300, avail_median: 0.42, rented_median: 0.37 },
    ]);
    assert.deepEqual(pricePoints({ timestamps: ['later', 5], avail_median: [1, 2] }), [{ t: 5, avail_median: 2 }]);
    assert.deepEqual(pricePoints(null), []);
  });

  it('keeps the models it can read from a history answer and asks for names as one comma-separated list', async () => {
    const { client, seen } = answering(/^\/api\/v0\/metrics\/gpu\/history/, {
      success: true,
      gpus: {
        'RTX 4090': { pricing: { timestamps: [1, 2], avail_median: [0.4, 0.41] }, stats: { dlperf: '97.5' } },
        'RTX 3090': 'unavailable',
        H200: { pricing: null },
      },
    });
    const history = await client.metrics.history(['RTX 4090', 'RTX 3090', 'H200', 'A,B', 'RTX 4090'], { start: 1.7, end: 9, step: 3600 });
    assert.deepEqual([...history.keys()], ['RTX 4090', 'H200']);
    assert.deepEqual(history.get('RTX 4090')!.stats, { dlperf: 97.5 });
    assert.deepEqual(history.get('H200')!.pricing, []);
    const url = new URL(seen[0]!, BASE);
    assert.equal(url.searchParams.get('gpu_name'), 'RTX 4090,RTX 3090,H200', 'a name with a comma cannot be asked for');
    assert.deepEqual([url.searchParams.get('start'), url.searchParams.get('end'), url.searchParams.get('step')], ['1', '9', '3600']);
  });

  it('asks nothing for no names, since an empty list means the service default models', async () => {
    const { client, seen } = answering(/^\/api\/v0\/metrics\/gpu\/history/, { gpus: {} });
    assert.equal((await client.metrics.history([' ', 'x,y'])).size, 0);
    assert.deepEqual(seen, []);
  });
});
