import assert from 'node:assert/strict';
import { call, obj, startSimulator, simulatorForSuite, type SimulatorAt } from '../../support';

type Row = Record<string, unknown>;
type Series = Record<string, number[]>;
interface Entry {
  pricing: Series;
  supply_demand: Series;
  stats: Row;
}

const HOUR = 3600;
const DAY = 86_400;

async function current(sim: SimulatorAt, query = 'verified=all'): Promise<Row[]> {
  const res = await call(sim, 'GET', `/api/v0/metrics/gpu/current/?${query}`);
  assert.equal(res.status, 200, res.text);
  return obj(res).gpus as Row[];
}

async function history(sim: SimulatorAt, query: string): Promise<Record<string, Entry>> {
  const res = await call(sim, 'GET', `/api/v0/metrics/gpu/history/?${query}`);
  assert.equal(res.status, 200, res.text);
  return obj(res).gpus as Record<string, Entry>;
}

/** All offers of the catalogue as a search lists them (priced for the default disk). */
async function allOffers(sim: SimulatorAt): Promise<Row[]> {
  return obj(await call(sim, 'POST', '/api/v0/bundles/', { limit: 100_000 })).offers as Row[];
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const near = (a: unknown, b: number, eps = 1e-3) => assert.ok(typeof a === 'number' && Math.abs(a - b) < eps, `${String(a)} is not ${b}`);

describe('marketplace: GPU metrics', () => {
  const sim = simulatorForSuite({ offerCount: 400 }, { each: true, clock: true });
  const nowSec = () => Math.floor(sim.clock.now() / 1000);

  it('prices each model now from its rentable offers, per GPU', async () => {
    const offers = await allOffers(sim);
    const gpus = await current(sim);
    assert.deepEqual(gpus.map((g) => g.gpu_name).sort(), [...new Set(offers.map((o) => o.gpu_name as string))].sort());
    for (const g of gpus) {
      const mine = offers.filter((o) => o.gpu_name === g.gpu_name);
      const prices = mine
        .filter((o) => o.rentable === true)
        .map((o) => (o.dph_total as number) / (o.num_gpus as number))
        .sort((a, b) => a - b);
      assert.equal(g.total, new Set(mine.map((o) => o.machine_id)).size, `${String(g.gpu_name)} machines`);
      if (prices.length === 0) {
        assert.equal(g.price_median, undefined);
        continue;
      }
      near(g.price_median, quantile(prices, 0.5));
      near(g.price_p10, quantile(prices, 0.1));
      near(g.price_p90, quantile(prices, 0.9));
      assert.ok((g.price_p10 as number) <= (g.price_p25 as number) && (g.price_p75 as number) <= (g.price_p90 as number));
      assert.ok((g.available as number) <= (g.total as number));
      near(g.dlperf_per_dollar, Math.round(((g.dlperf as number) / (g.price_median as number)) * 10) / 10, 0.2);
    }
  });

  it('filters by verification and GPU count, and refuses a filter it does not know', async () => {
    const offers = await allOffers(sim);
    const verifiedNames = new Set(offers.filter((o) => o.verification === 'verified').map((o) => o.gpu_name));
    const byDefault = await current(sim, '');
    assert.deepEqual(new Set(byDefault.map((g) => g.gpu_name)), verifiedNames, 'verified=yes is the default');
    const single = await current(sim, 'verified=all&num_gpus=1');
    const singleNames = new Set(offers.filter((o) => o.num_gpus === 1).map((o) => o.gpu_name));
    assert.deepEqual(new Set(single.map((g) => g.gpu_name)), singleNames);
    assert.equal((await call(sim, 'GET', '/api/v0/metrics/gpu/current/?verified=maybe')).status, 400);
    assert.equal((await call(sim, 'GET', '/api/v0/metrics/gpu/current/?num_gpus=two')).status, 400);
  });

  it('moves the going price when the cheapest offer of a model is rented', async () => {
    const offers = (await allOffers(sim)).filter((o) => o.rentable === true);
    const counts = new Map<string, number>();
    for (const o of offers) counts.set(o.gpu_name as string, (counts.get(o.gpu_name as string) ?? 0) + 1);
    const model = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const cheapest = offers
      .filter((o) => o.gpu_name === model)
      .sort((a, b) => (a.dph_total as number) / (a.num_gpus as number) - (b.dph_total as number) / (b.num_gpus as number))[0]!;
    const before = (await current(sim)).find((g) => g.gpu_name === model)!;
    const rent = await call(sim, 'PUT', `/api/v0/asks/${String(cheapest.id)}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 10 });
    assert.equal(rent.status, 200, rent.text);
    const after = (await current(sim)).find((g) => g.gpu_name === model)!;
    assert.ok((after.price_p10 as number) >= (before.price_p10 as number), 'the cheapest ask is gone');
    assert.ok((after.price_median as number) >= (before.price_median as number));
  });

  it('answers the last 24 hours in about 20 points by default, for the default models present', async () => {
    const gpus = await history(sim, '');
    const names = new Set((await current(sim, '')).map((g) => g.gpu_name));
    assert.deepEqual(Object.keys(gpus).sort(), ['RTX 3090', 'RTX 4090', 'RTX 5090'].filter((n) => names.has(n)).sort());
    for (const entry of Object.values(gpus)) {
      const t = entry.pricing.timestamps!;
      assert.ok(t.length >= 19 && t.length <= 22, `${t.length} points`);
      assert.equal(t[t.length - 1], nowSec(), 'ends at the clock');
      assert.ok(t[0]! >= nowSec() - DAY);
      for (const series of ['rented_p10', 'rented_median', 'rented_p90', 'avail_p10', 'avail_median', 'avail_p90']) {
        assert.equal(entry.pricing[series]!.length, t.length, series);
      }
      assert.equal(entry.supply_demand.total!.length, t.length);
      assert.equal(typeof entry.stats.dlperf, 'number');
    }
  });

  it('gives 30 days hourly, plausible around the going price and the same instant the same in every answer', async () => {
    const now = nowSec();
    const month = await history(sim, `verified=all&gpu_name=RTX%204090,%20Nope%209000&start=${now - 40 * DAY}&end=${now}&step=${HOUR}`);
    assert.deepEqual(Object.keys(month), ['RTX 4090'], 'an unknown name is simply absent; the range starts 30 days back at most');
    const p = month['RTX 4090']!.pricing;
    assert.equal(p.timestamps!.length, 30 * 24 + 1);
    assert.equal(p.timestamps![0], now - 30 * DAY);
    const offers = (await allOffers(sim)).filter((o) => o.gpu_name === 'RTX 4090');
    const base = quantile(
      offers.map((o) => (o.dph_total as number) / (o.num_gpus as number)).sort((a, b) => a - b),
      0.5,
    );
    const medians = p.avail_median!;
    assert.ok(
      Math.min(...medians) > base * 0.85 && Math.max(...medians) < base * 1.15,
      `${Math.min(...medians)}..${Math.max(...medians)} around ${base}`,
    );
    assert.ok(new Set(medians).size > 100, 'the price moves');
    for (let i = 0; i < medians.length; i++) {
      assert.ok(p.avail_p10![i]! < medians[i]! && medians[i]! < p.avail_p90![i]!, `point ${i} in order`);
      assert.ok(p.rented_median![i]! < medians[i]!, 'what was taken leans cheap');
    }
    // The same instants through another range and step read the same.
    const day = await history(sim, `verified=all&gpu_name=RTX%204090&start=${now - 2 * DAY}&end=${now - DAY}&step=${6 * HOUR}`);
    const d = day['RTX 4090']!.pricing;
    for (let i = 0; i < d.timestamps!.length; i++) {
      const j = p.timestamps!.indexOf(d.timestamps![i]!);
      assert.ok(j >= 0);
      assert.equal(d.avail_median![i], medians[j]);
    }
    // The clock moving on keeps the past.
    await sim.clock.advance(5 * HOUR * 1000);
    const later = await history(sim, `verified=all&gpu_name=RTX%204090&start=${now - DAY}&end=${now}&step=${HOUR}`);
    assert.deepEqual(later['RTX 4090']!.pricing.avail_median, medians.slice(-25));
  });

  it('refuses a step it cannot honour and a range beyond the clock or the history', async () => {
    const now = nowSec();
    for (const query of ['step=0', 'step=abc', `start=${now + DAY}`, `start=${now - 30 * DAY}&step=1`]) {
      const res = await call(sim, 'GET', `/api/v0/metrics/gpu/history/?gpu_name=RTX%204090&${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
    }
  });

  it('needs the misc permission', async () => {
    const denied = obj(await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'no-misc', permissions: { api: { instance_read: {} } } }));
    const allowed = obj(await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'misc', permissions: { api: { misc: {} } } }));
    for (const path of ['/api/v0/metrics/gpu/current/', '/api/v0/metrics/gpu/history/']) {
      assert.equal((await call(sim, 'GET', path, undefined, denied.key as string)).status, 403, path);
      assert.equal((await call(sim, 'GET', path, undefined, allowed.key as string)).status, 200, path);
    }
  });
});

describe('marketplace: GPU price history across seeds', () => {
  it('is the same for the same seed and differs for another', async () => {
    const read = async (seed: number) => {
      const sim = await startSimulator({ seed, now: () => 1_790_000_000_000 });
      try {
        return await history(sim, 'gpu_name=all&step=3600');
      } finally {
        await sim.stop();
      }
    };
    const [a, b, c] = [await read(3), await read(3), await read(4)];
    assert.deepEqual(a, b);
    const shared = Object.keys(a).find((n) => n in c)!;
    assert.notDeepEqual(a[shared]!.pricing.avail_median, c[shared]!.pricing.avail_median);
  });
});
