import * as z from 'zod';
import { optNumber, optString, optTime, type RequestOptions } from './fields';
import type { Transport } from './transport';

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
  results: z.array(BillingEntrySchema).nullish().transform((v) => v ?? []),
  total: optNumber,
  count: optNumber,
  next_token: z.string().nullish().catch(undefined),
});
export type BillingPage = z.output<typeof BillingPageSchema>;

export interface BillingRange {
  /** Epoch seconds, inclusive. */
  from: number;
  to: number;
  limit?: number;
  afterToken?: string;
}

export class BillingApi {
  constructor(private readonly t: Transport) {}

  /** Charges per instance, volume or endpoint in the range, newest first. */
  charges(range: BillingRange, o: RequestOptions = {}): Promise<BillingPage> {
    const query = { select_filters: { day: { gte: range.from, lte: range.to } }, limit: range.limit, after_token: range.afterToken, latest_first: true };
    return this.t.send({ action: 'read charges', method: 'GET', path: '/api/v0/charges/', query, schema: BillingPageSchema, permission: 'billing_read', retry: 'read', ...o });
  }

  /** Payments, credits and transfers in the range. */
  invoices(range: BillingRange, o: RequestOptions = {}): Promise<BillingPage> {
    const query = { select_filters: { when: { gte: range.from, lte: range.to } }, limit: range.limit, after_token: range.afterToken, latest_first: true };
    return this.t.send({ action: 'read invoices', method: 'GET', path: '/api/v1/invoices/', query, schema: BillingPageSchema, permission: 'billing_read', retry: 'read', ...o });
  }
}
