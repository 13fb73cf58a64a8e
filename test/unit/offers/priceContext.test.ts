import assert from 'node:assert/strict';
import type { GpuHistory, GpuMetric } from '../../../src/core/api/metrics';
import { rentConfirmation } from '../../../src/core/rent/confirmation';
import { quoteRent } from '../../../src/core/rent/quote';
import { priceableOffer } from '../../support';
import {
  rentPriceContext,
  describePriceContext,
  medianOf,
  priceContextFor,
  priceStatsFrom,
  pricePerGpu,
  type GpuPriceStats,
} from '../../../src/core/offers/priceContext';

const HOUR = 3600;
const stats = (fields: Partial<GpuPriceStats> = {}): GpuPriceStats => ({ gpuName: 'RTX 4090', history: [], median7d: 0.5, ...fields });
const offer = (dph_total: number, num_gpus = 1, gpu_name = 'RTX 4090') => ({ gpu_name, num_gpus, dph_total });

function metric(gpu_name: string, fields: Partial<GpuMetric> = {}): GpuMetric {
  return { gpu_name, ...fields } as GpuMetric;
}

/** Hourly points ending at `end`, each median given by `at(hoursBeforeEnd)`. */
function hourly(
  end: number,
  hours: number,
  at: (h: number) => number | undefined,
  series: 'avail_median' | 'rented_median' = 'avail_median',
): GpuHistory {
  const pricing: GpuHistory['pricing'] = [];
  for (let h = hours - 1; h >= 0; h--) {
    const v = at(h);
    pricing.push(v === undefined ? { t: end - h * HOUR } : { t: end - h * HOUR, [series]: v });
  }
  return { pricing, stats: {} };
}

describe('price context', () => {
  it('compares the price per GPU with the 7-day median, in whole percent', () => {
    assert.deepEqual(priceContextFor(offer(0.82, 2), stats()), {
      percent: 18,
      relation: 'under',
      text: '18% under the 7-day median',
      medianPerGpu: 0.5,
      basis: '7d',
    });
    assert.equal(priceContextFor(offer(2.5, 4), stats())!.text, '25% over the 7-day median');
    assert.equal(priceContextFor(offer(0.5), stats())!.relation, 'at');
  });

  it('says "at the 7-day median" within 2 % either side, and not beyond', () => {
    for (const price of [0.49, 0.5, 0.51]) {
      assert.deepEqual(priceContextFor(offer(price), stats()), {
        percent: 0,
        relation: 'at',
        text: 'at the 7-day median',
        medianPerGpu: 0.5,
        basis: '7d',
      });
    }
    assert.equal(priceContextFor(offer(0.485), stats())!.text, '3% under the 7-day median');
    assert.equal(priceContextFor(offer(0.515), stats())!.text, '3% over the 7-day median');
    assert.equal(priceContextFor(offer(0.511), stats())!.text, '2% over the 7-day median', 'just outside the band, rounded');
  });

  it('falls back to the current median, saying so, and is unknown without either', () => {
    const current = stats({ median7d: undefined, currentMedian: 0.4 });
    assert.equal(priceContextFor(offer(0.3), current)!.text, '25% under the current median');
    assert.equal(priceContextFor(offer(0.3), stats({ median7d: undefined })), undefined);
    assert.equal(priceContextFor(offer(0.3), undefined), undefined);
    assert.equal(priceContextFor(offer(0.3, 0), stats()), undefined, 'no GPUs: no price per GPU');
    assert.equal(priceContextFor(offer(0.3), stats({ median7d: 0 })), undefined, 'a zero median compares nothing');
  });

  it('describes the line the tooltip and the confirmation show', () => {
    assert.equal(describePriceContext(offer(0.82, 2), stats()), 'Price: 18% under the 7-day median for RTX 4090 ($0.500/GPU/h)');
    assert.equal(
      describePriceContext(offer(1.1, 1), stats({ median7d: undefined, currentMedian: 1 })),
      'Price: 10% over the current median for RTX 4090 ($1.00/GPU/h)',
    );
    assert.equal(describePriceContext(offer(0.82, 2), undefined), 'No price history for this GPU');
  });

  it('computes a median and a price per GPU', () => {
    assert.equal(medianOf([]), undefined);
    assert.equal(medianOf([3, 1, 2]), 2);
    assert.equal(medianOf([4, 1, 3, 2]), 2.5);
    assert.equal(pricePerGpu({ num_gpus: 4, dph_total: 2 }), 0.5);
    assert.equal(pricePerGpu({ num_gpus: 0, dph_total: 2 }), undefined);
    assert.equal(pricePerGpu({ num_gpus: 1, dph_total: Number.NaN }), undefined);
  });
});

