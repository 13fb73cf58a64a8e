import assert from 'node:assert/strict';
import type { BillingEntry, BillingPage } from '../../../src/core/api/billing';
import { readSpendChart } from '../../../src/core/billing/chart';
import { spendCsv, spendJson } from '../../../src/core/billing/exportFormat';
import { exportSpendFlow, type ExportAction, type ExportDeps } from '../../../src/core/billing/exportFlow';
import { LifetimeCosts, lifetimeCostText } from '../../../src/core/billing/lifetime';
import { isOddTime, periodOf, secondsOf, utcDay, utcIso } from '../../../src/core/billing/period';
import { billingReport, summarise } from '../../../src/core/billing/report';
import type { SaveFs } from '../../../src/core/billing/saveFile';
import { chargesByDay, oddTimeNotes, spendRows, spendTotals } from '../../../src/core/billing/spendRows';
import type { Notice } from '../../../src/core/notice';
import { silentProgress } from '../../../src/core/progress';
import { scriptedAsk } from '../../support/scriptedAsk';

const NOW = Date.parse('2026-11-05T12:00:00Z');
const T = (iso: string) => Date.parse(iso) / 1000;

const good: BillingEntry[] = [
  {
    type: 'instance',
    source: 'instance-7',
    description: 'Instance 7 Charges',
    amount: 12,
    start: T('2026-10-10T00:00:00Z'),
    end: T('2026-10-11T00:00:00Z'),
  },
  {
    type: 'instance',
    source: 'instance-8',
    description: 'Instance 8 Charges',
    amount: 0.75,
    start: T('2026-10-12T00:00:00Z'),
    end: T('2026-10-12T02:00:00Z'),
  },
];
/** Times no date can be written of: microseconds, far too large, negative, a numeral too long. */
const odd: BillingEntry[] = [
  {
    type: 'instance',
    source: 'instance-21',
    description: 'in microseconds',
    amount: 1,
    start: 1_791_763_200_000_000,
    end: T('2026-10-20T00:00:00Z'),
  },
  { type: 'instance', source: 'instance-22', description: 'too large', amount: 2, start: 1e300, end: 1e300 },
  { type: 'volume', source: 'volume-23', description: 'negative', amount: 3, start: -1e13 },
  {
    type: 'instance',
    source: 'instance-24',
    description: 'a long numeral',
    amount: 4,
    start: '99999999999999999999',
    end: '99999999999999999999',
  },
];
const charges = [good[0]!, ...odd, good[1]!];
const invoices: BillingEntry[] = [{ type: 'credit', source: 'stripe', description: 'top-up', amount: -20, start: 1e300 }];

const memoryFs = (): SaveFs & { files: Map<string, string> } => {
  const files = new Map<string, string>();
  return {
    files,
    writeNew: (file, data) => (files.set(file, data), Promise.resolve()),
    rename: (from, to) => (files.set(to, files.get(from)!), files.delete(from), Promise.resolve()),
    remove: (file) => (files.delete(file), Promise.resolve()),
  };
};

function exportWith(format: 'CSV' | 'JSON') {
  const fs = memoryFs();
  const notices: Array<Notice<ExportAction>> = [];
  const page = (results: BillingEntry[]): Promise<BillingPage> => Promise.resolve({ results, next_token: null });
  const deps: ExportDeps = {
    ask: scriptedAsk([{ pick: 'Last month' }, { pick: format }]),
    billing: () => ({ charges: () => page(charges), invoices: () => page(invoices) }) as never,
    labels: () => new Map(),
    chooseTarget: (name) => Promise.resolve(`/out/${name}`),
    fs,
    notify: (n) => (notices.push(n), Promise.resolve(undefined)),
    progress: silentProgress(),
    now: () => NOW,
    tempSuffix: 'test',
  };
  return { run: () => exportSpendFlow(deps), fs, notices };
}

