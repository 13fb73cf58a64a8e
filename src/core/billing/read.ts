import type { BillingApi, BillingEntry } from '../api/billing';
import { lastDays, RECENT_DAYS } from './period';
import { readSpend } from './spendRead';

/** How far back the Billing section and report look: "last 30 days" as `lastDays` defines it. */
export const BILLING_DAYS = RECENT_DAYS;

/** The most pages read of each list; past that the section and report show what was read. */
const MAX_PAGES = 20;

/** What `readBilling` found, and the range it asked for (Unix seconds). */
export interface BillingRead {
  charges: BillingEntry[];
  invoices: BillingEntry[];
  from: number;
  to: number;
}

/**
 * Every charge and invoice line of the last `days` days (`lastDays`: the UTC days ending today,
 * the spend chart's and Export Spend's range), up to 20 pages each (charges 500 a page, invoices
 * 100, the service's most). Takes anything with a `client`, such as the session, and reads the
 * client when called, so a profile switched since is the one asked.
 */
export async function readBilling(
  source: { readonly client: { readonly billing: BillingApi } },
  days: number,
  nowMs = Date.now(),
): Promise<BillingRead> {
  const { from, to } = lastDays(nowMs, days);
  const read = await readSpend(source.client.billing, { from, to }, MAX_PAGES);
  return { charges: read.charges.entries, invoices: read.invoices.entries, from, to };
}
