import assert from 'node:assert/strict';
import type { Offer } from '../../../src/core/api/offers';
import { OfferSchema } from '../../../src/core/api/offers';
import { quoteRent } from '../../../src/core/rent/quote';
import { Renter } from '../../../src/core/rent/renter';
import { DEMO_KEY, MemoryLogger, clientFor, startSimulator, type Marketplace } from '../support';

describe('renting', () => {
  let sim: Marketplace;
  let offers: Offer[];
  const client = () => clientFor(sim.url, DEMO_KEY, { maxAttempts: 1 }).client;
  const renter = () => new Renter({ client, logger: new MemoryLogger(), reconcileDelaysMs: [0, 50, 100], sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
  let next = 0;
  const offer = () => offers[next++]!;

  before(async () => {
    sim = await startSimulator();
    offers = await client().offers.search({ query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' }, limit: 40 });
  });
  afterEach(() => sim.control.clearFaults());
  after(() => sim.stop());

  async function instancesLabelled(label: string) {
    return (await client().instances.list()).filter((i) => i.label === label);
  }

  it('rents once and returns the new instance', async () => {
    const r = renter();
    const label = r.uniqueLabel();
    const outcome = await r.rent(offer(), { image: 'ubuntu:22.04', disk: 10, label });
    assert.equal(outcome.kind, 'created');
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  it('makes one instance from a double click: the second rent is refused as busy', async () => {
    const r = renter();
    const label = r.uniqueLabel();
    const o = offer();
    const [a, b] = await Promise.all([r.rent(o, { image: 'ubuntu:22.04', disk: 10, label }), r.rent(o, { image: 'ubuntu:22.04', disk: 10, label })]);
    assert.deepEqual([a.kind, b.kind].sort(), ['busy', 'created']);
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  for (const fault of [
    { kind: 'reset', phase: 'after' as const },
    { kind: 'server_error', status: 502, phase: 'after' as const },
    { kind: 'truncated', phase: 'after' as const },
  ]) {
    it(`finds the instance when the answer is lost (${fault.kind} after the rent was made), without renting again`, async () => {
      const r = renter();
      const label = r.uniqueLabel();
      sim.control.addFault({ ...fault, method: 'PUT', path: '/api/v0/asks/', count: 1 });
      const outcome = await r.rent(offer(), { image: 'ubuntu:22.04', disk: 10, label });
      const found = await instancesLabelled(label);
      assert.equal(found.length, 1, 'exactly one instance exists');
      if (fault.kind === 'truncated') {
        assert.ok(outcome.kind === 'reconciled' || outcome.kind === 'created', outcome.kind);
      } else {
        assert.deepEqual(outcome, { kind: 'reconciled', instanceId: found[0]!.id });
      }
    });
  }

  it('says for certain that nothing was made when the request died before the rent', async () => {
    const r = renter();
    const label = r.uniqueLabel();
    sim.control.addFault({ kind: 'reset', method: 'PUT', path: '/api/v0/asks/', count: 1 });
    const outcome = await r.rent(offer(), { image: 'ubuntu:22.04', disk: 10, label });
    assert.equal((await instancesLabelled(label)).length, 0);
    assert.equal(outcome.kind, 'notCreated');
  });

  it('reports an offer taken meanwhile as unavailable', async () => {
    const r = renter();
    const o = offer();
    assert.equal((await r.rent(o, { image: 'ubuntu:22.04', disk: 10, label: r.uniqueLabel() })).kind, 'created');
    const second = await r.rent(o, { image: 'ubuntu:22.04', disk: 10, label: r.uniqueLabel() });
    assert.equal(second.kind, 'unavailable');
  });

  it('quotes GPU, disk, total, per day and the credit left, and refuses what the credit cannot cover', () => {
    const o = OfferSchema.parse({ id: 1, num_gpus: 1, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_total: 0.5, dph_base: 0.4, storage_cost: 0.18 });
    const q = quoteRent(o, 40, 100);
    assert.equal(q.gpuPerHour, 0.4);
    assert.ok(Math.abs(q.diskPerHour - 0.01) < 1e-12);
    assert.ok(Math.abs(q.totalPerHour - 0.41) < 1e-9);
    assert.ok(Math.abs(q.perDay - 9.84) < 1e-9);
    assert.ok(Math.abs(q.creditAfterDay! - 90.16) < 1e-9);
    assert.equal(q.affordable, true);
    assert.equal(quoteRent(o, 40, 0.3).affordable, false);
  });
});
