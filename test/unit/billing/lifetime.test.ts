import assert from 'node:assert/strict';
import type { BillingPage, BillingRange } from '../../../src/core/api/billing';
import { LifetimeCosts, lifetimeCostText, tooltipWithCost } from '../../../src/core/billing/lifetime';

const NOW = Date.parse('2026-10-31T12:00:00Z');
const START = NOW / 1000 - 3 * 86_400 - 3_600;

function costs(pages: (r: BillingRange) => Promise<BillingPage>) {
  let now = NOW;
  const asked: BillingRange[] = [];
  const lifetime = new LifetimeCosts({ charges: (r) => (asked.push(r), pages(r)), now: () => now });
  return { lifetime, asked, advance: (ms: number) => (now += ms) };
}

const page: BillingPage = {
  results: [
    { source: 'instance-5', amount: 10, start: START, end: NOW / 1000 - 7_200 },
    { source: 'instance-5', amount: 2.34, start: START, end: NOW / 1000 - 7_200 },
    { source: 'instance-6', amount: 99, start: START, end: NOW / 1000 },
  ],
  next_token: null,
};

describe("an instance's lifetime cost in its tooltip", () => {
  it('sums the charges of instance-<id> since its start and says over how long and up to when', async () => {
    const t = costs(() => Promise.resolve(page));
    const cost = await t.lifetime.costOf({ id: 5, start_date: START });
    assert.equal(lifetimeCostText(cost, NOW), 'Cost so far: $12.34 over 3 days (charges up to 2026-10-31 10:00 UTC)');
    assert.equal(t.asked[0]!.from, Math.floor(START));
    assert.deepEqual(t.asked[0]!.types, ['instance']);
    assert.equal(tooltipWithCost('**a**', cost, NOW), '**a**\n\nCost so far: $12.34 over 3 days (charges up to 2026-10-31 10:00 UTC)');
  });

  it('reads once for hovers close together and again after a few minutes; never more than one read at a time', async () => {
    const t = costs(() => Promise.resolve(page));
    await Promise.all([t.lifetime.costOf({ id: 5, start_date: START }), t.lifetime.costOf({ id: 5, start_date: START })]);
    await t.lifetime.costOf({ id: 5, start_date: START });
    assert.equal(t.asked.length, 1);
    t.advance(60_000);
    await t.lifetime.costOf({ id: 5, start_date: START });
    assert.equal(t.asked.length, 1, 'a minute later: still cached');
    t.advance(5 * 60_000);
    await t.lifetime.costOf({ id: 5, start_date: START });
    assert.equal(t.asked.length, 2, 'stale after a few minutes');
    t.lifetime.forget();
    await t.lifetime.costOf({ id: 5, start_date: START });
    assert.equal(t.asked.length, 3, 'forgotten when the account changes');
  });

  it('says "not read" with the reason when the read fails, and does not ask again at once', async () => {
    const t = costs(() => Promise.reject(new Error('the key lacks *billing_read*')));
    const cost = await t.lifetime.costOf({ id: 5, start_date: START });
    assert.equal(lifetimeCostText(cost, NOW), 'Cost so far: not read (the key lacks \\*billing\\_read\\*)');
    await t.lifetime.costOf({ id: 5, start_date: START });
    assert.equal(t.asked.length, 1);
  });

  it('speaks short lives in hours and minutes, and says when no start time was given', async () => {
    const t = costs(() => Promise.resolve({ results: [{ source: 'instance-9', amount: 0.5, end: NOW / 1000 }], next_token: null }));
    const hours = await t.lifetime.costOf({ id: 9, duration: 5 * 3_600 + 30 });
    assert.match(lifetimeCostText(hours, NOW), /^Cost so far: \$0\.500 over 5 hours /);
    assert.match(lifetimeCostText(await t.lifetime.costOf({ id: 10 }), NOW), /not read \(the service gave no start time\)/);
  });
});
