import * as z from 'zod';
import { optNumber, optString, optTime, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

const LineItemSchema = z.object({ type: optString, description: optString, amount: optNumber });

/** One charge or invoice line; `amount` in dollars, `start`/`end` epoch seconds. */
export const BillingEntrySchema = z.object({
  type: optString,
  source: optString,
  description: optString,
  amount: z.number(),
  start: optTime,
  end: optTime,
  metadata: z.record(z.string(), z.unknown()).nullish(),
  items: z.array(LineItemSchema).nullish(),
});
export type BillingEntry = z.output<typeof BillingEntrySchema>;

const BillingPageSchema = z.object({
  results: z
    .array(BillingEntrySchema)
    .nullish()
    .transform((v) => v ?? []),
  total: optNumber,
  count: optNumber,
  next_token: z.string().nullish().catch(undefined),
});
export type BillingPage = z.output<typeof BillingPageSchema>;

export interface BillingRange {
  /** Epoch seconds, inclusive. */
  from: number;
  to: number;
  /** Entries per page; invoices are clamped to INVOICE_PAGE_MAX. */
  limit?: number;
  /** The previous page's `next_token`: the page after it. */
  afterToken?: string;
  /** Charges only: the contract types to list (`instance`, `volume`, `serverless`); all when absent. */
  types?: readonly string[];
}

/** The service hands out invoices in pages of at most 100; ask for more and the rest is not on the page. */
export const INVOICE_PAGE_MAX = 100;

/** A page size the service accepts: a whole number from 1 to `max`, `max` when not given. */
export function clampPageSize(limit: number | undefined, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return max;
  return Math.min(max, Math.max(1, Math.floor(limit)));
}

export class BillingApi {
  constructor(private readonly t: Transport) {}

  /** Charges per instance, volume or endpoint in the range, newest first. */
  charges(range: BillingRange, o: RequestOptions = {}): Promise<BillingPage> {
    const query = {
      select_filters: { day: { gte: range.from, lte: range.to }, ...(range.types ? { type: { in: range.types } } : {}) },
      limit: range.limit,
      after_token: range.afterToken,
      latest_first: true,
    };
    return this.t.send({
      action: l10n.t('read charges'),
      method: 'GET',
      path: '/api/v0/charges/',
      query,
      schema: BillingPageSchema,
      permission: 'billing_read',
      retry: 'read',
      ...o,
    });
  }

  /**
   * One page of payments, credits and transfers in the range, newest first: at most
   * INVOICE_PAGE_MAX (a larger `limit` is clamped); `next_token` is set while more follow. See
   * `allInvoices` for every page.
   */
  invoices(range: BillingRange, o: RequestOptions = {}): Promise<BillingPage> {
    const query = {
      select_filters: { when: { gte: range.from, lte: range.to } },
      limit: clampPageSize(range.limit, INVOICE_PAGE_MAX),
      after_token: range.afterToken,
      latest_first: true,
    };
    return this.t.send({
      action: l10n.t('read invoices'),
      method: 'GET',
      path: '/api/v1/invoices/',
      query,
      schema: BillingPageSchema,
      permission: 'billing_read',
      retry: 'read',
      ...o,
    });
  }

  /**
   * Every invoice in the range, following `next_token` page by page (pages of at most
   * INVOICE_PAGE_MAX) up to `maxPages`; `complete` is false when more were left unread.
   */
  async allInvoices(
    range: Omit<BillingRange, 'afterToken'>,
    maxPages = 20,
    o: RequestOptions = {},
  ): Promise<{ results: BillingEntry[]; complete: boolean }> {
    const results: BillingEntry[] = [];
    const seen = new Set<string>();
    let afterToken: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const res = await this.invoices({ ...range, afterToken }, o);
      results.push(...res.results);
      if (!res.next_token) return { results, complete: true };
      // A token that comes back again would read the same page forever.
      if (seen.has(res.next_token)) return { results, complete: false };
      seen.add(res.next_token);
      afterToken = res.next_token;
    }
    return { results, complete: false };
  }
}
