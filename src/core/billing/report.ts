import type { BillingEntry } from '../api/billing';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { secondsOf, utcDay } from './period';

export interface BillingSummary {
  charges: number;
  credits: number;
  /** Charges per source (instance-12, volume-3, …), largest first. */
  bySource: Array<{ source: string; amount: number; count: number }>;
}

export function summarise(charges: readonly BillingEntry[], invoices: readonly BillingEntry[]): BillingSummary {
  const per = new Map<string, { amount: number; count: number }>();
  for (const c of charges) {
    const key = c.source || c.type || 'other';
    const row = per.get(key) ?? { amount: 0, count: 0 };
    row.amount += c.amount;
    row.count += 1;
    per.set(key, row);
  }
  return {
    charges: charges.reduce((t, c) => t + c.amount, 0),
    // Credits are negative amounts on the service; shown as what was added.
    credits: invoices.reduce((t, i) => t + Math.abs(i.amount), 0),
    bySource: [...per].map(([source, r]) => ({ source, ...r })).sort((a, b) => b.amount - a.amount || a.source.localeCompare(b.source)),
  };
}

// Empty for a time that is none (`secondsOf`): one odd line never fails the report.
const day = (entry: Pick<BillingEntry, 'start' | 'end'>) => utcDay(secondsOf(entry.start) ?? secondsOf(entry.end));
const cell = (text: string | null | undefined) => (text ?? '').replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** A readable Markdown report: totals, charges per source, then every charge and invoice line. */
export function billingReport(
  charges: readonly BillingEntry[],
  invoices: readonly BillingEntry[],
  range: { from: number; to: number },
  generatedAt: Date,
): string {
  const s = summarise(charges, invoices);
  const lines = [
    `# GPU Rental billing, ${utcDay(range.from)} to ${utcDay(range.to)}`,
    '',
    l10n.t('Generated {0} UTC.', generatedAt.toISOString().replace('T', ' ').slice(0, 16)),
    '',
    l10n.t('- **Charges: {0}** ({1} lines)', formatDollars(s.charges), charges.length),
    l10n.t('- **Credits and payments: {0}** ({1} lines)', formatDollars(s.credits), invoices.length),
    '',
    l10n.t('## Charges per source'),
    '',
    '| Source | Lines | Amount |',
    '|---|---:|---:|',
    ...s.bySource.map((r) => `| ${cell(r.source)} | ${r.count} | ${formatDollars(r.amount)} |`),
    `| **Total** | ${charges.length} | **${formatDollars(s.charges)}** |`,
    '',
    '## Charges',
    '',
    '| Day | Source | Description | Amount |',
    '|---|---|---|---:|',
    ...charges.map((c) => `| ${day(c)} | ${cell(c.source)} | ${cell(c.description)} | ${formatDollars(c.amount)} |`),
    '',
    l10n.t('## Credits and payments'),
    '',
    '| Day | Type | Description | Amount |',
    '|---|---|---|---:|',
    ...invoices.map((i) => `| ${day(i)} | ${cell(i.type)} | ${cell(i.description)} | ${formatDollars(Math.abs(i.amount))} |`),
    `| **Total** | | | **${formatDollars(s.credits)}** |`,
    '',
  ];
  return lines.join('\n');
}
