import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HOURS_PER_MONTH, quoteRent, storagePerHour } from '../../../src/core/rent/quote';
import { DEMO_KEY, clientFor, priceableOffer, startSimulator, type Marketplace } from '../../support';

describe('storage pricing: one month of 720 hours for disks and volumes', () => {
  let sim: Marketplace;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.stop());

  it('prices storage per GB per month over 720 hours, as the service does', () => {
    assert.equal(HOURS_PER_MONTH, 720);
    assert.equal(storagePerHour(100, 0.72), 0.1);
    assert.equal(storagePerHour(0, 0.72), 0);
    // A 730-hour month (the wizard's old figure) would say 0.010274 here.
    assert.equal(Math.round(storagePerHour(50, 0.15) * 1e6) / 1e6, 0.010417);
  });

  it('agrees with the rent quote for the same disk and rate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.double({ min: 0, max: 2, noNaN: true }), (gb, rate) => {
        const offer = priceableOffer({ storage_cost: rate });
        assert.equal(quoteRent(offer, gb, undefined).diskPerHour, storagePerHour(gb, rate));
      }),
    );
  });

  it('prices a new volume as the simulator bills it', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const [offer] = await client.volumes.search({ filters: {}, limit: 1 });
    assert.ok(offer?.storage_cost, 'a volume offer with a storage price');
    await client.volumes.create({ offerId: offer.id, sizeGb: 37, name: 'priced' });
    const volume = (await client.volumes.list()).find((v) => v.label === 'priced');
    assert.ok(volume?.storage_total_cost, 'the new volume with its hourly rate');
    // The simulator rounds its rate to 6 decimals.
    assert.ok(Math.abs(storagePerHour(37, offer.storage_cost) - volume.storage_total_cost) < 1e-6);
  });
});
