import assert from 'node:assert/strict';
import type { BillingEntry } from '../../../src/core/api/billing';
import { amountText, csvField, guardFormula, spendCsv, spendJson } from '../../../src/core/billing/exportFormat';
import { periodOf } from '../../../src/core/billing/period';
import { summarise } from '../../../src/core/billing/report';
import { chargesByDay, spendRows, spendTotals } from '../../../src/core/billing/spendRows';

const T = (iso: string) => Date.parse(iso) / 1000;
const period = periodOf('lastMonth', Date.parse('2026-11-05T12:00:00Z'));

const charges: BillingEntry[] = [
  {
    type: 'instance',
    source: 'instance-12',
    description: 'Instance 12 Charges - 1 days',
    amount: 9.6,
    start: T('2026-10-02T00:00:00Z'),
    end: T('2026-10-03T00:00:00Z'),
    metadata: { label: 'train, "big" run' },
    items: [
      { type: 'gpu', description: '24.000 hours at $0.389/hour', amount: 9.336 },
      { type: 'disk', description: '24.000 hours at $0.011/hour', amount: 0.264 },
    ],
  },
  {
    type: 'instance',
    source: 'instance-40',
    description: '=HYPERLINK("http://x","click")',
    amount: 0.125,
    start: T('2026-10-01T12:00:00Z'),
    end: T('2026-10-01T18:00:00Z'),
    metadata: {},
    items: [{ type: 'gpu', description: '6.000 hours at $0.020/hour', amount: 0.12 }],
  },
  {
    type: 'volume',
    source: 'volume-3',
    description: 'Volume 3 Charges\nline two',
    amount: 1.5,
    start: T('2026-10-05T00:00:00Z'),
    end: T('2026-10-05T12:00:00Z'),
  },
];
const invoices: BillingEntry[] = [
  {
    type: 'credit',
    source: 'stripe',
    description: 'Manual Billing from MASTERCARD ...7376',
    amount: -25,
    start: T('2026-10-04T09:00:00Z'),
    end: T('2026-10-04T09:05:00Z'),
    metadata: { invoice_id: 2185418, service: 'stripe_payments' },
  },
];
const labels = new Map([[40, '@now-listed']]);
const info = { period, generatedAt: new Date('2026-11-05T12:00:00Z'), incomplete: [] as string[] };

