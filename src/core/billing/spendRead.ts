/**
 * Every page of charges and invoices in a period, for Export Spend, the Billing section's month
 * totals and the spend chart: no silent cap. A safety limit of pages stops a runaway read (a
 * service that keeps handing out tokens), and whoever shows the result says when it was reached.
 */
// Types only: the client (and zod) load on the first request, never with the Billing section.
import type { BillingApi, BillingEntry, BillingPage } from '../api/billing';

/** Charges come 500 a page (the service's most), invoices 100 (INVOICE_PAGE_MAX, the service's most). */
export const CHARGE_PAGE_SIZE = 500;
const INVOICE_PAGE_SIZE = 100;

/** The most pages read of each list: 100,000 charge lines, 20,000 invoices. */
export const SPEND_MAX_PAGES = 200;

/** One list read page by page: what was read, how many pages, and whether the last page said it was the last. */
export interface PagedRead {
  readonly entries: BillingEntry[];
  readonly pages: number;
  /** False when the page limit was reached, or a page token came back twice, with more left unread. */
  readonly complete: boolean;
}

/** Follows `next_token` until the service says there is no more, or `maxPages` pages were read. */
export async function readPages(read: (afterToken?: string) => Promise<BillingPage>, maxPages: number): Promise<PagedRead> {
  const entries: BillingEntry[] = [];
  const seen = new Set<string>();
  let afterToken: string | undefined;
  for (let pages = 1; pages <= maxPages; pages++) {
    const page = await read(afterToken);
    entries.push(...page.results);
    if (!page.next_token) return { entries, pages, complete: true };
    // A token handed out again would read the same pages forever.
    if (seen.has(page.next_token)) return { entries, pages, complete: false };
    seen.add(page.next_token);
    afterToken = page.next_token;
  }
  return { entries, pages: maxPages, complete: false };
}

/** What a period's read found. */
export interface SpendRead {
  readonly from: number;
  readonly to: number;
  readonly charges: PagedRead;
  readonly invoices: PagedRead;
}

/** Every charge and invoice of [from, to] (Unix seconds, both inclusive), both lists at once. */
export async function readSpend(
  billing: Pick<BillingApi, 'charges' | 'invoices'>,
  range: { from: number; to: number },
  maxPages = SPEND_MAX_PAGES,
): Promise<SpendRead> {
  const { from, to } = range;
  const [charges, invoices] = await Promise.all([
    readPages((afterToken) => billing.charges({ from, to, limit: CHARGE_PAGE_SIZE, afterToken }), maxPages),
    readPages((afterToken) => billing.invoices({ from, to, limit: INVOICE_PAGE_SIZE, afterToken }), maxPages),
  ]);
  return { from, to, charges, invoices };
}
