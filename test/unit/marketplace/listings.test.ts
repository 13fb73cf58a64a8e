import assert from 'node:assert/strict';
import { GPUS } from '../../marketplace/hardware';
import { HOURS_PER_MONTH } from '../../marketplace/pricing';
import { call, control, obj, simulatorForSuite } from '../../support';

type Row = Record<string, unknown>;

describe('simulator: POST /__control/offers', () => {
  const sim = simulatorForSuite({ offerCount: 40 }, { each: true });

  async function search(body: Row): Promise<Row[]> {
    return obj(await call(sim, 'POST', '/api/v0/bundles/', body)).offers as Row[];
  }

  it('lists a rentable, verified offer with the fields given and what follows from them', async () => {
    const answer = (await control(sim, 'POST', 'offers', {
      gpu_name: 'RTX 4090',
      num_gpus: 2,
      dph_total: 0.61,
      geolocation: 'Amsterdam, NL',
      allocated_storage: 10,
    })) as { success: boolean; offer: Row };
    assert.equal(answer.success, true);
    const offer = answer.offer;
    const model = GPUS.find((g) => g.name === 'RTX 4090')!;
    assert.equal(offer.gpu_name, 'RTX 4090');
    assert.equal(offer.num_gpus, 2);
    assert.equal(offer.gpu_ram, model.ramMb);
    assert.equal(offer.gpu_total_ram, model.ramMb * 2);
    assert.deepEqual(offer.gpu_ids, [0, 1]);
    assert.equal(offer.rentable, true);
    assert.equal(offer.verified, true);
    assert.equal(offer.geolocation, 'Amsterdam, NL');
    assert.ok(Math.abs((offer.dph_total as number) - 0.61) < 1e-6, `dph_total ${String(offer.dph_total)}`);
    const disk = ((offer.storage_cost as number) * 10) / HOURS_PER_MONTH;
    assert.ok(Math.abs((offer.dph_base as number) + disk - 0.61) < 1e-5);

    // A search pricing the same disk finds it at that price, with the default filters a client sends.
    const found = await search({
      gpu_name: { eq: 'RTX 4090' },
      num_gpus: { eq: 2 },
      dph_total: { lte: 0.62 },
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      external: { eq: false },
      allocated_storage: 10,
      limit: 100,
    });
    const row = found.find((o) => o.id === offer.id);
    assert.ok(row, 'the new offer is found by a search');
    assert.ok(Math.abs((row.dph_total as number) - 0.61) < 1e-6);
    const state = (await control(sim, 'GET', 'state')) as { offers: number };
    assert.equal(state.offers, 41);
  });

  it('gives every listing a new id and machine, and it can be rented', async () => {
    const a = ((await control(sim, 'POST', 'offers', {})) as { offer: Row }).offer;
    const b = ((await control(sim, 'POST', 'offers', {})) as { offer: Row }).offer;
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.machine_id, b.machine_id);
    const rent = await call(sim, 'PUT', `/api/v0/asks/${String(a.id)}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 10 });
    assert.equal(rent.status, 200, rent.text);
  });

  it('refuses unknown fields, derived fields, wrong types, unknown GPUs and a total under the disk price', async () => {
    for (const body of [
      { nonsense: 1 },
      { id: 5 },
      { dlperf_per_dphtotal: 3 },
      { num_gpus: 'two' },
      { gpu_name: 'GTX 9999' },
      { num_gpus: 0 },
      { dph_total: 0 },
      { geolocation: 'nowhere' },
      { allocated_storage: -1 },
    ]) {
      const answer = await call(sim, 'POST', '/__control/offers', body, null);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(obj(answer).error, 'invalid_args');
    }
    const state = (await control(sim, 'GET', 'state')) as { offers: number };
    assert.equal(state.offers, 40, 'nothing refused was listed');
  });
});
