import assert from 'node:assert/strict';
import type { BillingEntry } from '../../../src/core/api/billing';
import { billingReport, summarise } from '../../../src/core/billing/report';

const charge = (source: string, amount: number, start = 1_763_856_000): BillingEntry =>
  ({ source, amount, start, description: `GPU for ${source}` }) as BillingEntry;

describe('billing: the report', () => {
  const charges = [charge('instance-1', 1.25), charge('instance-2', 0.5), charge('instance-1', 0.75), charge('volume-3', 0.1)];
  const invoices = [{ type: 'credit', amount: -250, start: 1_763_000_000, description: 'Opening credit' } as BillingEntry];

  it('totals charges per source, largest first, and credits as positive amounts', () => {
    const s = summarise(charges, invoices);
    assert.equal(s.charges.toFixed(2), '2.60');
    assert.equal(s.credits, 250);
    assert.deepEqual(
      s.bySource.map((r) => [r.source, r.count]),
      [
        ['instance-1', 2],
        ['instance-2', 1],
        ['volume-3', 1],
      ],
    );
  });

  it('is readable Markdown with every line and the totals, and escapes table pipes', () => {
    const text = billingReport(
      [...charges, charge('a|b', 1)],
      invoices,
      { from: 1_763_000_000, to: 1_765_000_000 },
      new Date('2026-11-23T06:00:00Z'),
    );
    assert.match(text, /^# GPU Rental billing, 2025-11-13 to 2025-12-06/);
    assert.match(text, /- \*\*Charges: \$3\.60\*\* \(5 lines\)/);
    assert.match(text, /\| instance-1 \| 2 \| \$2\.00 \|/);
    assert.match(text, /\| a\\\|b \|/);
    assert.match(text, /\| \*\*Total\*\* \| \| \| \*\*\$250\.00\*\* \|/);
  });
});
