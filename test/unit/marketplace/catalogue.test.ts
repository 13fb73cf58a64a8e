import assert from 'node:assert/strict';
import { CATALOGUE_EPOCH, generateOffers } from '../../marketplace/catalogue';
import { priceOffer } from '../../marketplace/pricing';
import { call, obj, simulatorForSuite } from '../../support';

describe('marketplace: catalogue', () => {
  it('is the same for the same seed and different for another', () => {
    assert.deepEqual(generateOffers(300, 1), generateOffers(300, 1));
    const other = generateOffers(300, 2);
    assert.notDeepEqual(
      other.map((o) => o.id),
      generateOffers(300, 1).map((o) => o.id),
    );
    assert.deepEqual(generateOffers(50, 7), generateOffers(300, 7).slice(0, 50), 'a prefix does not depend on the count');
  });

  it('looks like the real market: units, models, sizes and prices', () => {
    const offers = generateOffers(300, 1);
    assert.equal(new Set(offers.map((o) => o.id)).size, 300);
    const names = new Set(offers.map((o) => o.gpu_name));
    for (const name of ['RTX 3090', 'RTX 4090', 'RTX 5090', 'A100 SXM4', 'H100 SXM', 'L40S', 'RTX A6000']) assert.ok(names.has(name), name);
    assert.deepEqual([...new Set(offers.map((o) => o.num_gpus))].sort(), [1, 2, 4, 8]);
    for (const o of offers) {
      assert.ok(o.gpu_ram >= 12_000 && o.gpu_ram <= 150_000, `gpu_ram in MB: ${o.gpu_ram}`);
      assert.equal(o.gpu_total_ram, o.gpu_ram * o.num_gpus);
      assert.ok(o.cpu_ram >= 8 * 1024, `cpu_ram in MB: ${o.cpu_ram}`);
      assert.ok(o.disk_space >= 20 && o.disk_space < 5000, `disk in GB: ${o.disk_space}`);
      assert.ok(o.dph_total > o.dph_base && o.dph_base > 0);
      assert.ok(o.dph_base / o.num_gpus < 5, `$/GPU/h ${o.dph_base / o.num_gpus}`);
      assert.ok(o.min_bid < o.dph_base);
      assert.ok(o.storage_cost > 0 && o.storage_cost < 1, '$/GB/month');
      assert.match(o.geolocation, /^[^,]+, [A-Z]{2}$/);
      assert.equal(o.verified, o.verification === 'verified');
      assert.equal(o.ask_contract_id, o.id);
      assert.ok(o.end_date > CATALOGUE_EPOCH && o.start_date < CATALOGUE_EPOCH);
      assert.ok(o.reliability2 > 0.8 && o.reliability2 <= 1);
    }
    const h100 = offers.find((o) => o.gpu_name === 'H100 SXM')!;
    const r3090 = offers.find((o) => o.gpu_name === 'RTX 3090')!;
    assert.ok(h100.dph_base / h100.num_gpus > 3 * (r3090.dph_base / r3090.num_gpus), 'an H100 costs far more than a 3090');
    assert.ok(offers.some((o) => o.direct_port_count === 0) && offers.some((o) => o.direct_port_count > 0));
    assert.ok(
      offers.some((o) => o.rented && !o.rentable),
      'some machines are already taken',
    );
  });

  it('makes 10,000 offers quickly (for the benchmark)', () => {
    const started = Date.now();
    const offers = generateOffers(10_000, 1);
    assert.equal(offers.length, 10_000);
    assert.equal(new Set(offers.map((o) => o.id)).size, 10_000);
    assert.ok(Date.now() - started < 5_000);
  });

  describe('served', () => {
    const sim = simulatorForSuite({ seed: 5 }, { clock: true });

    it('serves the seeded catalogue as priced by priceOffer', async () => {
      const served = obj(await call(sim, 'POST', '/api/v0/bundles/', { order: [['id', 'asc']] })).offers as unknown[];
      const local = generateOffers(300, 5).map((o) => priceOffer(o, { allocatedStorage: 8, type: 'on-demand' }));
      assert.deepEqual(served, local);
    });

    it('dates offers on the simulator clock', async () => {
      await sim.clock.advance(86_400_000);
      const [served] = obj(await call(sim, 'POST', '/api/v0/bundles/', { order: [['id', 'asc']], limit: 1 })).offers as Array<{
        start_date: number;
        duration: number;
      }>;
      const [local] = generateOffers(1, 5);
      assert.ok(Math.abs(served!.start_date - (local!.start_date + 86_400)) < 0.01);
      assert.ok(Math.abs(served!.duration - local!.duration) < 0.01, 'an offer stays available as long, whatever the date');
    });
  });
});
