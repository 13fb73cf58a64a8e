/** Instance routes: show, list (v0 and v1), start/stop/label, reboot, destroy, logs. */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { compareRows, kindsOf, parseFilters, parseOrder, QueryError, rowMatches, sortRows, type Order } from '../filters';
import { instanceRecord } from '../instanceRecord';
import { closeContract } from '../ledger';
import { CHANGE_BID_MAX, CHANGE_BID_MIN, setBid, stillOutbid } from '../bids';
import { reboot, start, stop } from '../lifecycle';
import { leave } from '../overlays';
import { closeReservation } from '../prepay';
import { fail, intParam, isObject, jsonParam, num, ok, str, type Ctx, type RouteDef, saved } from '../router';
import { spoilListed } from './control';
import { LABEL_MAX } from './rent';
import { offerOf, ownIdOnly, ownInstance } from './shared';

/** Columns the v1 list filters and orders on; computed ones (dph_total, num_gpus...) are refused. */
const STORED_COLUMNS = new Set([
  'id',
  'actual_status',
  'intended_status',
  'cur_state',
  'next_state',
  'status_msg',
  'label',
  'gpu_name',
  'verification',
  'machine_id',
  'host_id',
  'bundle_id',
  'template_id',
  'template_hash_id',
  'template_name',
  'image_uuid',
  'image_runtype',
  'geolocation',
  'start_date',
  'is_bid',
  'disk_space',
  'client_id',
]);

function records(ctx: Ctx): Array<Record<string, unknown>> {
  ctx.sim.tick();
  return ctx.sim.store.data.instances
    .filter((i) => i.accountId === ctx.account.id)
    .map((i) => instanceRecord(i, offerOf(ctx, i), ctx.sim.store.data, ctx.now))
    .sort((a, b) => (a.id as number) - (b.id as number));
}

function encodeToken(row: Record<string, unknown>, order: Order): string {
  const values: Record<string, unknown> = {};
  for (const [col] of order) values[col] = row[col] ?? null;
  values.id = row.id;
  return Buffer.from(JSON.stringify({ values })).toString('base64');
}

function decodeToken(token: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (isObject(parsed) && isObject(parsed.values) && typeof parsed.values.id === 'number') return parsed.values;
  } catch {
    // fall through
  }
  throw fail(400, 'invalid_token', 'Invalid pagination token');
}

function listV1(ctx: Ctx) {
  let limit = num(jsonParam(ctx.query, 'limit')) ?? 25;
  limit = limit <= 0 ? 5 : Math.min(25, Math.floor(limit));
  let order: Order;
  let conditions;
  const all = records(ctx);
  try {
    order = parseOrder(jsonParam(ctx.query, 'order_by') ?? []);
    const filters = jsonParam(ctx.query, 'select_filters') ?? {};
    if (!isObject(filters)) throw new QueryError('select_filters must be a JSON object.');
    conditions = parseFilters(filters, kindsOf(all));
  } catch (error) {
    if (error instanceof QueryError) throw fail(400, 'invalid_request', error.message);
    throw error;
  }
  for (const col of [...order.map((o) => o[0]), ...conditions.map((c) => c.field)]) {
    if (!STORED_COLUMNS.has(col)) throw fail(400, 'invalid_request', `Column '${col}' cannot be used to filter or order instances.`);
  }
  const matching = sortRows(
    all.filter((r) => rowMatches(r, conditions)),
    order,
  );
  const labelCounts: Record<string, number> = {};
  for (const r of matching) {
    const label = typeof r.label === 'string' ? r.label : '';
    labelCounts[label] = (labelCounts[label] ?? 0) + 1;
  }
  let rest = matching;
  const rawToken = jsonParam(ctx.query, 'after_token');
  if (rawToken !== undefined && rawToken !== null && rawToken !== '') {
    const after = decodeToken(String(rawToken));
    rest = matching.filter((r) => compareRows(r, after, order) > 0);
  }
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  const next = rest.length > limit && last ? encodeToken(last, order) : null;
  const cols = jsonParam(ctx.query, 'select_cols');
  const pick = Array.isArray(cols) && !cols.includes('*') ? cols.map(String) : undefined;
  const shaped = pick ? page.map((r) => Object.fromEntries(pick.map((c) => [c, r[c] ?? null]))) : page;
  return ok({
    success: true,
    instances_found: page.length,
    total_instances: matching.length,
    label_counts: labelCounts,
    next_token: next,
    instances: spoilListed(ctx.sim, shaped),
  });
}

