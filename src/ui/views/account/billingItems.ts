import { billingNotes } from '../../../core/account/present';
import { BILLING_DAYS, readBilling } from '../../../core/billing/read';
import { summarise } from '../../../core/billing/report';
import type { Session } from '../../../core/session/session';
import { NoteItem } from './rows';

/** The Billing section's rows: the last BILLING_DAYS days' totals, each opening the full report. */
export async function billingRows(session: Session): Promise<NoteItem[]> {
  const { charges, invoices } = await readBilling(session, BILLING_DAYS);
  return billingNotes(summarise(charges, invoices), BILLING_DAYS).map((note) => new NoteItem(note));
}
