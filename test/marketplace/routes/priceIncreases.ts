/**
 * Host price increases (priceIncreases.ts; service notes §15.1): the pending list, and accepting or
 * rejecting one row. The answer bodies are exactly `{"pending_price_increase_id": <int>}`: the
 * service forbids any other key, so one is a 400, as is a missing or non-integer id. A row no
 * longer pending (answered, expired, another account's, unknown) is the 404 `no_pending_price_increase`.
 */
import { acceptPriceIncrease, pendingOf, rejectPriceIncrease, rowOf } from '../priceIncreases';
import { fail, isObject, ok, saved, type Ctx, type RouteDef } from '../router';
import type { PriceIncreaseRecord } from '../model';

const ID_FIELD = 'pending_price_increase_id';

/** The id of a body that is exactly `{"pending_price_increase_id": <int>}`. */
function answeredId(ctx: Ctx): number {
  const body = ctx.rawBody;
  if (!isObject(body)) throw fail(400, 'invalid_args', `The body must be a JSON object {"${ID_FIELD}": <integer>}.`);
  const extra = Object.keys(body).filter((k) => k !== ID_FIELD);
  if (extra.length) throw fail(400, 'invalid_args', `Extra fields are not permitted: ${extra.join(', ')}.`);
  const id = body[ID_FIELD];
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0)
    throw fail(400, 'invalid_args', `${ID_FIELD} is required and must be a positive integer.`);
  return id;
}

function answer(ctx: Ctx, how: (accountId: number, id: number) => PriceIncreaseRecord) {
  const record = how(ctx.account.id, answeredId(ctx));
  return saved(ctx.sim.store, {
    success: true,
    pending_price_increase_id: record.pending_price_increase_id,
    contract_id: record.contract_id,
  });
}

export const priceIncreaseRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/instances/pending-price-increases',
    category: 'instance_read',
    action: 'api.instance.pending_price_increases',
    handler: (ctx) => {
      // The tick before every handler has expired the rows past their contract's end.
      const rows = pendingOf(ctx.sim.store.data, ctx.account.id).map(rowOf);
      return ok({ success: true, count: rows.length, truncated: false, pending_price_increases: rows });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/instances/accept-price-increase',
    category: 'instance_write',
    action: 'api.instance.accept_price_increase',
    handler: (ctx) => answer(ctx, (accountId, id) => acceptPriceIncrease(ctx.sim.store.data, accountId, id, ctx.now, ctx.rawBody)),
  },
  {
    method: 'PUT',
    path: '/api/v0/instances/reject-price-increase',
    category: 'instance_write',
    action: 'api.instance.reject_price_increase',
    handler: (ctx) => answer(ctx, (accountId, id) => rejectPriceIncrease(ctx.sim.store.data, accountId, id, ctx.now, ctx.rawBody)),
  },
];
