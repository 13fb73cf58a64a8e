/**
 * The autoscaler's POST reads of a serverless endpoint's or worker group's workers and logs
 * (which the real service answers from another host, run.vast.ai; here the same server does).
 *
 * The autoscaler answers a request it cannot serve (unknown id, another account's, an endpoint
 * name not found, a body `api_key` that is not the endpoint's) with 200 and a bare JSON string,
 * as the service does. The Bearer key is checked first, like everywhere else (401/403).
 */
import type { EndpointRecord, WorkerGroupRecord } from '../model';
import { num, ok, str, type Ctx, type RouteDef } from '../router';
import { endpointLogKey, groupLogKey, logLines, tailText, workerRow, workersOf } from '../workers';

/** The autoscaler's way of refusing: a 200 whose body is a bare JSON string naming what it looked for. */
function refuse(what: 'endpoint' | 'workergroup', which: unknown) {
  const named = typeof which === 'string' || typeof which === 'number' ? ` ${which}` : '';
  return ok(`authenticate_${what}_apikey: invalid api_key or ${what}${named} not found`);
}

/**
 * A body `api_key`, when sent, must be the endpoint's routing key (or the group's), or a key of
 * the same account, which is what the official CLI sends. Anything else is refused.
 */
function bodyKeyFits(ctx: Ctx, routingKeys: string[]): boolean {
  const given = ctx.body.api_key;
  if (given === undefined) return true;
  if (typeof given !== 'string') return false;
  if (routingKeys.includes(given)) return true;
  const key = ctx.sim.store.liveKey(given);
  return key !== undefined && key.accountId === ctx.account.id;
}

/** The service finds an endpoint by name when one is given (logs), else by id (workers). */
function bodyEndpoint(ctx: Ctx): EndpointRecord | undefined {
  const mine = ctx.sim.store.data.endpoints.filter((e) => e.accountId === ctx.account.id);
  const name = str(ctx.body.endpoint);
  const e = name !== undefined ? mine.find((x) => x.fields.endpoint_name === name) : mine.find((x) => x.id === num(ctx.body.id));
  return e && bodyKeyFits(ctx, [e.apiKey]) ? e : undefined;
}

function bodyGroup(ctx: Ctx): WorkerGroupRecord | undefined {
  const id = num(ctx.body.id);
  const data = ctx.sim.store.data;
  const g = data.workerGroups.find((x) => x.id === id && x.accountId === ctx.account.id);
  const endpointKey = data.endpoints.find((e) => e.id === g?.endpointId)?.apiKey;
  return g && bodyKeyFits(ctx, endpointKey ? [g.apiKey, endpointKey] : [g.apiKey]) ? g : undefined;
}

const workersWhere = (ctx: Ctx, pick: (groupId: number, endpointId: number) => boolean) => ({
  workers: workersOf(ctx.sim.store.data)
    .filter((w) => pick(w.groupId, w.endpointId))
    .map((w) => workerRow(w, ctx.now)),
});

const logsOf = (ctx: Ctx, key: string) => ({ logs: tailText(logLines(ctx.sim.store.data, key), num(ctx.body.tail)) });

// Workers have already moved on with the clock: every request ticks before its handler runs.
export const autoscalerRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/get_endpoint_workers',
    category: 'misc',
    action: 'api.endpoint.workers',
    handler: (ctx) => {
      const e = bodyEndpoint(ctx);
      return e ? ok(workersWhere(ctx, (_, endpointId) => endpointId === e.id)) : refuse('endpoint', ctx.body.endpoint ?? ctx.body.id);
    },
  },
  {
    method: 'POST',
    path: '/get_workergroup_workers',
    category: 'misc',
    action: 'api.workergroup.workers',
    handler: (ctx) => {
      const g = bodyGroup(ctx);
      return g ? ok(workersWhere(ctx, (groupId) => groupId === g.id)) : refuse('workergroup', ctx.body.id);
    },
  },
  {
    method: 'POST',
    path: '/get_endpoint_logs',
    category: 'misc',
    action: 'api.endpoint.logs',
    handler: (ctx) => {
      const e = bodyEndpoint(ctx);
      return e ? ok(logsOf(ctx, endpointLogKey(e.id))) : refuse('endpoint', ctx.body.endpoint ?? ctx.body.id);
    },
  },
  // The worker-group log route under both its names: the official CLI's and the OpenAPI's. A
  // test can take either away with the `withoutRoutes` option to see a client fall back.
  ...['/get_autogroup_logs', '/get_workergroup_logs'].map((path): RouteDef => ({
    method: 'POST',
    path,
    category: 'misc',
    action: 'api.workergroup.logs',
    handler: (ctx) => {
      const g = bodyGroup(ctx);
      return g ? ok(logsOf(ctx, groupLogKey(g.id))) : refuse('workergroup', ctx.body.id);
    },
  })),
];
