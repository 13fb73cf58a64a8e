/**
 * Billing: per-contract charges computed from recorded usage (`/api/v0/charges/`) and credit
 * top-ups (`/api/v1/invoices/`; the opening credit of an account is one). Invoice amounts are
 * negative for credit bought, as the service shows them. Money prepaid on an instance (prepay.ts)
 * is an invoice too: type `reserved`, service `instance_prepay`, a positive amount (it left the
 * credit); the refund at destroy is a `refund` of that service, and credit the control API took
 * away (`low-credit`) a `transfer`.
 */
import { charges } from '../ledger';
import { round } from '../random';
import { fail, isObject, jsonParam, num, ok, type Ctx, type RouteDef } from '../router';
import { test as matchOp } from '../filters';

function page<T>(ctx: Ctx, rows: T[], defaultLimit: number, maxLimit: number): { results: T[]; next: string | null } {
  const limit = Math.max(1, Math.min(maxLimit, Math.floor(num(jsonParam(ctx.query, 'limit')) ?? defaultLimit)));
  let offset = 0;
  const token = jsonParam(ctx.query, 'after_token');
  if (token !== undefined && token !== null && token !== '') {
    try {
      const parsed: unknown = JSON.parse(Buffer.from(String(token), 'base64').toString('utf8'));
      if (!isObject(parsed) || typeof parsed.offset !== 'number') throw new Error('bad token');
      offset = parsed.offset;
    } catch {
      throw fail(400, 'invalid_token', 'Invalid pagination token');
    }
  }
  const results = rows.slice(offset, offset + limit);
  const next = offset + limit < rows.length ? Buffer.from(JSON.stringify({ offset: offset + limit })).toString('base64') : null;
  return { results, next };
}

function latestFirst(ctx: Ctx): boolean {
  return jsonParam(ctx.query, 'latest_first') !== false && ctx.query.get('latest_first') !== 'false';
}

function range(filter: unknown): { from: number; to: number } | undefined {
  if (!isObject(filter)) return undefined;
  const from = num(filter.gte) ?? (num(filter.gt) !== undefined ? num(filter.gt)! + 1e-3 : undefined);
  const to = num(filter.lte) ?? (num(filter.lt) !== undefined ? num(filter.lt)! - 1e-3 : undefined);
  return from === undefined || to === undefined || to < from ? undefined : { from, to };
}

function showCharges(ctx: Ctx) {
  const filters = jsonParam(ctx.query, 'select_filters');
  const day = isObject(filters) ? filters.day : undefined;
  const bounds =
    isObject(day) && num(day.gte) !== undefined && num(day.lte) !== undefined ? { from: num(day.gte)!, to: num(day.lte)! } : undefined;
  if (!bounds) throw fail(400, 'invalid_request', "Must provide both 'day' gte and lte filters for instance charges");
  if (bounds.to < bounds.from) throw fail(400, 'invalid_request', "Invalid date range: 'day' lte is before gte.");
  ctx.sim.tick();
  let rows = charges(ctx.sim.store.data, ctx.account.id, bounds.from, bounds.to, ctx.now);
  const type = isObject(filters) && isObject(filters.type) ? filters.type : undefined;
  if (type && Array.isArray(type.in)) rows = rows.filter((r) => (type.in as unknown[]).includes(r.type));
  rows.sort((a, b) => a.start - b.start || a.source.localeCompare(b.source));
  if (latestFirst(ctx)) rows.reverse();
  const { results, next } = page(ctx, rows, 100, 500);
  return ok({ success: true, count: results.length, total: rows.length, next_token: next, results });
}

/** An invoice row's type from the payment service and the direction of the money. */
function invoiceType(service: string, amount: number): string {
  if (service === 'instance_prepay') return amount < 0 ? 'reserved' : 'refund';
  if (service === 'transfer') return 'transfer';
  return 'credit';
}

function showInvoices(ctx: Ctx) {
  const filters = jsonParam(ctx.query, 'select_filters');
  const when = range(isObject(filters) ? filters.when : undefined);
  if (!when) return ok({ success: false, error: 'Invalid date range', count: 0, total: 0, results: [], next_token: null });
  const service = isObject(filters) && isObject(filters.service) ? filters.service : {};
  const data = ctx.sim.store.data;
  // Deposits on prepaid instances are paid from the credit: positive amounts, as a charge.
  const deposits = (data.reservations ?? [])
    .filter((r) => r.accountId === ctx.account.id)
    .flatMap((r) =>
      r.deposits.map((d) => ({
        id: d.id,
        accountId: r.accountId,
        at: d.at,
        amount: -d.amount,
        service: 'instance_prepay',
        description: `Prepaid on instance ${r.instanceId}: ${d.months.toFixed(2)} months at ${round(d.discountRate * 100, 2)}% off`,
        source: `instance-${r.instanceId}`,
      })),
    );
  const rows = [...data.topUps, ...deposits]
    .filter((t) => t.accountId === ctx.account.id && t.at / 1000 >= when.from && t.at / 1000 <= when.to && t.at <= ctx.now)
    .filter((t) =>
      Object.entries(service).every(([op, v]) =>
        matchOp(t.service, op as 'eq', op === 'in' || op === 'notin' ? (Array.isArray(v) ? v : [v]) : v),
      ),
    )
    .map((t) => ({
      start: t.at / 1000,
      end: t.at / 1000,
      type: invoiceType(t.service, t.amount),
      source: 'source' in t ? t.source : 'stripe',
      description: t.description,
      amount: -round(t.amount, 2),
      metadata: { invoice_id: t.id, service: t.service },
      items: [],
      when: t.at / 1000,
      amount_cents: Math.round(t.amount * 100),
    }));
  const orderBy = jsonParam(ctx.query, 'order_by');
  const first = Array.isArray(orderBy) && isObject(orderBy[0]) ? orderBy[0] : undefined;
  const col = first && ['paid_on', 'amount_cents', 'when'].includes(String(first.col)) ? String(first.col) : 'when';
  const desc = first ? first.dir !== 'asc' : latestFirst(ctx);
  const key = (r: (typeof rows)[number]) => (col === 'amount_cents' ? r.amount_cents : r.when);
  rows.sort((a, b) => (desc ? key(b) - key(a) : key(a) - key(b)) || a.metadata.invoice_id - b.metadata.invoice_id);
  // Pages of at most 100, as the service hands them out; a larger limit gets 100.
  const { results, next } = page(ctx, rows, 60, 100);
  return ok({
    success: true,
    count: results.length,
    total: rows.length,
    next_token: next,
    results: results.map(({ when: _w, amount_cents: _c, ...r }) => r),
  });
}

export const billingRoutes: RouteDef[] = [
  { method: 'GET', path: '/api/v0/charges', category: 'billing_read', action: 'api.billing.charges', handler: showCharges },
  { method: 'GET', path: '/api/v1/invoices', category: 'billing_read', action: 'api.billing.invoices', handler: showInvoices },
];