function manage(ctx: Ctx) {
  const id = intParam(ctx, 'id');
  const { inst, contract } = ownInstance(ctx, id);
  const { body, sim, now } = ctx;
  const state = body.state;
  const label = body.label;
  if (state === undefined && label === undefined) throw fail(400, 'invalid_args', 'Give a state (running or stopped) or a label.');
  if (label !== undefined) {
    if (label !== null && typeof label !== 'string') throw fail(400, 'invalid_args', 'label must be a string.');
    if (typeof label === 'string' && label.length > LABEL_MAX)
      throw fail(400, 'label_too_long', `The label may have at most ${LABEL_MAX} characters.`);
  }
  if (state !== undefined && state !== 'running' && state !== 'stopped')
    throw fail(400, 'invalid_args', "state must be 'running' or 'stopped'.");
  if (state === 'running' && (inst.phase === 'stopped' || inst.phase === 'failed') && sim.store.balance(ctx.account.id, now) <= 0)
    throw fail(400, 'insufficient_credit', 'Your account has no credit left; add credit to start instances.');
  if (typeof label === 'string' || label === null) {
    inst.label = label;
    contract.label = label;
  }
  if (state === 'stopped') stop(inst, contract, now, 'Stopped by user', sim.network);
  // An outbid instance whose bid is still too low stays stopped, wanting to run (bids.ts).
  if (state === 'running' && !stillOutbid(inst, offerOf(ctx, inst))) start(inst, now, sim.network, offerOf(ctx, inst));
  sim.store.changed();
  if (state === undefined) return ok({ success: true, msg: `label for ${id} set to '${String(label ?? '')}'` });
  return ok({ success: true });
}

/** `PUT /api/v0/instances/bid_price/{id}/` with `{client_id, price}`: the bid of an interruptible instance. */
function changeBid(ctx: Ctx) {
  const id = intParam(ctx, 'id');
  const price = num(ctx.body.price);
  if (price === undefined || price < CHANGE_BID_MIN) throw fail(400, 'invalid_args', `Please set a bid price >= ${CHANGE_BID_MIN}.`);
  if (price > CHANGE_BID_MAX) throw fail(400, 'invalid_args', `Please set a bid price <= ${CHANGE_BID_MAX}.`);
  const { inst, contract } = ownInstance(ctx, id);
  if (!inst.isBid) throw fail(400, 'invalid_args', `Instance ${id} rents on demand; it has no bid to change.`);
  setBid(ctx.sim, inst, contract, price, ctx.now);
  return ok({ success: true });
}

function destroy(ctx: Ctx) {
  const id = intParam(ctx, 'id');
  const { inst, contract } = ownInstance(ctx, id);
  const { sim, now } = ctx;
  closeContract(contract, now);
  // What can be withdrawn of a prepaid deposit goes back to the credit (prepay.ts).
  closeReservation(sim.store, contract, now);
  sim.network.destroyed(inst.id);
  const data = sim.store.data;
  data.instances = data.instances.filter((i) => i !== inst);
  for (const v of data.volumes) v.instanceIds = v.instanceIds.filter((x) => x !== id);
  leave(data, id);
  const key = data.keys.find((k) => k.id === inst.apiKeyId);
  if (key) key.deletedAt = now;
  return saved(sim.store, { success: true, msg: `Instance ${id} destroyed.` });
}