describe('price stats from the metrics', () => {
  const end = 1_790_000_000;

  it('takes the 7-day median over the last 7 days of the history, counted back from its newest point', () => {
    // 14 days: the older week at 1.0, the last week at 0.5 (one odd hour at 9).
    const history = new Map([['RTX 4090', hourly(end, 14 * 24, (h) => (h === 3 ? 9 : h < 7 * 24 ? 0.5 : 1))]]);
    const s = priceStatsFrom([metric('RTX 4090', { price_median: 0.45, price_p10: 0.3, price_p90: 0.8 })], history).get('RTX 4090')!;
    assert.equal(s.median7d, 0.5);
    assert.equal(s.currentMedian, 0.45);
    assert.deepEqual([s.p10, s.p90], [0.3, 0.8]);
    assert.equal(s.history.length, 14 * 24);
    assert.deepEqual(s.history[0], { t: end - (14 * 24 - 1) * HOUR, median: 1 });
    assert.ok(
      s.history.every((p, i) => i === 0 || p.t > s.history[i - 1]!.t),
      'oldest first',
    );
  });

  it('draws from avail_median, or rented_median for a model with no avail_median, never both', () => {
    const mixed: GpuHistory = {
      pricing: [
        { t: end - HOUR, avail_median: 0.5, rented_median: 0.4 },
        { t: end, rented_median: 0.45 },
      ],
      stats: {},
    };
    const rentedOnly = hourly(end, 3, () => 0.3, 'rented_median');
    const out = priceStatsFrom(
      undefined,
      new Map([
        ['A', mixed],
        ['B', rentedOnly],
      ]),
    );
    assert.deepEqual(out.get('A')!.history, [{ t: end - HOUR, median: 0.5 }]);
    assert.deepEqual(
      out.get('B')!.history.map((p) => p.median),
      [0.3, 0.3, 0.3],
    );
  });

  it('gives what is known for a GPU missing from either answer, and nothing for one missing from both', () => {
    const out = priceStatsFrom(
      [metric('H100 SXM', { price_median: 2.1 }), metric('Odd', { price_median: -1 })],
      new Map([['RTX 4090', hourly(end, 5, () => 0.4)]]),
    );
    assert.deepEqual(out.get('H100 SXM'), { gpuName: 'H100 SXM', history: [], currentMedian: 2.1, p10: undefined, p90: undefined });
    assert.equal(out.get('RTX 4090')!.currentMedian, undefined);
    assert.equal(out.get('RTX 4090')!.median7d, 0.4);
    assert.equal(out.get('Odd')!.currentMedian, undefined, 'a negative price is no price');
    assert.equal(out.has('A100 SXM4'), false);
    assert.equal(
      priceStatsFrom(undefined, new Map([['Empty', hourly(end, 3, () => undefined)]])).size,
      0,
      'a history without medians says nothing',
    );
  });
});

describe('price context in the rent confirmation', () => {
  it('tells automation how the price per GPU it pays compares with the going rate, and nothing when unknown', () => {
    const offer = priceableOffer();
    const plan = { image: 'ubuntu:22.04', disk: 40, label: 'train' };
    const quote = quoteRent(offer, 40, 100);
    const going = stats({ gpuName: offer.gpu_name, median7d: 0.61 });
    const { detail } = rentConfirmation({ offer, plan, credit: 100, templateMode: undefined, priceStats: going });
    // What the rent pays for this disk ($0.41/h), not the listed price for the searched disk.
    assert.equal(
      detail,
      `GPU $0.400/h + disk $0.010/h (40 GB). About $9.84 per day. Price per GPU: 33% under the 7-day median for ${offer.gpu_name} ($0.610/GPU/h).`,
    );
    assert.equal(rentPriceContext(offer, quote.totalPerHour, going)?.percent, 33);
    // An interruptible rent compares its bid: $0.20 + $0.01 disk against $0.61.
    assert.equal(rentPriceContext(offer, 0.21, going)?.text, '66% under the 7-day median');
    assert.equal(
      rentConfirmation({ offer, plan, credit: 100, templateMode: undefined }).detail,
      'GPU $0.400/h + disk $0.010/h (40 GB). About $9.84 per day.',
    );
  });
});
