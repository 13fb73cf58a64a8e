import assert from 'node:assert/strict';
import type { BillingPage, BillingRange } from '../../../src/core/api/billing';
import { formatDollars } from '../../../src/core/format';
import { readMonthTotals, spendNotes } from '../../../src/core/billing/monthTotals';
import { periodOf } from '../../../src/core/billing/period';
import { spendRows, spendTotals } from '../../../src/core/billing/spendRows';
import { summarise } from '../../../src/core/billing/report';
import { readPages, readSpend } from '../../../src/core/billing/spendRead';
import { DEMO_KEY, clientFor, rentOne, startSimulator, type Marketplace } from '../../support';

/** A list of `total` entries handed out `size` a page, with tokens as the service hands them. */
function pagedList(total: number, size: number) {
  const asked: Array<string | undefined> = [];
  const read = (afterToken?: string): Promise<BillingPage> => {
    asked.push(afterToken);
    const offset = afterToken ? Number(afterToken.slice(1)) : 0;
    const results = Array.from({ length: Math.max(0, Math.min(size, total - offset)) }, (_, i) => ({
      amount: 1,
      source: `instance-${offset + i}`,
    }));
    return Promise.resolve({ results, next_token: offset + size < total ? `p${offset + size}` : null });
  };
  return { read, asked };
}

describe('spend reads: every page, and a limit that is said', () => {
  it('follows next_token through many pages until the service says there is no more', async () => {
    const list = pagedList(2_345, 100);
    const read = await readPages(list.read, 200);
    assert.equal(read.entries.length, 2_345);
    assert.equal(read.pages, 24);
    assert.equal(read.complete, true);
    assert.deepEqual(list.asked.slice(0, 3), [undefined, 'p100', 'p200']);
  });

  it('stops at the page limit and says the read is incomplete', async () => {
    const list = pagedList(10_000, 100);
    const read = await readPages(list.read, 7);
    assert.equal(read.entries.length, 700);
    assert.equal(read.pages, 7);
    assert.equal(read.complete, false);
    assert.equal(list.asked.length, 7);
  });

  it('stops when a token comes back again, rather than reading the same pages forever', async () => {
    let calls = 0;
    const read = await readPages(() => Promise.resolve({ results: [{ amount: 1 }], next_token: calls++ < 2 ? `t${calls}` : 't1' }), 50);
    assert.equal(read.complete, false);
    assert.ok(calls <= 4);
  });

  it('asks charges 500 a page and invoices 100 a page, over the period given', async () => {
    const seen: Array<[string, BillingRange]> = [];
    const billing = {
      charges: (r: BillingRange) => (seen.push(['charges', r]), Promise.resolve({ results: [], next_token: null })),
      invoices: (r: BillingRange) => (seen.push(['invoices', r]), Promise.resolve({ results: [], next_token: null })),
    };
    await readSpend(billing as never, { from: 10, to: 20 });
    assert.deepEqual(
      seen.map(([what, r]) => [what, r.from, r.to, r.limit]),
      [
        ['charges', 10, 20, 500],
        ['invoices', 10, 20, 100],
      ],
    );
  });

  describe('against the simulator', () => {
    let sim: Marketplace;
    let clock = Date.parse('2026-09-20T12:00:00Z');
    const TOP_UPS = 250;
    const rented: number[] = [];

    before(async () => {
      sim = await startSimulator({ now: () => clock });
      clock = Date.parse('2026-10-02T08:00:00Z');
      for (let i = 0; i < TOP_UPS; i++) {
        clock += 60_000;
        sim.control.addCredit(sim.accountId, 1);
      }
      for (let i = 0; i < 3; i++) rented.push((await rentOne(sim)).id);
      clock = Date.parse('2026-11-03T09:00:00Z');
    });
    after(() => sim.stop());

    it('reads every page of last month: three pages of invoices, and charges a page at a time', async () => {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const period = periodOf('lastMonth', clock);
      const read = await readSpend(client.billing, period);
      assert.equal(read.invoices.entries.length, TOP_UPS, 'not the opening credit of September');
      assert.equal(read.invoices.pages, 3);
      assert.equal(read.invoices.complete, true);
      assert.deepEqual(read.charges.entries.map((c) => c.source).sort(), rented.map((id) => `instance-${id}`).sort());
      // The same charges, one a page: the pages join up to the same lines and the same total.
      const onePerPage = await readPages((afterToken) => client.billing.charges({ ...period, limit: 1, afterToken }), 200);
      assert.equal(onePerPage.pages, rented.length);
      assert.equal(summarise(onePerPage.entries, []).charges.toFixed(6), summarise(read.charges.entries, []).charges.toFixed(6));
      assert.ok(summarise(read.charges.entries, []).charges > 0);
    });

    it("the Billing section's month totals equal the export's totals for the same month", async () => {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const months = await readMonthTotals(client.billing, clock);
      const last = months.find((m) => m.period.kind === 'lastMonth')!;
      const read = await readSpend(client.billing, last.period);
      const totals = spendTotals(
        read.charges.entries,
        read.invoices.entries,
        spendRows(read.charges.entries, read.invoices.entries, new Map()),
        last.period,
      );
      assert.equal(last.summary.charges, totals.charges);
      assert.equal(last.summary.credits, totals.credits);
      const labels = spendNotes(months).months.map((n) => n.label);
      assert.match(labels[0]!, /^This month \(November 2026\): \$[\d.]+ charges, \$0\.00 credits$/);
      assert.equal(labels[1], `Last month (October 2026): ${formatDollars(totals.charges)} charges, $${TOP_UPS}.00 credits`);
    });
  });
});
