/**
 * Serverless: endpoint groups (`/endptjobs/`) and their worker groups (`/workergroups/`, also
 * reachable as `/autojobs/`), and the autoscaler's read calls for their workers and logs (which the
 * real service answers from another host; here the same server does).
 *
 * Workers are records, not containers: a group keeps min(max_workers, max(cold_workers,
 * test_workers)) of them. A new worker is "loading" for WORKER_LOAD_MS of simulated time, then
 * "idle". Creating, scaling and deleting write timestamped lines to the group's and the
 * endpoint's logs.
 */
import type { EndpointRecord, ServerlessLog, WorkerGroupRecord, WorkerRecord } from '../model';
import { epoch, fail, intParam, num, ok, str, type Ctx, type RouteDef, type Sim } from '../router';
import { newSecret } from '../state';
import { visibleTemplates } from './templates';

const ENDPOINT_DEFAULTS: Record<string, unknown> = {
  min_load: 10,
  min_cold_load: 0,
  target_util: 0.9,
  cold_mult: 2.5,
  cold_workers: 5,
  max_workers: 20,
  max_queue_time: 30,
  target_queue_time: 10,
  inactivity_timeout: null,
  endpoint_state: 'active',
};
const NUMERIC = ['min_load', 'min_cold_load', 'target_util', 'cold_mult', 'cold_workers', 'max_workers', 'max_queue_time', 'target_queue_time', 'inactivity_timeout', 'test_workers', 'gpu_ram'];
const GROUP_DEFAULTS: Record<string, unknown> = { min_load: 1, target_util: 0.9, cold_mult: 2.5, cold_workers: 3, max_workers: 20, test_workers: 3, gpu_ram: 24, launch_args: '' };

/** Copies known fields from the body, checking numbers and states. */
function take(body: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (!(name in body)) continue;
    const value = body[name];
    if (NUMERIC.includes(name) && value !== null) {
      const n = num(value);
      if (n === undefined || n < 0) throw fail(400, 'invalid_args', `${name} must be a non-negative number.`);
      if (name === 'target_util' && n > 1) throw fail(400, 'invalid_args', 'target_util is a fraction between 0 and 1.');
      out[name] = n;
    } else if (name === 'endpoint_state') {
      if (!['active', 'suspended', 'stopped'].includes(String(value))) throw fail(400, 'invalid_args', "endpoint_state must be 'active', 'suspended' or 'stopped'.");
      out[name] = value;
    } else {
      out[name] = value;
    }
  }
  return out;
}

/** A rough reading of the CLI query language, for display as `search_query`. */
function parseSearchParams(text: string): Record<string, Record<string, string>> {
  const ops: Record<string, string> = { '>=': 'gte', '<=': 'lte', '==': 'eq', '=': 'eq', '!=': 'neq', '>': 'gt', '<': 'lt' };
  const out: Record<string, Record<string, string>> = {};
  for (const token of text.split(/\s+/).filter(Boolean)) {
    const m = /^(\w+)(>=|<=|==|!=|=|>|<)(.+)$/.exec(token);
    if (m) (out[m[1]!] ??= {})[ops[m[2]!]!] = m[3]!;
  }
  return out;
}

function endpointRow(e: EndpointRecord) {
  return { id: e.id, ...e.fields, api_key: e.apiKey, user_id: e.accountId, created_at: epoch(e.createdAt), auto_delete_in_seconds: null, auto_delete_due_24h: false };
}

function groupRow(ctx: Ctx, g: WorkerGroupRecord) {
  const endpoint = ctx.sim.store.data.endpoints.find((e) => e.id === g.endpointId);
  const search = typeof g.fields.search_params === 'string' ? g.fields.search_params : '';
  return {
    id: g.id,
    endpoint_id: g.endpointId,
    endpoint_name: endpoint?.fields.endpoint_name ?? null,
    ...g.fields,
    search_query: parseSearchParams(search),
    api_key: g.apiKey,
    user_id: g.accountId,
    created_at: epoch(g.createdAt),
  };
}

function ownEndpoint(ctx: Ctx): EndpointRecord {
  const id = intParam(ctx, 'id');
  const e = ctx.sim.store.data.endpoints.find((x) => x.id === id && x.accountId === ctx.account.id);
  if (!e) throw fail(404, 'no_such_endpoint', `Endpoint ${id} not found.`);
  return e;
}

