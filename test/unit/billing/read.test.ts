import assert from 'node:assert/strict';
import { lastDays } from '../../../src/core/billing/period';
import { BILLING_DAYS, readBilling } from '../../../src/core/billing/read';
import { summarise } from '../../../src/core/billing/report';
import { DEMO_KEY, clientFor, rentOne, startSimulator, type Marketplace } from '../../support';

describe('billing reads: the last 30 days of charges and invoices', () => {
  let sim: Marketplace;
  let clock = Date.parse('2026-10-01T12:00:00Z');
  const TOP_UPS = 230;
  const rented: number[] = [];
  // The session is what the extension passes; only its client is read.
  const session = () => ({ client: clientFor(sim.url, DEMO_KEY).client });

  before(async () => {
    // The opening credit is bought now, 40 days before the reads: outside the range.
    sim = await startSimulator({ now: () => clock });
    clock += 40 * 86_400_000;
    for (let i = 0; i < TOP_UPS; i++) {
      clock += 1_000;
      sim.control.addCredit(sim.accountId, 1);
    }
    for (let i = 0; i < 2; i++) rented.push((await rentOne(sim)).id);
    clock += 2 * 3_600_000;
  });
  after(() => sim.stop());

  it('looks back 30 days', () => {
    assert.equal(BILLING_DAYS, 30);
  });

  it('reads every invoice page and each instance charge in the range, and says the range', async () => {
    const read = await readBilling(session(), BILLING_DAYS, clock);
    assert.equal(read.to, Math.ceil(clock / 1000));
    assert.deepEqual(
      { from: read.from, to: read.to },
      lastDays(clock, 30),
      'the 30 UTC days ending today, as the chart and the export read them',
    );
    assert.equal(read.invoices.length, TOP_UPS, 'three pages of top-ups, and not the opening credit from 40 days ago');
    assert.ok(read.invoices.every((i) => i.amount === -1));
    assert.deepEqual(read.charges.map((c) => c.source).sort(), rented.map((id) => `instance-${id}`).sort());
    const summary = summarise(read.charges, read.invoices);
    assert.equal(summary.credits, TOP_UPS);
    assert.ok(summary.charges > 0);
  });

  it('stops after 20 pages of each list', async () => {
    for (let i = 0; i < 2_000; i++) {
      clock += 1_000;
      sim.control.addCredit(sim.accountId, 1);
    }
    const read = await readBilling(session(), BILLING_DAYS, clock);
    assert.equal(read.invoices.length, 20 * 100, 'invoices come 100 a page');
    assert.equal(read.charges.length, rented.length);
  });
});
