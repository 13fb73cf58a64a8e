import * as z from 'zod';
import { anyOk, listOf, logUnreadable, optBool, optInt, optNumber, optString, optTime, recordId, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/**
 * A saved launch configuration. `hash_id` is what an instance is created from; it changes on
 * every edit while `id` stays. `env` is a docker-flag string here (`-e A=1 -p 8000:8000`).
 */
export const TemplateSchema = z.object({
  id: recordId,
  hash_id: z.string(),
  name: z.string(),
  image: optString,
  tag: optString,
  desc: optString,
  env: optString,
  onstart: optString,
  runtype: optString,
  args_str: optString,
  ssh_direct: optBool,
  use_ssh: optBool,
  jup_direct: optBool,
  recommended_disk_space: optNumber,
  private: optBool,
  creator_id: optInt,
  created_at: optTime,
  count_created: optNumber,
  extra_filters: z.record(z.string(), z.unknown()).nullish().catch(undefined),
});
export type Template = z.output<typeof TemplateSchema>;

export interface TemplateFields {
  name: string;
  image: string;
  tag?: string;
  desc?: string;
  env?: string;
  onstart?: string;
  runtype?: 'ssh' | 'jupyter' | 'args';
  args_str?: string;
  ssh_direct?: boolean;
  use_ssh?: boolean;
  recommended_disk_space?: number;
  private?: boolean;
  extra_filters?: Record<string, Record<string, unknown>>;
}

/** One sort directive, as the service documents `order_by`: a column and a direction. */
export interface TemplateOrder {
  col: string;
  dir: 'asc' | 'desc';
}

export interface TemplateSearch {
  selectFilters?: Record<string, Record<string, unknown>>;
  /** Sorted by these columns in turn; one directive alone is accepted too. */
  orderBy?: TemplateOrder | TemplateOrder[];
}

/**
 * The search query as the service takes it: every column (`select_cols: ["*"]`, as the official
 * CLI asks, so no field the schema reads is left out), filters, and `order_by` as a JSON list of
 * `{col, dir}` directives, the shape its other sorted lists document. Values are JSON-encoded by
 * the transport.
 */
export function templateSearchQuery(request: TemplateSearch = {}): Record<string, unknown> {
  const query: Record<string, unknown> = { select_cols: ['*'] };
  if (request.selectFilters !== undefined) query['select_filters'] = request.selectFilters;
  if (request.orderBy !== undefined) {
    const order = Array.isArray(request.orderBy) ? request.orderBy : [request.orderBy];
    for (const o of order) {
      if (!/^[a-z_][a-z0-9_]*$/i.test(o.col)) throw new RangeError(l10n.t('"{0}" is not a template column name.', o.col));
      if (o.dir !== 'asc' && o.dir !== 'desc')
        throw new RangeError(l10n.t('The sort direction must be "asc" or "desc" (got "{0}").', String(o.dir)));
    }
    if (order.length > 0) query['order_by'] = order.map((o) => ({ col: o.col, dir: o.dir }));
  }
  return query;
}

/**
 * A template without its hash or name cannot be rented from or told apart, and the search mixes
 * public templates with the account's own, so one that cannot be read is left out and counted
 * (`unreadableOf`) rather than listed by id as the account's.
 */
const TemplateListSchema = listOf(TemplateSchema, 'templates');
const TemplateResultSchema = z.object({ template: TemplateSchema }).transform((v) => v.template);
/** An edit answers with the id and the new hash; the other fields may be left out. */
const EditedTemplateSchema = z.object({ template: z.object({ id: z.int(), hash_id: z.string() }) }).transform((v) => v.template);

export class TemplatesApi {
  constructor(private readonly t: Transport) {}

  /** Public templates and the account's own. */
  async search(request: TemplateSearch = {}, o: RequestOptions = {}): Promise<Template[]> {
    const query = templateSearchQuery(request);
    const templates = await this.t.send({
      action: l10n.t('search templates'),
      method: 'GET',
      path: '/api/v0/template/',
      query,
      schema: TemplateListSchema,
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('search templates'), templates);
    return templates;
  }

  create(fields: TemplateFields, o: RequestOptions = {}): Promise<Template> {
    return this.t.send({
      action: l10n.t('create template "{0}"', fields.name),
      method: 'POST',
      path: '/api/v0/template/',
      body: fields,
      schema: TemplateResultSchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** Changes a template. The answer carries the new `hash_id`; anything that stored the old one must follow. */
  edit(hashId: string, changes: Partial<TemplateFields>, o: RequestOptions = {}): Promise<{ id: number; hash_id: string }> {
    return this.t.send({
      action: l10n.t('edit the template'),
      method: 'PUT',
      path: '/api/v0/template/',
      body: { hash_id: hashId, ...changes },
      schema: EditedTemplateSchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  delete(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('delete template {0}', id),
      method: 'DELETE',
      path: '/api/v0/template/',
      body: { template_id: id },
      schema: anyOk,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }
}
