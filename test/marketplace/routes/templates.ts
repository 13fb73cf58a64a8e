/**
 * Templates: `GET/POST/PUT/DELETE /api/v0/template/`. Search shows public templates and the
 * caller's own; edits keep the id and give a new `hash_id`; create returns an identical existing
 * template instead of making a copy.
 */
import { kindsOf, parseFilters, parseOrder, QueryError, rowMatches, sortRows } from '../filters';
import type { TemplateRecord } from '../model';
import { epoch, fail, isObject, jsonParam, num, ok, str, type Ctx, type RouteDef, saved } from '../router';
import { blankTemplate, contentKey, TEMPLATE_FIELDS, templateHash } from '../templates';

const BOOLEAN_FIELDS = new Set(['readme_visible', 'ssh_direct', 'use_ssh', 'jup_direct', 'use_jupyter_lab', 'private']);
const KINDS = kindsOf(blankTemplate(0, 0, '', '', 0));

export function visibleTemplates(ctx: Ctx): TemplateRecord[] {
  return ctx.sim.store.data.templates.filter((t) => t.creator_id === ctx.account.id || !t.private);
}

function wire(t: TemplateRecord): Record<string, unknown> {
  const { docker_login_pass: _secret, ...rest } = t;
  return { ...rest, default_tag: t.tag, recent_create_date: t.count_created > 0 ? t.created_at : null };
}

/** Applies body fields to a template, checking types. */
function apply(t: TemplateRecord, body: Record<string, unknown>): void {
  const target = t as unknown as Record<string, unknown>;
  for (const field of TEMPLATE_FIELDS) {
    if (!(field in body)) continue;
    const value = body[field];
    if (BOOLEAN_FIELDS.has(field)) {
      target[field] = value === true || value === 'true' || value === 1;
    } else if (field === 'recommended_disk_space') {
      const n = num(value);
      if (n === undefined || n <= 0) throw fail(400, 'invalid_args', 'recommended_disk_space must be a positive number of GB.');
      target[field] = n;
    } else if (field === 'extra_filters') {
      if (value !== null && !isObject(value)) throw fail(400, 'invalid_args', 'extra_filters must be an offer filter object.');
      target[field] = value ?? {};
    } else if (field === 'env') {
      // Templates keep env as docker flags; a dict is turned into `-e NAME=value` flags.
      target[field] = isObject(value)
        ? Object.entries(value)
            .map(([k, v]) => (k.startsWith('-') ? k : `-e ${k}=${String(v)}`))
            .join(' ')
        : String(value ?? '');
    } else if (field === 'volume_info') {
      target[field] = value;
    } else {
      target[field] = value === null || value === undefined ? null : String(value);
    }
  }
  if (!t.name) throw fail(400, 'invalid_args', 'A template needs a name.');
  if (!t.image) throw fail(400, 'invalid_args', 'A template needs an image.');
  if (!t.tag) t.tag = 'latest';
  if (!['ssh', 'jupyter', 'args'].includes(t.runtype)) throw fail(400, 'invalid_args', "runtype must be 'ssh', 'jupyter' or 'args'.");
}

/**
 * `order_by` as the service documents its sorted lists: a JSON list of `{col, dir}` (a `dir` other
 * than desc is asc), or one column name alone (the template search's own description). A column
 * the templates do not have is a 400. `id` is always the last tiebreaker.
 */
function templateOrder(raw: unknown): ReturnType<typeof parseOrder> {
  const order = typeof raw === 'string' ? [[raw, 'asc']] : raw;
  const parsed = parseOrder(order ?? []);
  for (const [col] of parsed) if (!(col in KINDS)) throw new QueryError(`Invalid order_by column '${col}'.`);
  return parsed.some(([col]) => col === 'id') ? parsed : [...parsed, ['id', 'asc']];
}

/** `select_cols`: `["*"]` (or nothing) for every column; else only those, an unknown one as null. */
function columns(raw: unknown): (row: Record<string, unknown>) => Record<string, unknown> {
  if (raw === undefined) return (row) => row;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((c) => typeof c === 'string'))
    throw new QueryError('select_cols must be a JSON list of column names, such as ["*"].');
  const cols = raw as string[];
  if (cols.includes('*')) return (row) => row;
  return (row) => Object.fromEntries(cols.map((c) => [c, row[c] ?? null]));
}

