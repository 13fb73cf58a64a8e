/**
 * Serverless: endpoint groups (`/endptjobs/`) and their worker groups (`/workergroups/`, also
 * reachable as `/autojobs/`). Their workers and logs are kept in workers.ts and read through the
 * autoscaler's routes (autoscaler.ts).
 */
import type { EndpointRecord, WorkerGroupRecord } from '../model';
import { epoch, fail, intParam, num, ok, str, type Ctx, type RouteDef, saved } from '../router';
import { newSecret } from '../state';
import { dropLogs, dropWorkers, endpointLogKey, groupLogKey, sayForEndpoint, sayForGroup, scaleGroup } from '../workers';
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
const NUMERIC = [
  'min_load',
  'min_cold_load',
  'target_util',
  'cold_mult',
  'cold_workers',
  'max_workers',
  'max_queue_time',
  'target_queue_time',
  'inactivity_timeout',
  'test_workers',
  'gpu_ram',
];
const GROUP_DEFAULTS: Record<string, unknown> = {
  min_load: 1,
  target_util: 0.9,
  cold_mult: 2.5,
  cold_workers: 3,
  max_workers: 20,
  test_workers: 3,
  gpu_ram: 24,
  launch_args: '',
};

/**
 * Copies known fields from the body, checking numbers and states. A field sent as null is one the
 * caller did not give (the official CLI sends every such field as null): it leaves the stored
 * value, or the default, as it is.
 */
function take(body: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (!(name in body)) continue;
    const value = body[name];
    if (value === null || value === undefined) continue;
    if (NUMERIC.includes(name)) {
      const n = num(value);
      if (n === undefined || n < 0) throw fail(400, 'invalid_args', `${name} must be a non-negative number.`);
      if (name === 'target_util' && n > 1) throw fail(400, 'invalid_args', 'target_util is a fraction between 0 and 1.');
      out[name] = n;
    } else if (name === 'endpoint_state') {
      if (!['active', 'suspended', 'stopped'].includes(String(value)))
        throw fail(400, 'invalid_args', "endpoint_state must be 'active', 'suspended' or 'stopped'.");
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
  return {
    id: e.id,
    ...e.fields,
    api_key: e.apiKey,
    user_id: e.accountId,
    created_at: epoch(e.createdAt),
    auto_delete_in_seconds: null,
    auto_delete_due_24h: false,
  };
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

const ENDPOINT_FIELDS = ['endpoint_name', ...Object.keys(ENDPOINT_DEFAULTS)];
const GROUP_FIELDS = [
  'template_hash',
  'template_id',
  'search_params',
  'launch_args',
  'gpu_ram',
  'test_workers',
  'min_load',
  'target_util',
  'cold_mult',
  'cold_workers',
  'max_workers',
];

function describeChanges(changes: Record<string, unknown>): string {
  return (
    Object.entries(changes)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ') || 'nothing'
  );
}

function createGroup(ctx: Ctx) {
  const { body, sim } = ctx;
  const endpoints = sim.store.data.endpoints.filter((e) => e.accountId === ctx.account.id);
  const endpointId = num(body.endpoint_id);
  const endpoint =
    endpointId !== undefined
      ? endpoints.find((e) => e.id === endpointId)
      : endpoints.find((e) => e.fields.endpoint_name === str(body.endpoint_name));
  if (!endpoint) throw fail(400, 'invalid_args', 'Please assign your workergroup to a valid endpoint identifier');
  const fields = { ...GROUP_DEFAULTS, ...take(body, GROUP_FIELDS) };
  const hash = str(fields.template_hash);
  const templateId = num(fields.template_id);
  if (!hash && templateId === undefined) throw fail(400, 'invalid_args', 'A worker group needs a template_hash or a template_id.');
  const template = visibleTemplates(ctx).find((t) => (hash ? t.hash_id === hash : t.id === templateId));
  if (!template) throw fail(404, 'invalid_args', `Template ${hash ?? templateId} not found.`);
  fields.template_hash = template.hash_id;
  fields.template_id = template.id;
  const g: WorkerGroupRecord = {
    id: sim.store.nextId('workergroup'),
    accountId: ctx.account.id,
    endpointId: endpoint.id,
    fields,
    apiKey: newSecret(),
    createdAt: ctx.now,
  };
  sim.store.data.workerGroups.push(g);
  sayForGroup(sim.store.data, g, ctx.now, `worker group ${g.id} created with template ${template.hash_id}`);
  scaleGroup(sim.store, g, ctx.now);
  return saved(sim.store, { success: true, id: g.id });
}

function groupRoutes(base: string): RouteDef[] {
  return [
    {
      method: 'GET',
      path: base,
      category: 'misc',
      action: 'api.workergroup.list',
      handler: (ctx) =>
        ok({
          success: true,
          results: ctx.sim.store.data.workerGroups.filter((g) => g.accountId === ctx.account.id).map((g) => groupRow(ctx, g)),
        }),
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
        sayForGroup(ctx.sim.store.data, g, ctx.now, `updated ${describeChanges(changes)}`);
        scaleGroup(ctx.sim.store, g, ctx.now);
        return saved(ctx.sim.store, { success: true });
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:id`,
      category: 'misc',
      action: 'api.workergroup.delete',
      handler: (ctx) => {
        const g = ownGroup(ctx);
        const data = ctx.sim.store.data;
        data.workerGroups = data.workerGroups.filter((x) => x !== g);
        const deleted = dropWorkers(data, new Set([g.id]));
        // The group's own log goes with it; its endpoint's log keeps the story.
        sayForGroup(data, g, ctx.now, `worker group ${g.id} deleted with ${deleted.length} worker${deleted.length === 1 ? '' : 's'}`);
        dropLogs(data, new Set([groupLogKey(g.id)]));
        return saved(ctx.sim.store, { success: true, deleted_workers: deleted, failed_workers: [], msg: `Worker group ${g.id} deleted.` });
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
    handler: (ctx) =>
      ok({ success: true, results: ctx.sim.store.data.endpoints.filter((e) => e.accountId === ctx.account.id).map(endpointRow) }),
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
      if (typeof fields.endpoint_name !== 'string' || !fields.endpoint_name)
        throw fail(400, 'invalid_args', 'endpoint_name must be a non-empty string.');
      if (store.data.endpoints.some((e) => e.accountId === ctx.account.id && e.fields.endpoint_name === fields.endpoint_name))
        throw fail(400, 'invalid_args', `An endpoint named '${fields.endpoint_name}' already exists.`);
      store.data.endpoints.push({ id, accountId: ctx.account.id, fields, apiKey: newSecret(), createdAt: ctx.now });
      return saved(store, { success: true, result: id });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/endptjobs/:id',
    category: 'misc',
    action: 'api.endpoint.update',
    handler: (ctx) => {
      const e = ownEndpoint(ctx);
      const changes = take(ctx.body, ENDPOINT_FIELDS);
      Object.assign(e.fields, changes);
      sayForEndpoint(ctx.sim.store.data, e, ctx.now, `endpoint ${e.id} updated ${describeChanges(changes)}`);
      return saved(ctx.sim.store, { success: true });
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
      const deleted = dropWorkers(data, groups);
      dropLogs(data, new Set([endpointLogKey(e.id), ...[...groups].map(groupLogKey)]));
      return saved(ctx.sim.store, {
        success: true,
        deleted_workers: deleted,
        failed_workers: [],
        msg: `Endpoint ${e.id} and its worker groups deleted.`,
      });
    },
  },
  ...groupRoutes('/api/v0/workergroups'),
  ...groupRoutes('/api/v0/autojobs'),
];
