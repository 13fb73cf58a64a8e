import assert from 'node:assert/strict';
import type { Offer } from '../../../src/core/api/offers';
import type { OfferFilters, OfferQuery } from '../../../src/core/api/offerQuery';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace } from '../../support';

const q = (filters: OfferFilters, order: OfferQuery['order'] = [], type: OfferQuery['type'] = 'on-demand'): OfferQuery => ({
  filters,
  order,
  type,
});

describe('client: offer search (simulator)', () => {
  let sim: Marketplace;
  let search: (query: OfferQuery, limit?: number) => Promise<Offer[]>;
  before(async () => {
    sim = await startSimulator();
    const { client } = clientFor(sim.url, DEMO_KEY);
    search = (query, limit = 1000) => client.offers.search({ query, limit });
  });
  after(async () => {
    await sim.stop();
  });

  it('returns a realistic catalogue with GPU memory in MB', async () => {
    const offers = await search(q({}));
    assert.ok(offers.length >= 200, `only ${offers.length} offers`);
    const big = offers.find((o) => o.gpu_name === 'RTX 4090');
    assert.ok(big, 'RTX 4090 offers exist');
    assert.ok(big.gpu_ram > 20_000 && big.gpu_ram < 30_000, `gpu_ram ${big.gpu_ram} is in MB`);
    assert.ok(offers.every((o) => o.dph_total > 0));
  });

  it('honours eq, neq, gt, gte, lt, lte, in and notin', async () => {
    const all = await search(q({}));
    const cases: Array<[OfferFilters, (o: Offer) => boolean]> = [
      [{ gpu_name: { eq: 'RTX 4090' } }, (o) => o.gpu_name === 'RTX 4090'],
      [{ gpu_name: { neq: 'RTX 4090' } }, (o) => o.gpu_name !== 'RTX 4090'],
      [{ num_gpus: { gt: 2 } }, (o) => o.num_gpus > 2],
      [{ num_gpus: { gte: 2 } }, (o) => o.num_gpus >= 2],
      [{ dph_total: { lt: 0.5 } }, (o) => o.dph_total < 0.5],
      [{ dph_total: { lte: 1 } }, (o) => o.dph_total <= 1],
      [{ gpu_name: { in: ['H100 SXM', 'A100 SXM4'] } }, (o) => o.gpu_name === 'H100 SXM' || o.gpu_name === 'A100 SXM4'],
      [{ num_gpus: { notin: [1, 8] } }, (o) => o.num_gpus !== 1 && o.num_gpus !== 8],
      [{ num_gpus: { gte: 2, lte: 4 }, dph_total: { lt: 3 } }, (o) => o.num_gpus >= 2 && o.num_gpus <= 4 && o.dph_total < 3],
    ];
    for (const [filters, expected] of cases) {
      const got = await search(q(filters));
      const want = all.filter(expected);
      assert.ok(want.length > 0, `the catalogue has offers for ${JSON.stringify(filters)}`);
      assert.deepEqual(got.map((o) => o.id).sort(), want.map((o) => o.id).sort(), JSON.stringify(filters));
    }
  });

  it('orders by the given fields and caps at the limit', async () => {
    const cheapest = await search(q({}, [['dph_total', 'asc']]), 10);
    assert.equal(cheapest.length, 10);
    for (let i = 1; i < cheapest.length; i++) assert.ok(cheapest[i - 1]!.dph_total <= cheapest[i]!.dph_total);
    const best = await search(q({}, [['dlperf_per_dphtotal', 'desc']]), 5);
    for (let i = 1; i < best.length; i++) assert.ok((best[i - 1]!.dlperf_per_dphtotal ?? 0) >= (best[i]!.dlperf_per_dphtotal ?? 0));
  });

  it('prices interruptible offers from their minimum bid', async () => {
    const bids = await search(q({}, [], 'bid'), 20);
    assert.ok(bids.length > 0);
    assert.ok(bids.every((o) => typeof o.min_bid === 'number'));
  });

  it('returns an empty list, not an error, when nothing matches', async () => {
    assert.deepEqual(await search(q({ num_gpus: { gt: 64 } })), []);
  });
});