describe('a charge whose time is no time: the export keeps every line and names the odd ones', () => {
  it('reads a time only from 1970 to the end of 9999; microseconds, 1e300, -1e13 and a 20-digit numeral are odd', () => {
    assert.equal(secondsOf(T('2026-10-10T00:00:00Z')), T('2026-10-10T00:00:00Z'));
    assert.equal(secondsOf('2026-10-10T00:00:00Z'), T('2026-10-10T00:00:00Z'));
    assert.equal(secondsOf('1791763200'), 1_791_763_200);
    assert.equal(secondsOf(253_402_300_799), 253_402_300_799);
    for (const when of [1_791_763_200_000_000, 1_791_763_200_000, 1e300, -1e13, -1, '99999999999999999999', 'not a day', NaN, Infinity]) {
      assert.equal(secondsOf(when), undefined, String(when));
      assert.equal(isOddTime(when), true, String(when));
      assert.equal(utcDay(when as number), '');
      assert.equal(utcIso(when as number), '');
    }
    for (const none of [undefined, null, '', '  ']) assert.equal(isOddTime(none), false, String(none));
  });

  it('Export Spend as CSV writes every line: the odd ones kept with their amounts and no date, and named in the file and the notice', async () => {
    const e = exportWith('CSV');
    const outcome = await e.run();
    assert.equal(outcome.kind, 'written');
    if (outcome.kind !== 'written') return;
    const csv = e.fs.files.get('/out/gpu-rental-spend-2026-10.csv')!;
    const lines = csv.split('\r\n');
    assert.match(
      csv,
      /^2026-10-10,charge,instance,7,,instance,Instance 7 Charges,,,12\.00,2026-10-10T00:00:00Z,2026-10-11T00:00:00Z,instance-7$/m,
    );
    assert.match(csv, /^2026-10-12,charge,instance,8,/m);
    for (const o of odd.slice(1)) {
      const row = lines.find((l) => l.includes(`,${o.description},`));
      assert.ok(row, `${o.source} is in the file`);
      assert.match(row, /^,charge,/, `${o.source} has no date`);
    }
    // instance-21's end is a time: its row keeps it, and takes its day from it, as a line with no start does.
    assert.match(
      lines.find((l) => l.includes(',in microseconds,'))!,
      /^2026-10-20,charge,.*,1\.00,,2026-10-20T00:00:00Z,instance-21$/,
    );
    const notes = lines.filter((l) => l.startsWith(',odd_time,'));
    assert.equal(notes.length, 5, 'four charges and the credit are named');
    assert.match(csv, /Charge line instance-22 \(""too large"", \$2\.00\) has start=1e\+300, end=1e\+300, which is not a time/);
    assert.match(csv, /Charge line volume-23 \(""negative"", \$3\.00\) has start=-10000000000000/);
    assert.match(csv, /Charge line instance-24 \(""a long numeral"", \$4\.00\) has start=99999999999999999999, end=99999999999999999999/);
    assert.match(csv, /Credit line stripe \(""top-up"", \$20\.00\) has start=1e\+300/);

    assert.equal(outcome.charges, 22.75, 'every line counts in the total');
    assert.equal(outcome.chargeLines, 6);
    assert.equal(outcome.notice.severity, 'warning');
    assert.match(outcome.notice.text, /exported 6 charge lines \(\$22\.75\) and 1 credit for October 2026/);
    assert.match(
      outcome.notice.text,
      /Charge line instance-22 \("too large", \$2\.00\) has start=1e\+300, end=1e\+300, which is not a time: the line is kept with its amount, and that time is left empty\./,
    );
    assert.match(outcome.notice.text, /Charge line volume-23 \("negative", \$3\.00\) has start=-10000000000000, which is not a time/);
    assert.doesNotMatch(outcome.notice.text, /instance-21/, 'the notice names three; the file names every one');
    assert.match(csv, /Charge line instance-21 \(""in microseconds"", \$1\.00\) has start=1791763200000000, which is not a time/);
    assert.match(outcome.notice.text, /2 more lines have a time that cannot be read; the file names them\./);
  });

  it('Export Spend as JSON writes every row too, with the odd times as sent and the notes', async () => {
    const e = exportWith('JSON');
    const outcome = await e.run();
    assert.equal(outcome.kind, 'written');
    const json = JSON.parse(e.fs.files.get('/out/gpu-rental-spend-2026-10.json')!) as {
      oddTimes: string[];
      totals: { charges: number };
      rows: Array<{ date: string; source: string; start: string | null; oddTimes?: { start?: string; end?: string } }>;
    };
    assert.equal(json.rows.length, 7);
    assert.equal(json.totals.charges, 22.75);
    assert.equal(json.oddTimes.length, 5);
    const r22 = json.rows.find((r) => r.source === 'instance-22')!;
    assert.deepEqual([r22.date, r22.start, r22.oddTimes], ['', null, { start: '1e+300', end: '1e+300' }]);
    assert.equal(json.rows.find((r) => r.source === 'instance-7')!.date, '2026-10-10');
  });

  it('the totals by day, the chart, the report and the cost so far read past an odd time, and count its amount', async () => {
    const period = periodOf('lastMonth', NOW);
    const rows = spendRows(charges, invoices, new Map());
    const totals = spendTotals(charges, invoices, rows, period);
    const byDay = chargesByDay(charges, period.from, period.to);
    assert.equal(byDay.reduce((t, d) => t + d.amount, 0).toFixed(6), (22.75).toFixed(6));
    assert.equal(totals.charges, summarise(charges, invoices).charges);
    assert.equal(oddTimeNotes(rows).length, 5);
    assert.doesNotThrow(() => spendCsv(rows, { period, generatedAt: new Date(NOW), incomplete: [] }));
    assert.doesNotThrow(() => spendJson(rows, totals, { period, generatedAt: new Date(NOW), incomplete: [] }));

    const report = billingReport(charges, invoices, period, new Date(NOW));
    assert.match(report, /^\| {2}\| instance-22 \| too large \| \$2\.00 \|$/m);
    assert.match(report, /^\| 2026-10-10 \| instance-7 \|/m);

    const page = (): Promise<BillingPage> => Promise.resolve({ results: charges, next_token: null });
    const { chart } = await readSpendChart({ charges: page } as never, NOW);
    assert.equal(chart.total, 22.75);

    const costs = new LifetimeCosts({
      charges: () =>
        Promise.resolve({
          results: [
            { source: 'instance-22', amount: 2, start: 1e300, end: 1e300 },
            { source: 'instance-22', amount: 1, start: -1e13, end: 1_791_763_200_000_000 },
          ],
          next_token: null,
        }),
      now: () => NOW,
    });
    const cost = await costs.costOf({ id: 22, start_date: T('2026-11-01T12:00:00Z') });
    assert.equal(cost.kind, 'read');
    assert.match(lifetimeCostText(cost, NOW), /^Cost so far: \$3\.00 over 4 days \(charges up to 2026-11-05 12:00 UTC\)$/);
  });
});
