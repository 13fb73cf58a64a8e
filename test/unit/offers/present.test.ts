import assert from 'node:assert/strict';
import { OfferSchema } from '../../../src/core/api/offers';
import { countryCode, presentOffer } from '../../../src/core/offers/present';
import { formatDollars } from '../../../src/core/format';

const offer = OfferSchema.parse({
  id: 4242,
  num_gpus: 2,
  gpu_name: 'RTX 4090',
  gpu_ram: 24564,
  dph_total: 0.812,
  dph_base: 0.7,
  search: { gpuCostPerHour: 0.7, diskHour: 0.012, totalHour: 0.812 },
  reliability2: 0.9912,
  cuda_max_good: 12.4,
  inet_down: 812.3,
  inet_up: 420.9,
  disk_space: 500,
  direct_port_count: 20,
  geolocation: 'Texas, US',
  verified: true,
  host_id: 77,
  machine_id: 88,
});

describe('offer presentation', () => {
  it('labels an offer by GPU and count', () => {
    assert.equal(presentOffer(offer).label, 'RTX 4090 ×2');
    assert.equal(presentOffer({ ...offer, num_gpus: 1 }).label, 'RTX 4090');
  });

  it('describes price per hour, VRAM and region', () => {
    assert.equal(presentOffer(offer).description, '$0.812/h · 24 GB · US');
  });

  it('says when the price is a bid: an interruptible search lists the current minimum bid', () => {
    const p = presentOffer(offer, { bid: true });
    assert.equal(p.description, 'bid from $0.812/h · 24 GB · US');
    assert.match(p.tooltip, /Minimum bid \| \$0\.812\/h; interruptible: stopped when someone bids more/);
    assert.doesNotMatch(presentOffer(offer).tooltip, /bid/);
  });

  it('puts every detail a renter weighs in the tooltip', () => {
    const tooltip = presentOffer(offer).tooltip;
    for (const part of [
      '$0.812/h',
      'GPU | $0.700/h',
      'Disk | $0.012/h',
      '99.1 %',
      'CUDA | 12.4',
      '↓ 812 / ↑ 421 Mb/s',
      '500 GB',
      'Direct ports | 20',
      'Texas, US',
      'Verified | yes',
      '77 / 88',
    ]) {
      assert.ok(tooltip.includes(part), `tooltip has ${part}:\n${tooltip}`);
    }
  });

  it('leaves out what the offer does not say', () => {
    const bare = OfferSchema.parse({ id: 1, num_gpus: 1, gpu_name: 'A100', gpu_ram: 40960, dph_total: 1.5 });
    const p = presentOffer(bare);
    assert.equal(p.description, '$1.50/h · 40 GB');
    assert.ok(!p.tooltip.includes('undefined') && !p.tooltip.includes('null'));
  });

  it('formats money and places', () => {
    assert.equal(formatDollars(12.5), '$12.50');
    assert.equal(formatDollars(0.0456), '$0.046');
    assert.equal(formatDollars(-3), '-$3.00');
    assert.equal(formatDollars(0), '$0.00');
    assert.equal(formatDollars(0.9996), '$1.00');
    assert.equal(formatDollars(1234567.891), '$1234567.89');
  });

  it('rounds a half cent up whatever order the charges were added in', () => {
    // 3-decimal charges summing to 191.055 exactly; added in two orders, the floats differ in the
    // last bits (one below the half cent, one above), and toFixed(2) reads them 191.05 and 191.06.
    const charges = [0.105, 100.3, 0.35, 90.3];
    const forward = charges.reduce((t, c) => t + c, 0);
    const backward = [...charges].reverse().reduce((t, c) => t + c, 0);
    assert.equal(formatDollars(forward), '$191.06');
    assert.equal(formatDollars(backward), '$191.06');
    assert.equal(formatDollars(-0.0005), '-$0.001');
    assert.equal(formatDollars(2.675), '$2.68');
    assert.equal(countryCode('Quebec, CA'), 'CA');
    assert.equal(countryCode('DE'), 'DE');
    assert.equal(countryCode(null), undefined);
  });
});