function search(ctx: Ctx) {
  try {
    const filters = jsonParam(ctx.query, 'select_filters') ?? {};
    if (!isObject(filters)) throw new QueryError('select_filters must be a JSON object.');
    const conditions = parseFilters(filters, KINDS);
    for (const c of conditions) if (!(c.field in KINDS)) throw new QueryError(`Unknown template column '${c.field}'.`);
    const order = templateOrder(jsonParam(ctx.query, 'order_by'));
    const pick = columns(jsonParam(ctx.query, 'select_cols'));
    const rows = sortRows(
      visibleTemplates(ctx).filter((t) => rowMatches(t as unknown as Record<string, unknown>, conditions)),
      order,
    );
    return ok({ success: true, templates_found: rows.length, templates: rows.map((t) => pick(wire(t))) });
  } catch (error) {
    if (error instanceof QueryError) throw fail(400, 'invalid_args', error.message);
    throw error;
  }
}

function create(ctx: Ctx) {
  const store = ctx.sim.store;
  const t = blankTemplate(0, ctx.account.id, '', '', epoch(ctx.now));
  apply(t, ctx.body);
  const key = contentKey(t);
  const existing = store.data.templates.find((x) => x.creator_id === ctx.account.id && contentKey(x) === key);
  if (existing) return ok({ success: true, msg: `Template already exists. Template ID: ${existing.id}`, template: wire(existing) });
  t.id = store.nextId('template');
  t.hash_id = templateHash(key, store.nextId('template_revision'));
  store.data.templates.push(t);
  return saved(store, { success: true, msg: `Template Created Successfully! New Template ID: ${t.id}`, template: wire(t) });
}

function own(ctx: Ctx, source: Record<string, unknown>): TemplateRecord {
  const hash = str(source.hash_id);
  const id = num(source.template_id ?? source.id);
  if (!hash && id === undefined) throw fail(400, 'invalid_args', 'Give a template_id or a hash_id.');
  const t = ctx.sim.store.data.templates.find((x) => (hash ? x.hash_id === hash : x.id === id));
  if (!t) throw fail(404, 'not_found', `Template ${hash ?? id} not found.`);
  if (t.creator_id !== ctx.account.id) throw fail(403, 'not_allowed', 'Only the creator can change or delete a template.');
  return t;
}

function edit(ctx: Ctx) {
  const t = own(ctx, { hash_id: ctx.body.hash_id, template_id: ctx.body.hash_id ? undefined : (ctx.body.template_id ?? ctx.body.id) });
  const draft = { ...t };
  apply(draft, ctx.body);
  Object.assign(t, draft);
  t.hash_id = templateHash(contentKey(t), ctx.sim.store.nextId('template_revision'));
  return saved(ctx.sim.store, { success: true, msg: 'Template updated.', template: wire(t) });
}

function remove(ctx: Ctx) {
  const source: Record<string, unknown> = { ...ctx.body };
  for (const name of ['template_id', 'hash_id']) if (source[name] === undefined && ctx.query.get(name)) source[name] = ctx.query.get(name);
  const t = own(ctx, source);
  ctx.sim.store.data.templates = ctx.sim.store.data.templates.filter((x) => x !== t);
  return saved(ctx.sim.store, { success: true });
}

export const templateRoutes: RouteDef[] = [
  { method: 'GET', path: '/api/v0/template', category: 'user_read', action: 'api.template.search', handler: search },
  { method: 'GET', path: '/api/v1/template', category: 'user_read', action: 'api.template.search', handler: search },
  { method: 'POST', path: '/api/v0/template', category: 'user_write', action: 'api.template.create', handler: create },
  { method: 'PUT', path: '/api/v0/template', category: 'user_write', action: 'api.template.edit', handler: edit },
  { method: 'PUT', path: '/api/v1/template', category: 'user_write', action: 'api.template.edit', handler: edit },
  { method: 'DELETE', path: '/api/v0/template', category: 'user_write', action: 'api.template.delete', handler: remove },
];
