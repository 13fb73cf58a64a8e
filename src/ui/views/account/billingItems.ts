import { billingNotes, type NotePresentation } from '../../../core/account/present';
import { readMonthTotals, spendNotes } from '../../../core/billing/monthTotals';
import { BILLING_DAYS, readBilling } from '../../../core/billing/read';
import { summarise } from '../../../core/billing/report';
import type { Session } from '../../../core/session/session';
import { NoteItem } from './rows';

/**
 * The Billing section's rows: the last BILLING_DAYS days' totals opening the full report, this
 * month's and last month's totals (read and summed as Export Spend reads and sums them), then Show
 * Spend Chart and Export Spend.
 */
export async function billingRows(session: Session): Promise<NoteItem[]> {
  const [{ charges, invoices }, months] = await Promise.all([
    readBilling(session, BILLING_DAYS),
    readMonthTotals(session.client.billing, Date.now()),
  ]);
  const notes = spendNotes(months);
  const item = (note: NotePresentation) => new NoteItem(note);
  // The 30-day rows first, as before; then the months, then what opens the chart and the export.
  return [...billingNotes(summarise(charges, invoices), BILLING_DAYS).map(item), ...notes.months.map(item), ...notes.actions.map(item)];
}