describe('spend export: CSV and JSON', () => {
  it('writes the CSV golden: header, charges oldest first, then credits; quoting, formula guard, hours and rate', () => {
    const rows = spendRows(charges, invoices, labels);
    assert.equal(
      spendCsv(rows, info),
      [
        'date,kind,source_kind,source_id,label,type,description,hours,rate_usd_per_hour,amount_usd,start_utc,end_utc,source',
        `2026-10-01,charge,instance,40,'@now-listed,instance,"'=HYPERLINK(""http://x"",""click"")",6,0.02,0.125,2026-10-01T12:00:00Z,2026-10-01T18:00:00Z,instance-40`,
        '2026-10-02,charge,instance,12,"train, ""big"" run",instance,Instance 12 Charges - 1 days,24,0.389,9.60,2026-10-02T00:00:00Z,2026-10-03T00:00:00Z,instance-12',
        '2026-10-05,charge,volume,3,,volume,"Volume 3 Charges\nline two",,,1.50,2026-10-05T00:00:00Z,2026-10-05T12:00:00Z,volume-3',
        '2026-10-04,credit,invoice,2185418,,credit,Manual Billing from MASTERCARD ...7376,,,25.00,2026-10-04T09:00:00Z,2026-10-04T09:05:00Z,stripe',
        '',
      ].join('\r\n'),
    );
  });

  it('guards every text cell a spreadsheet would run, and nothing else', () => {
    for (const bad of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) assert.equal(guardFormula(bad), `'${bad}`);
    assert.equal(guardFormula('Instance 12'), 'Instance 12');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('plain'), 'plain');
  });

  it('writes amounts with 2 to 4 decimals, as the service gives them', () => {
    assert.deepEqual([25, 1.5, 38.421, 0.1234, 0.1 + 0.2, -0].map(amountText), ['25.00', '1.50', '38.421', '0.1234', '0.30', '0.00']);
  });

  it('says in the CSV, as a row of kind incomplete, when a page limit cut the period short', () => {
    const csv = spendCsv(spendRows(charges, invoices, labels), { ...info, incomplete: ['Only the first 200 pages of charges were read.'] });
    assert.match(csv, /\r\n,incomplete,,,,,Only the first 200 pages of charges were read\.,,,,,,\r\n$/);
  });

  it("JSON totals are summarise() totals, the Billing view's, with by day, by instance and by label", () => {
    const rows = spendRows(charges, invoices, labels);
    const totals = spendTotals(charges, invoices, rows, period);
    const json = JSON.parse(spendJson(rows, totals, info)) as {
      complete: boolean;
      totals: {
        charges: number;
        credits: number;
        chargeLines: number;
        creditLines: number;
        byDay: Array<{ day: string; amount: number }>;
        byInstance: Array<{ source: string; label: string; amount: number }>;
        byLabel: Array<{ label: string; amount: number }>;
      };
      rows: Array<{ kind: string; amount: number; label: string }>;
    };
    const s = summarise(charges, invoices);
    assert.equal(json.totals.charges, Number(s.charges.toFixed(4)));
    assert.equal(json.totals.credits, 25);
    assert.equal(json.totals.chargeLines, 3);
    assert.equal(json.totals.creditLines, 1);
    assert.equal(json.complete, true);
    assert.deepEqual(
      json.totals.byInstance.map((b) => [b.source, b.label, b.amount]),
      [
        ['instance-12', 'train, "big" run', 9.6],
        ['volume-3', '', 1.5],
        ['instance-40', '@now-listed', 0.125],
      ],
    );
    assert.deepEqual(
      json.totals.byLabel.map((b) => b.label),
      ['train, "big" run', '', '@now-listed'],
    );
    assert.equal(json.totals.byDay.length, 31, 'every day of October');
    const byDay = Object.fromEntries(json.totals.byDay.map((d) => [d.day, d.amount]));
    assert.equal(byDay['2026-10-01'], 0.125);
    assert.equal(byDay['2026-10-02'], 9.6, 'a charge ending at midnight stays on its day');
    assert.equal(byDay['2026-10-05'], 1.5);
    const daySum = json.totals.byDay.reduce((t, d) => t + d.amount, 0);
    assert.ok(Math.abs(daySum - s.charges) < 1e-9, 'the days add up to the charges');
    assert.deepEqual(
      json.rows.map((r) => r.kind),
      ['charge', 'charge', 'charge', 'credit'],
    );
  });

  it('spreads a charge over the UTC days it covers, by time, and keeps the total', () => {
    const long: BillingEntry = {
      type: 'instance',
      source: 'instance-1',
      amount: 3,
      start: T('2026-10-01T12:00:00Z'),
      end: T('2026-10-03T00:00:00Z'),
    };
    const days = chargesByDay([long], T('2026-10-01T00:00:00Z'), T('2026-10-03T23:59:59Z'));
    assert.deepEqual(
      days.map((d) => [d.day, Number(d.amount.toFixed(6))]),
      [
        ['2026-10-01', 1],
        ['2026-10-02', 2],
        ['2026-10-03', 0],
      ],
    );
  });

  it('labels a charge from its record first, then from the instances listed now, else leaves it empty', () => {
    const rows = spendRows(
      [
        { source: 'instance-1', amount: 1, metadata: { label: 'from-record' } },
        { source: 'instance-2', amount: 1 },
        { source: 'instance-3', amount: 1 },
      ],
      [],
      new Map([
        [1, 'listed-1'],
        [2, 'listed-2'],
      ]),
    );
    assert.deepEqual(rows.map((r) => r.label).sort(), ['', 'from-record', 'listed-2']);
  });
});
