/**
 * Reserved instances (prepay.ts): `PUT /api/v0/instances/prepay/{id}/` `{amount}` and
 * `GET /api/v0/instances/balance/{id}/`. The prepay refusals have the OpenAPI's shape,
 * `{success: false, msg}`: 400 for an instance that cannot be prepaid (unknown, another account's,
 * interruptible, neither running nor stopped) or a bad amount, 411 "Insufficient credit".
 */
import { depositView, prepay } from '../prepay';
import { HttpError, intParam, num, ok, type Ctx, type RouteDef } from '../router';
import { ownInstance } from './shared';

function refuse(status: number, msg: string): HttpError {
  return new HttpError(status, { success: false, msg });
}

function prepayInstance(ctx: Ctx) {
  const raw = ctx.params.id ?? '';
  const id = /^\d+$/.test(raw) ? Number(raw) : NaN;
  const found = Number.isNaN(id) ? undefined : ctx.sim.live(id);
  if (!found || found.inst.accountId !== ctx.account.id) throw refuse(400, 'No such instance');
  const { inst, contract } = found;
  if (inst.isBid) throw refuse(400, `Instance ${id} is interruptible (a bid); only an on-demand instance can be prepaid.`);
  if (inst.phase !== 'running' && inst.phase !== 'stopped')
    throw refuse(400, `Instance ${id} is ${inst.phase}; only a running or stopped instance can be prepaid.`);
  const amount = typeof ctx.body.amount === 'number' ? ctx.body.amount : num(ctx.body.amount);
  if (amount === undefined || !(amount > 0)) throw refuse(400, 'amount must be a number of dollars above 0.');
  if (ctx.sim.store.balance(ctx.account.id, ctx.now) < amount) throw refuse(411, 'Insufficient credit');
  return ok({ success: true, ...prepay(ctx.sim.store, inst, contract, amount, ctx.now) });
}

export const prepayRoutes: RouteDef[] = [
  {
    method: 'PUT',
    path: '/api/v0/instances/prepay/:id',
    category: 'instance_write',
    action: 'api.instance.prepay',
    handler: prepayInstance,
  },
  {
    method: 'GET',
    path: '/api/v0/instances/balance/:id',
    category: 'instance_read',
    action: 'api.instance.deposit',
    handler: (ctx) => {
      const { inst, contract } = ownInstance(ctx, intParam(ctx, 'id'));
      return ok({ success: true, ...depositView(ctx.sim.store.data, inst, contract, ctx.now) });
    },
  },
];
