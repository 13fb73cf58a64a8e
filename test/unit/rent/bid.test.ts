import assert from 'node:assert/strict';
import type { Offer } from '../../../src/core/api/offers';
import { checkBid, minBidOf, onDemandGpuPerHour, parseBid, suggestBid } from '../../../src/core/rent/bid';
import { rentConfirmation } from '../../../src/core/rent/confirmation';
import { priceRent } from '../../../src/core/rent/flow';
import { rentRequest } from '../../../src/core/rent/plan';
import { quoteRent } from '../../../src/core/rent/quote';

/** An offer as a bid search lists it: at the minimum bid plus 10 GB of disk; dph_base is on demand. */
const bidListed: Offer = {
  id: 1,
  num_gpus: 1,
  gpu_name: 'RTX 4090',
  gpu_ram: 24_576,
  dph_base: 0.5,
  min_bid: 0.2,
  storage_cost: 0.144,
  dph_total: 0.202,
  search: { gpuCostPerHour: 0.2, diskHour: 0.002, totalHour: 0.202 },
};
/** The same offer as an on-demand search lists it. */
const onDemandListed: Offer = { ...bidListed, dph_total: 0.502, search: { gpuCostPerHour: 0.5, diskHour: 0.002, totalHour: 0.502 } };

describe('rent: bids', () => {
  it('quotes a bid as the GPU at the bid plus the disk', () => {
    const q = quoteRent(bidListed, 10, 10, { bid: 0.25 });
    assert.equal(q.gpuPerHour, 0.25);
    assert.ok(Math.abs(q.diskPerHour - 0.002) < 1e-9);
    assert.ok(Math.abs(q.totalPerHour - 0.252) < 1e-9);
  });

  it('quotes on demand at dph_base for an offer a bid search listed, and as before otherwise', () => {
    assert.equal(quoteRent(bidListed, 10, undefined, { bidSearch: true }).gpuPerHour, 0.5);
    assert.equal(quoteRent(onDemandListed, 10, undefined).gpuPerHour, 0.5);
    assert.equal(onDemandGpuPerHour(bidListed, true), 0.5);
    assert.equal(onDemandGpuPerHour(bidListed, false), 0.2, "an on-demand search's own price is what it says");
  });

  it('suggests a little over the minimum, never at or under it', () => {
    assert.equal(suggestBid(0.2), 0.21);
    assert.equal(suggestBid(0.01), 0.011);
    assert.ok(suggestBid(0.3745) > 0.3745);
    assert.equal(minBidOf({ min_bid: 0 }), 0.001);
    assert.equal(minBidOf({ min_bid: undefined }), undefined);
  });

  it('refuses a bid under the minimum or over the maximum, with why', () => {
    const bounds = { min: 0.2, max: 128 };
    assert.equal(checkBid('0.25', bounds), undefined);
    assert.equal(checkBid('$0.2', bounds), undefined);
    assert.equal(parseBid('$0.2', bounds), 0.2);
    assert.match(checkBid('0.19', bounds)!, /at least the current minimum, \$0\.200\/h/);
    assert.match(checkBid('129', bounds)!, /up to \$128\.00\/h/);
    assert.match(checkBid('abc', bounds)!, /dollars per hour/);
    assert.match(checkBid('', bounds)!, /dollars per hour/);
  });

  it('refuses a bid written in hexadecimal, binary, octal or with an exponent, naming the bounds', () => {
    const bounds = { min: 0.2, max: 128 };
    for (const text of ['0x10', '0b1', '0o7', '1e1', '-1', 'Infinity', '1_0', '1,5', '0.5.1', '$', '+0.3']) {
      assert.equal(checkBid(text, bounds), 'Enter a bid in dollars per hour between $0.200 and $128.00, such as 0.21.', text);
      assert.throws(() => parseBid(text, bounds), RangeError, text);
    }
    // What the box takes is what the rent sends: the very number typed, a leading $ and spaces allowed.
    for (const [text, value] of [
      ['0.45', 0.45],
      [' $0.45 ', 0.45],
      ['$ 1', 1],
      ['.5', 0.5],
      ['16.', 16],
      ['0128', 128],
    ] as const) {
      assert.equal(checkBid(text, bounds), undefined, text);
      assert.equal(parseBid(text, bounds), value, text);
    }
  });

  it('sends the bid as the create body price, and the confirmation says it is interruptible', () => {
    const plan = { image: 'ubuntu:22.04', disk: 10, label: 'x', bid: 0.25 };
    assert.equal(rentRequest(plan, undefined).price, 0.25);
    assert.equal('price' in rentRequest({ ...plan, bid: undefined }, undefined), false, 'on demand sends no price');
    const { quote } = priceRent(bidListed, 10, 10, { bid: 0.25 });
    const { detail, quote: shown } = rentConfirmation({ offer: bidListed, plan, credit: 10, templateMode: undefined });
    assert.deepEqual(shown, quote, 'the confirmation shows the price the rent is checked at');
    assert.match(detail, /^Interruptible: stopped if someone bids more; the disk still bills\. GPU bid \$0\.250\/h/);
  });
});
