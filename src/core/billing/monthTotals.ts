/**
 * The Billing section's month totals: this month's and last month's charges and credits, read
 * (every page) and summed as Export Spend reads and sums them, so an export of either month shows
 * the same totals as the view. Then the rows that open the spend chart and the export.
 */
import type { BillingApi } from '../api/billing';
import { formatDollars } from '../format';
import { COMMANDS } from '../ids';
import { l10n } from '../l10n';
import { periodOf, type SpendPeriod } from './period';
import { summarise, type BillingSummary } from './report';
import { readSpend } from './spendRead';

/** One month's totals, and whether every page was read. */
export interface MonthTotals {
  readonly period: SpendPeriod;
  readonly summary: BillingSummary;
  readonly complete: boolean;
}

/** This month's and last month's totals, as of `nowMs` (UTC months). */
export async function readMonthTotals(billing: Pick<BillingApi, 'charges' | 'invoices'>, nowMs: number): Promise<MonthTotals[]> {
  return Promise.all(
    (['thisMonth', 'lastMonth'] as const).map(async (kind) => {
      const period = periodOf(kind, nowMs);
      const read = await readSpend(billing, period);
      return {
        period,
        summary: summarise(read.charges.entries, read.invoices.entries),
        complete: read.charges.complete && read.invoices.complete,
      };
    }),
  );
}

/** A row of the section (the shape of the Account view's notes). */
export interface SpendNote {
  readonly label: string;
  readonly icon: string;
  readonly command?: { readonly title: string; readonly command: string };
}

function monthLabel(m: MonthTotals): string {
  const charges = formatDollars(m.summary.charges);
  const credits = formatDollars(m.summary.credits);
  if (m.period.kind === 'thisMonth')
    return m.complete
      ? l10n.t('This month ({0}): {1} charges, {2} credits', m.period.name, charges, credits)
      : l10n.t('This month ({0}): {1} charges, {2} credits, from the first pages only', m.period.name, charges, credits);
  return m.complete
    ? l10n.t('Last month ({0}): {1} charges, {2} credits', m.period.name, charges, credits)
    : l10n.t('Last month ({0}): {1} charges, {2} credits, from the first pages only', m.period.name, charges, credits);
}

/** The month rows (each opens Export Spend), and the rows of Show Spend Chart and Export Spend. */
export function spendNotes(months: readonly MonthTotals[]): { months: SpendNote[]; actions: SpendNote[] } {
  const exportSpend = { title: l10n.t('Export Spend…'), command: COMMANDS.exportSpend };
  return {
    months: months.map((m) => ({ label: monthLabel(m), icon: 'calendar', command: exportSpend })),
    actions: [
      {
        label: l10n.t('Show Spend Chart'),
        icon: 'graph',
        command: { title: l10n.t('Show Spend Chart'), command: COMMANDS.showSpendChart },
      },
      { label: l10n.t('Export Spend…'), icon: 'export', command: exportSpend },
    ],
  };
}
