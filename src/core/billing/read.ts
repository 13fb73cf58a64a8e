import type { BillingApi, BillingEntry } from '../api/billing';

/** How far back the Billing section and report look. */
export const BILLING_DAYS = 30;

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
 * Every charge and invoice line of the last `days` days, up to 20 pages each (charges 500 a page,
 * invoices 100, the service's most). Takes anything with a `client`, such as the session, and reads
 * the client when called, so a profile switched since is the one asked.
 */
export async function readBilling(
  source: { readonly client: { readonly billing: BillingApi } },
  days: number,
  nowMs = Date.now(),
): Promise<BillingRead> {
  const to = Math.ceil(nowMs / 1000);
  const from = to - days * 86_400;
  const all = async (read: (after?: string) => Promise<{ results: BillingEntry[]; next_token?: string | null }>) => {
    const out: BillingEntry[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await read(after);
      out.push(...res.results);
      if (!res.next_token) break;
      after = res.next_token;
    }
    return out;
  };
  const client = source.client;
  const [charges, invoices] = await Promise.all([
    all((afterToken) => client.billing.charges({ from, to, limit: 500, afterToken })),
    all((afterToken) => client.billing.invoices({ from, to, limit: 500, afterToken })),
  ]);
  return { charges, invoices, from, to };
}