function requestLogs(ctx: Ctx) {
  const id = intParam(ctx, 'id');
  const { inst } = ownInstance(ctx, id, 'invalid_id');
  const tail = num(ctx.body.tail) ?? 1000;
  const grep = str(ctx.body.filter);
  let lines = inst.log.map((l) => l.text);
  if (grep) lines = lines.filter((l) => l.includes(grep));
  if (tail >= 0) lines = lines.slice(Math.max(0, lines.length - tail));
  const token = randomBytes(16).toString('hex');
  ctx.sim.logs.set(token, { readyAt: performance.now() + ctx.sim.logReadyDelayMs, text: lines.length ? `${lines.join('\n')}\n` : '' });
  const url = `${ctx.sim.baseUrl()}/instance_logs/${token}.log`;
  return ok({ success: true, result_url: url, msg: 'Logs will be uploaded to the result url shortly.' });
}

const NO_SUCH_KEY = (key: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>${key}</Key></Error>`;

export const instanceRoutes: RouteDef[] = [
  { method: 'GET', path: '/api/v1/instances', category: 'instance_read', action: 'api.instance.list', handler: listV1 },
  {
    method: 'GET',
    path: '/api/v0/instances',
    category: 'instance_read',
    action: 'api.instance.list',
    handler: (ctx) => {
      const all = records(ctx);
      return ok({ instances_found: all.length, instances: spoilListed(ctx.sim, all) });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/instances/reboot/:id',
    category: 'instance_write',
    action: 'api.instance.reboot',
    handler: (ctx) => {
      const { inst, contract } = ownInstance(ctx, intParam(ctx, 'id'));
      if (!reboot(inst, contract, ctx.now, ctx.sim.network))
        throw fail(400, 'invalid_args', `Instance ${inst.id} is not running (${inst.phase}); only a running instance can reboot.`);
      return saved(ctx.sim.store, { success: true });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/instances/bid_price/:id',
    category: 'instance_write',
    action: 'api.instance.change_bid',
    handler: changeBid,
  },
  {
    method: 'PUT',
    path: '/api/v0/instances/request_logs/:id',
    category: 'instance_read',
    action: 'api.instance.request_logs',
    handler: requestLogs,
  },
  {
    method: 'GET',
    path: '/api/v0/instances/:id',
    category: 'instance_read',
    action: 'api.instance.show',
    instanceKey: ownIdOnly,
    handler: (ctx) => {
      const id = intParam(ctx, 'id');
      const found = ctx.sim.live(id);
      if (!found || found.inst.accountId !== ctx.account.id) return ok({ instances: null });
      return ok({ instances: instanceRecord(found.inst, offerOf(ctx, found.inst), ctx.sim.store.data, ctx.now) });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/instances/:id',
    category: 'instance_write',
    action: (ctx) =>
      ctx.body.state === 'running' ? 'api.instance.start' : ctx.body.state === 'stopped' ? 'api.instance.stop' : 'api.instance.label',
    // An instance key may start or stop its instance, not relabel it.
    instanceKey: (ctx, instanceId) => ownIdOnly(ctx, instanceId) && ctx.body.label === undefined,
    handler: manage,
  },
  {
    method: 'DELETE',
    path: '/api/v0/instances/:id',
    category: 'instance_write',
    action: 'api.instance.destroy',
    instanceKey: ownIdOnly,
    handler: destroy,
  },
  {
    method: 'GET',
    path: '/instance_logs/:file',
    category: null,
    action: 'public.logs',
    handler: (ctx) => {
      const token = (ctx.params.file ?? '').replace(/\.log$/, '');
      const entry = ctx.sim.logs.get(token);
      if (!entry || performance.now() < entry.readyAt)
        return { status: 404, text: NO_SUCH_KEY(`instance_logs/${token}.log`), contentType: 'application/xml' };
      return { status: 200, text: entry.text, contentType: 'text/plain; charset=utf-8' };
    },
  },
];
