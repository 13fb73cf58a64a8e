import assert from 'node:assert/strict';
import type { BillingEntry, BillingPage, BillingRange } from '../../../src/core/api/billing';
import { billingNotes } from '../../../src/core/account/present';
import { readSpendChart } from '../../../src/core/billing/chart';
import { exportSpendFlow, type ExportAction, type ExportDeps } from '../../../src/core/billing/exportFlow';
import { lastDays, RECENT_DAYS } from '../../../src/core/billing/period';
import { BILLING_DAYS, readBilling } from '../../../src/core/billing/read';
import { summarise } from '../../../src/core/billing/report';
import type { SaveFs } from '../../../src/core/billing/saveFile';
import { formatDollars } from '../../../src/core/format';
import type { Notice } from '../../../src/core/notice';
import { silentProgress } from '../../../src/core/progress';
import { scriptedAsk } from '../../support/scriptedAsk';

const T = (iso: string) => Date.parse(iso) / 1000;

/** Contracts billed by the second at a rate, as the service bills them. */
const contracts = [
  { type: 'instance', source: 'instance-1', start: T('2026-09-01T00:00:00Z'), end: T('2026-12-01T00:00:00Z'), perHour: 0.25 },
  { type: 'volume', source: 'volume-3', start: T('2026-08-01T00:00:00Z'), end: T('2026-12-01T00:00:00Z'), perHour: 0.011 },
  { type: 'instance', source: 'instance-2', start: T('2026-10-01T20:00:00Z'), end: T('2026-10-02T04:00:00Z'), perHour: 1.2 },
  { type: 'instance', source: 'instance-4', start: T('2026-10-20T00:00:00Z'), end: T('2026-10-21T00:00:00Z'), perHour: 0.8 },
];

/**
 * The service's charges: one line per contract overlapping the range asked, billed for its part
 * inside it (3 decimals), as the simulator's ledger does; every range asked is kept.
 */
function service() {
  const asked: Array<{ list: 'charges' | 'invoices'; from: number; to: number }> = [];
  const billing = {
    charges(r: BillingRange): Promise<BillingPage> {
      asked.push({ list: 'charges', from: r.from, to: r.to });
      const results: BillingEntry[] = contracts.flatMap((c) => {
        const start = Math.max(c.start, r.from);
        const end = Math.min(c.end, r.to);
        if (end <= start) return [];
        const amount = Math.round(((c.perHour * (end - start)) / 3600) * 1000) / 1000;
        return [{ type: c.type, source: c.source, description: `${c.source} charges`, amount, start, end }];
      });
      return Promise.resolve({ results, next_token: null });
    },
    invoices(r: BillingRange): Promise<BillingPage> {
      asked.push({ list: 'invoices', from: r.from, to: r.to });
      return Promise.resolve({ results: [], next_token: null });
    },
  };
  return { billing, asked };
}

const memoryFs = (): SaveFs & { files: Map<string, string> } => {
  const files = new Map<string, string>();
  return {
    files,
    writeNew: (file, data) => (files.set(file, data), Promise.resolve()),
    rename: (from, to) => (files.set(to, files.get(from)!), files.delete(from), Promise.resolve()),
    remove: (file) => (files.delete(file), Promise.resolve()),
  };
};

describe('"last 30 days": one range, one number, in the Billing section, the spend chart and Export Spend', () => {
  // 18:00 UTC: a rolling 30 × 24 h and "the 30 UTC days ending today" differ by 18 hours of spend.
  const NOW = Date.parse('2026-10-31T18:00:00Z');

  it('is the 30 UTC days ending today, today included, from 00:00 UTC of the first to now', () => {
    assert.equal(RECENT_DAYS, 30);
    assert.equal(BILLING_DAYS, RECENT_DAYS);
    const w = lastDays(NOW);
    assert.equal(new Date(w.from * 1000).toISOString(), '2026-10-02T00:00:00.000Z');
    assert.equal(new Date(w.to * 1000).toISOString(), '2026-10-31T18:00:00.000Z');
    assert.deepEqual(lastDays(Date.parse('2026-10-31T00:00:00Z')).from, T('2026-10-02T00:00:00Z'), 'midnight starts a new day');
  });

  it('the section\'s "Charges, last 30 days", the chart\'s total and the export of "Last 30 days" read the same range and show the same sum', async () => {
    const s = service();

    // The Billing section (ui/views/account/billingItems.ts) and the Billing report (ui/commands/billing.ts).
    const read = await readBilling({ client: { billing: s.billing as never } }, BILLING_DAYS, NOW);
    const section = summarise(read.charges, read.invoices).charges;
    const sectionRow = billingNotes(summarise(read.charges, read.invoices), BILLING_DAYS)[0]!.label;

    // The spend chart (ui/views/spendChart.ts).
    const { chart } = await readSpendChart(s.billing as never, NOW);

    // Export Spend, "Last 30 days" (ui/commands/billing.ts).
    const notices: Array<Notice<ExportAction>> = [];
    const fs = memoryFs();
    const deps: ExportDeps = {
      ask: scriptedAsk([{ pick: 'Last 30 days' }, { pick: 'CSV' }]),
      billing: () => s.billing as never,
      labels: () => new Map(),
      chooseTarget: () => Promise.resolve('/spend.csv'),
      fs,
      notify: (n) => (notices.push(n), Promise.resolve(undefined)),
      progress: silentProgress(),
      now: () => NOW,
      tempSuffix: 'test',
    };
    const outcome = await exportSpendFlow(deps);
    assert.equal(outcome.kind, 'written');
    if (outcome.kind !== 'written') return;

    // One number.
    assert.equal(chart.total, section);
    assert.equal(outcome.charges, section);
    const shown = formatDollars(section);
    assert.equal(sectionRow, `Charges, last 30 days: ${shown}`);
    assert.match(chart.text, new RegExp(`^Total: ${shown.replace('$', '\\$')}$`, 'm'));
    assert.ok(outcome.notice.text.includes(`(${shown})`), outcome.notice.text);
    const csv = fs.files.get('/spend.csv')!;
    const amounts = csv
      .split('\r\n')
      .slice(1, -1)
      .map((line) => Number(line.split(',')[9]));
    assert.equal(formatDollars(amounts.reduce((a, b) => a + b, 0)), shown, 'the rows of the file add up to it too');

    // One range asked of the service by all three.
    const window = lastDays(NOW);
    const ranges = s.asked.filter((a) => a.list === 'charges').map(({ from, to }) => ({ from, to }));
    assert.equal(ranges.length, 3);
    for (const r of ranges) assert.deepEqual(r, window);
    assert.deepEqual({ from: outcome.period.from, to: outcome.period.to }, window);
    assert.equal(outcome.period.name, '2026-10-02 to 2026-10-31');
    assert.equal(chart.days.length, 30);
    assert.equal(chart.days[0]!.day, '2026-10-02');
    assert.equal(chart.days.at(-1)!.day, '2026-10-31');
  });
});