function ownGroup(ctx: Ctx): WorkerGroupRecord {
  const id = intParam(ctx, 'id');
  const g = ctx.sim.store.data.workerGroups.find((x) => x.id === id && x.accountId === ctx.account.id);
  if (!g) throw fail(404, 'no_such_workergroup', `Worker group ${id} not found.`);
  return g;
}


export const WORKER_LOAD_MS = 5_000;

function workersOf(sim: Sim): WorkerRecord[] {
  return (sim.store.data.workers ??= []);
}

function logOf(sim: Sim, key: string): ServerlessLog {
  const logs = (sim.store.data.serverlessLogs ??= []);
  let log = logs.find((l) => l.key === key);
  if (!log) logs.push((log = { key, lines: [] }));
  return log;
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** A line in the group's log and its endpoint's. */
function say(sim: Sim, g: WorkerGroupRecord, at: number, text: string): void {
  const line = `${stamp(at)} - ${text}`;
  logOf(sim, `group:${g.id}`).lines.push(line);
  logOf(sim, `endpoint:${g.endpointId}`).lines.push(`${line} [worker group ${g.id}]`);
}

/** Brings the group's workers to its target, newest stopped first; and notes the ones that became ready. */
function scale(sim: Sim, g: WorkerGroupRecord, now: number): void {
  const all = workersOf(sim);
  const mine = all.filter((w) => w.groupId === g.id);
  const f = g.fields;
  const target = Math.max(0, Math.min(Number(f.max_workers ?? 0), Math.max(Number(f.cold_workers ?? 0), Number(f.test_workers ?? 0))));
  for (let n = mine.length; n < target; n++) {
    const w: WorkerRecord = { id: sim.store.nextId('worker'), accountId: g.accountId, groupId: g.id, endpointId: g.endpointId, createdAt: now, readyAt: now + WORKER_LOAD_MS };
    all.push(w);
    say(sim, g, now, `worker ${w.id} loading`);
  }
  if (mine.length > target) {
    const gone = new Set(mine.slice(target).map((w) => w.id));
    sim.store.data.workers = all.filter((w) => !gone.has(w.id));
    for (const id of gone) say(sim, g, now, `worker ${id} stopped (scaled down)`);
  }
  if (mine.length !== target) say(sim, g, now, `scaled to ${target} worker${target === 1 ? '' : 's'}`);
  settle(sim, now);
}

/** Workers whose load time has passed are ready; the log says so once, at the time it happened. */
function settle(sim: Sim, now: number): void {
  let changed = false;
  for (const w of workersOf(sim)) {
    if (w.announced || w.readyAt > now) continue;
    const g = sim.store.data.workerGroups.find((x) => x.id === w.groupId);
    if (g) say(sim, g, w.readyAt, `worker ${w.id} ready`);
    w.announced = true;
    changed = true;
  }
  if (changed) sim.store.changed();
}

function dropWorkers(sim: Sim, groupIds: Set<number>): number[] {
  const all = workersOf(sim);
  const gone = all.filter((w) => groupIds.has(w.groupId)).map((w) => w.id);
  sim.store.data.workers = all.filter((w) => !groupIds.has(w.groupId));
  return gone;
}

function workerRow(w: WorkerRecord, now: number) {
  const ready = now >= w.readyAt;
  return { id: w.id, status: ready ? 'idle' : 'loading', url: `http://127.0.0.1:${8_000 + (w.id % 1_000)}`, created_at: epoch(w.createdAt), cur_load: 0, perf: ready ? 100 + (w.id % 7) * 10 : 0, reqs_working: 0 };
}

function tail(lines: string[], raw: unknown): string {
  const n = num(raw);
  const count = n !== undefined && n >= 1 ? Math.floor(n) : 10_000;
  return lines.slice(-count).join('\n');
}

/** The autoscaler's way of saying it found nothing: a 200 whose body is a bare JSON string. */
const notFound = (what: string) => ok(`authenticate_${what}_apikey: invalid api_key or ${what} not found`);

function bodyEndpoint(ctx: Ctx): EndpointRecord | undefined {
  const mine = ctx.sim.store.data.endpoints.filter((e) => e.accountId === ctx.account.id);
  const id = num(ctx.body.id);
  const name = str(ctx.body.endpoint);
  return name !== undefined ? mine.find((e) => e.fields.endpoint_name === name) : mine.find((e) => e.id === id);
}

function bodyGroup(ctx: Ctx): WorkerGroupRecord | undefined {
  const id = num(ctx.body.id);
  return ctx.sim.store.data.workerGroups.find((g) => g.id === id && g.accountId === ctx.account.id);
}

/** One of the autoscaler's POST reads: find the record from the body, then answer about it. */
function autoscalerRoute<T>(path: string, action: string, what: string, find: (ctx: Ctx) => T | undefined, answer: (ctx: Ctx, record: T) => unknown): RouteDef {
  return {
    method: 'POST',
    path,
    category: 'misc',
    action,
    handler: (ctx) => {
      const record = find(ctx);
      if (record === undefined) return notFound(what);
      settle(ctx.sim, ctx.now);
      return ok(answer(ctx, record));
    },
  };
}

const workersWhere = (ctx: Ctx, pick: (w: WorkerRecord) => boolean) => ({ workers: workersOf(ctx.sim).filter(pick).map((w) => workerRow(w, ctx.now)) });

const autoscalerRoutes: RouteDef[] = [
  autoscalerRoute('/get_endpoint_workers', 'api.endpoint.workers', 'endpoint', bodyEndpoint, (ctx, e) => workersWhere(ctx, (w) => w.endpointId === e.id)),
  autoscalerRoute('/get_workergroup_workers', 'api.workergroup.workers', 'workergroup', bodyGroup, (ctx, g) => workersWhere(ctx, (w) => w.groupId === g.id)),
  autoscalerRoute('/get_endpoint_logs', 'api.endpoint.logs', 'endpoint', bodyEndpoint, (ctx, e) => ({ logs: tail(logOf(ctx.sim, `endpoint:${e.id}`).lines, ctx.body.tail) })),
  autoscalerRoute('/get_workergroup_logs', 'api.workergroup.logs', 'workergroup', bodyGroup, (ctx, g) => ({ logs: tail(logOf(ctx.sim, `group:${g.id}`).lines, ctx.body.tail) })),
];

const ENDPOINT_FIELDS = ['endpoint_name', ...Object.keys(ENDPOINT_DEFAULTS)];
const GROUP_FIELDS = ['template_hash', 'template_id', 'search_params', 'launch_args', 'gpu_ram', 'test_workers', 'min_load', 'target_util', 'cold_mult', 'cold_workers', 'max_workers'];

function createGroup(ctx: Ctx) {
  const { body, sim } = ctx;
  const endpoints = sim.store.data.endpoints.filter((e) => e.accountId === ctx.account.id);
  const endpointId = num(body.endpoint_id);
  const endpoint = endpointId !== undefined ? endpoints.find((e) => e.id === endpointId) : endpoints.find((e) => e.fields.endpoint_name === str(body.endpoint_name));
  if (!endpoint) throw fail(400, 'invalid_args', 'Please assign your workergroup to a valid endpoint identifier');
  const fields = { ...GROUP_DEFAULTS, ...take(body, GROUP_FIELDS) };
  const hash = str(fields.template_hash);
  const templateId = num(fields.template_id);
  if (!hash && templateId === undefined) throw fail(400, 'invalid_args', 'A worker group needs a template_hash or a template_id.');
  const template = visibleTemplates(ctx).find((t) => (hash ? t.hash_id === hash : t.id === templateId));
  if (!template) throw fail(404, 'invalid_args', `Template ${hash ?? templateId} not found.`);
  fields.template_hash = template.hash_id;
  fields.template_id = template.id;
  const g: WorkerGroupRecord = { id: sim.store.nextId('workergroup'), accountId: ctx.account.id, endpointId: endpoint.id, fields, apiKey: newSecret(), createdAt: ctx.now };
  sim.store.data.workerGroups.push(g);
  say(sim, g, ctx.now, `worker group ${g.id} created with template ${template.hash_id}`);
  scale(sim, g, ctx.now);
  sim.store.changed();
  return ok({ success: true, id: g.id });
}

function groupRoutes(base: string): RouteDef[] {
  return [
    {
      method: 'GET',
      path: base,
      category: 'misc',
      action: 'api.workergroup.list',
      handler: (ctx) => ok({ success: true, results: ctx.sim.store.data.workerGroups.filter((g) => g.accountId === ctx.account.id).map((g) => groupRow(ctx, g)) }),
    },
    { method: 'POST', path: base, category: 'misc', action: 'api.workergroup.create', handler: createGroup },
    {
      method: 'PUT',
      path: `${base}/:id`,
      category: 'misc',
      action: 'api.workergroup.update',
      handler: (ctx) => {
        const g = ownGroup(ctx);
        const changes = take(ctx.body, GROUP_FIELDS);
        Object.assign(g.fields, changes);
        say(ctx.sim, g, ctx.now, `updated ${Object.entries(changes).map(([k, v]) => `${k}=${String(v)}`).join(' ') || 'nothing'}`);
        scale(ctx.sim, g, ctx.now);
        ctx.sim.store.changed();
        return ok({ success: true });
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:id`,
      category: 'misc',
      action: 'api.workergroup.delete',
      handler: (ctx) => {
        const g = ownGroup(ctx);
        ctx.sim.store.data.workerGroups = ctx.sim.store.data.workerGroups.filter((x) => x !== g);
        const deleted = dropWorkers(ctx.sim, new Set([g.id]));
        say(ctx.sim, g, ctx.now, `worker group ${g.id} deleted with ${deleted.length} worker${deleted.length === 1 ? '' : 's'}`);
        ctx.sim.store.changed();
        return ok({ success: true, deleted_workers: deleted, failed_workers: [], msg: `Worker group ${g.id} deleted.` });
      },
    },
  ];
}

export const serverlessRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/endptjobs',
    category: 'misc',
    action: 'api.endpoint.list',
    handler: (ctx) => ok({ success: true, results: ctx.sim.store.data.endpoints.filter((e) => e.accountId === ctx.account.id).map(endpointRow) }),
  },
  {
    method: 'POST',
    path: '/api/v0/endptjobs',
    category: 'misc',
    action: 'api.endpoint.create',
    handler: (ctx) => {
      const store = ctx.sim.store;
      const id = store.nextId('endpoint');
      const fields = { ...ENDPOINT_DEFAULTS, endpoint_name: `endpoint-${id}`, ...take(ctx.body, ENDPOINT_FIELDS) };
      if (typeof fields.endpoint_name !== 'string' || !fields.endpoint_name) throw fail(400, 'invalid_args', 'endpoint_name must be a non-empty string.');
      if (store.data.endpoints.some((e) => e.accountId === ctx.account.id && e.fields.endpoint_name === fields.endpoint_name))
        throw fail(400, 'invalid_args', `An endpoint named '${fields.endpoint_name}' already exists.`);
      store.data.endpoints.push({ id, accountId: ctx.account.id, fields, apiKey: newSecret(), createdAt: ctx.now });
      store.changed();
      return ok({ success: true, result: id });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/endptjobs/:id',
    category: 'misc',
    action: 'api.endpoint.update',
    handler: (ctx) => {
      const e = ownEndpoint(ctx);
      Object.assign(e.fields, take(ctx.body, ENDPOINT_FIELDS));
      ctx.sim.store.changed();
      return ok({ success: true });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v0/endptjobs/:id',
    category: 'misc',
    action: 'api.endpoint.delete',
    handler: (ctx) => {
      const e = ownEndpoint(ctx);
      const data = ctx.sim.store.data;
      data.endpoints = data.endpoints.filter((x) => x !== e);
      const groups = new Set(data.workerGroups.filter((g) => g.endpointId === e.id).map((g) => g.id));
      data.workerGroups = data.workerGroups.filter((g) => g.endpointId !== e.id);
      const deleted = dropWorkers(ctx.sim, groups);
      data.serverlessLogs = (data.serverlessLogs ?? []).filter((l) => l.key !== `endpoint:${e.id}` && !groups.has(Number(l.key.slice('group:'.length))));
      ctx.sim.store.changed();
      return ok({ success: true, deleted_workers: deleted, failed_workers: [], msg: `Endpoint ${e.id} and its worker groups deleted.` });
    },
  },
  ...groupRoutes('/api/v0/workergroups'),
  ...groupRoutes('/api/v0/autojobs'),
  ...autoscalerRoutes,
];
