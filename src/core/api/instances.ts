/**
 * The instance calls: rent, list, show, start, stop, label, bid, reboot, destroy and logs. The
 * schemas they read are in instanceSchemas.ts, the requests they send in instanceRequests.ts;
 * both are re-exported here, where callers have always imported them.
 */
import * as z from 'zod';
import { ApiError } from './errors';
import { anyOk, logUnreadable, recordsReader, type RequestOptions } from './fields';
import { ListReuse } from './listReuse';
import { checkCreate, type CreateInstanceRequest, type ListPageRequest } from './instanceRequests';
import {
  CreatedInstanceSchema,
  INSTANCE_CLOCK_FIELDS,
  InstanceListSchema,
  InstanceSchema,
  InstancePageSchema,
  LogRequestSchema,
  ShowInstanceSchema,
  unreadableInstance,
  type CreatedInstance,
  type Instance,
  type InstancePage,
} from './instanceSchemas';
import { mergeUnreadable, unreadableOf, withUnreadable } from './unreadable';
import type { Transport } from './transport';

import { BID_MIN, CHANGE_BID_MAX, LABEL_MAX_CHARS, ONSTART_MAX_CHARS } from './limits';
import { l10n } from '../l10n';

export { LABEL_MAX_CHARS, ONSTART_MAX_CHARS };
export { InstanceSchema, unreadableInstance, type CreatedInstance, type Instance, type InstancePage } from './instanceSchemas';
export { checkCreate, type CreateInstanceRequest, type ListPageRequest, type VolumeAttachment } from './instanceRequests';

/** Upper bound on pages followed by `list()`: 100 pages of 25 is far beyond any real account. */
const MAX_PAGES = 100;

const V0ListSchema = z.object({ instances: InstanceListSchema });

export class InstancesApi {
  private v1Missing = false;
  private v0Missing = false;
  private readonly reuse = new ListReuse<Instance>({
    key: 'instances',
    readFresh: recordsReader(InstanceSchema, { byId: unreadableInstance }),
    clockFields: INSTANCE_CLOCK_FIELDS,
  });

  constructor(private readonly t: Transport) {}

  /**
   * Rents an offer. Never retried: when the answer is lost (`outcomeUnknown`), the caller must
   * list instances and look for the one it asked for before trying again.
   */
  async create(offerId: number, request: CreateInstanceRequest, o: RequestOptions = {}): Promise<CreatedInstance> {
    const action = l10n.t('rent offer {0}', offerId);
    const path = `/api/v0/asks/${offerId}/`;
    const problem = checkCreate(request);
    if (problem) throw new ApiError({ kind: 'bad_request', action, method: 'PUT', path, serverMessage: problem });
    return this.t.send({
      action,
      method: 'PUT',
      path,
      body: { client_id: 'me', ...request },
      // The rent's own variables (an HF_TOKEN) are taken out of any message that echoes them.
      secrets: Object.values(request.env ?? {}),
      schema: CreatedInstanceSchema,
      permission: 'instance_write',
      retry: 'never',
      ...o,
    });
  }

  /** One page of the current list endpoint (keyset pages of at most 25). */
  listPage(request: ListPageRequest = {}, o: RequestOptions = {}): Promise<InstancePage> {
    const query = {
      limit: request.limit,
      after_token: request.afterToken,
      order_by: request.orderBy,
      select_filters: request.selectFilters,
    };
    return this.t.send({
      action: l10n.t('list instances'),
      method: 'GET',
      path: '/api/v1/instances/',
      query,
      schema: InstancePageSchema,
      permission: 'instance_read',
      retry: 'read',
      ...o,
    });
  }

  /**
   * Every instance of the account, following pages; falls back to the older list where v1 is absent.
   * Records that could not be read are counted (`unreadableOf(list)`) and logged once.
   */
  async list(o: RequestOptions = {}): Promise<Instance[]> {
    return this.reported(await this.readAll(o));
  }

  private async readAll(o: RequestOptions): Promise<Instance[]> {
    if (!this.v1Missing) {
      try {
        const all: Instance[] = [];
        const reports: ReturnType<typeof unreadableOf>[] = [];
        let afterToken: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const res = await this.listPage({ limit: 25, afterToken, orderBy: [{ col: 'id', dir: 'asc' }] }, o);
          all.push(...res.instances);
          reports.push(unreadableOf(res.instances));
          if (!res.next_token || res.instances.length === 0) break;
          afterToken = res.next_token;
        }
        return withUnreadable(all, mergeUnreadable(reports));
      } catch (error) {
        if (!(error instanceof ApiError && error.kind === 'not_found')) throw error;
        this.v1Missing = true;
      }
    }
    return this.listV0(o);
  }

  /**
   * Every instance in one request, whatever their number: the older list endpoint, which the
   * service still serves. The poller uses it to keep to one request per interval; where it is gone,
   * this falls back to the paged list.
   */
  async listInOneRequest(o: RequestOptions = {}): Promise<Instance[]> {
    if (!this.v0Missing) {
      try {
        return this.reported(await this.listV0(o));
      } catch (error) {
        if (!(error instanceof ApiError && error.kind === 'not_found')) throw error;
        this.v0Missing = true;
      }
    }
    return this.list(o);
  }

  /** Logs what a list could not read, once per distinct report (the poller repeats the list). */
  private reported(list: Instance[]): Instance[] {
    logUnreadable(this.t.logger, l10n.t('list instances'), list);
    return list;
  }

  /** One instance; a `not_found` error when it does not exist (any more) or is not this account's. */
  async show(id: number, o: RequestOptions = {}): Promise<Instance> {
    const call = { action: l10n.t('show instance {0}', id), method: 'GET', path: `/api/v0/instances/${id}/` } as const;
    const instance = await this.t.send({
      ...call,
      query: { owner: 'me' },
      schema: ShowInstanceSchema,
      permission: 'instance_read',
      retry: 'read',
      ...o,
    });
    if (!instance)
      throw new ApiError({
        ...call,
        kind: 'not_found',
        status: 200,
        serverMessage: l10n.t('instance {0} does not exist or was destroyed', id),
      });
    return instance;
  }

  /** Resumes a stopped instance; billing for the GPU starts again once it runs. */
  start(id: number, o: RequestOptions = {}): Promise<void> {
    return this.setState(id, 'running', l10n.t('start instance {0}', id), o);
  }

  /** Stops compute billing; disk storage is still billed until the instance is destroyed. */
  stop(id: number, o: RequestOptions = {}): Promise<void> {
    return this.setState(id, 'stopped', l10n.t('stop instance {0}', id), o);
  }

  async setLabel(id: number, label: string, o: RequestOptions = {}): Promise<void> {
    const action = l10n.t('label instance {0}', id);
    const path = `/api/v0/instances/${id}/`;
    if (label.length > LABEL_MAX_CHARS)
      throw new ApiError({
        kind: 'bad_request',
        action,
        method: 'PUT',
        path,
        serverMessage: l10n.t('a label may have at most {0} characters', LABEL_MAX_CHARS),
      });
    return this.t.send({ action, method: 'PUT', path, body: { label }, schema: anyOk, permission: 'instance_write', retry: 'read', ...o });
  }

  /**
   * Sets an interruptible instance's bid, $/hour for its GPU part. The same bid twice is harmless, so
   * a lost answer is retried like a read; when no answer is seen at all, the caller reads the
   * instance again (core/instances/outbid.ts) before saying what happened.
   */
  async changeBid(id: number, price: number, o: RequestOptions = {}): Promise<void> {
    const action = l10n.t('change the bid of instance {0}', id);
    const path = `/api/v0/instances/bid_price/${id}/`;
    if (!(price >= BID_MIN && price <= CHANGE_BID_MAX))
      throw new ApiError({
        kind: 'bad_request',
        action,
        method: 'PUT',
        path,
        serverMessage: l10n.t('a bid must be between ${0} and ${1} per hour', BID_MIN, CHANGE_BID_MAX),
      });
    return this.t.send({
      action,
      method: 'PUT',
      path,
      body: { client_id: 'me', price },
      schema: anyOk,
      permission: 'instance_write',
      retry: 'read',
      ...o,
    });
  }

  reboot(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('reboot instance {0}', id),
      method: 'PUT',
      path: `/api/v0/instances/reboot/${id}/`,
      schema: anyOk,
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
  }

  /**
   * Ends all billing and deletes the instance and its disk. Destroying twice is harmless (the second
   * answers not found), so a lost answer or a gateway error is retried like a read.
   */
  destroy(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('destroy instance {0}', id),
      method: 'DELETE',
      path: `/api/v0/instances/${id}/`,
      schema: anyOk,
      permission: 'instance_write',
      retry: 'read',
      ...o,
    });
  }

  /**
   * The container's log. The service writes it to a URL of its own (no key is sent there), which is
   * polled until it exists.
   */
  async logs(
    id: number,
    request: { tail?: number; filter?: string } = {},
    o: RequestOptions & { attempts?: number; intervalMs?: number } = {},
  ): Promise<string> {
    const body: Record<string, string> = { tail: String(request.tail ?? 1000) };
    if (request.filter) body['filter'] = request.filter;
    const { result_url } = await this.t.send({
      action: l10n.t('request the log of instance {0}', id),
      method: 'PUT',
      path: `/api/v0/instances/request_logs/${id}/`,
      body,
      schema: LogRequestSchema,
      permission: 'instance_read',
      readOnly: true,
      retry: 'write',
      ...o,
    });
    const attempts = o.attempts ?? 30;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.t.send({
          action: l10n.t('read the log of instance {0}', id),
          method: 'GET',
          path: '',
          absoluteUrl: result_url,
          responseType: 'text',
          schema: z.string(),
          permission: null,
          retry: 'read',
          signal: o.signal,
        });
      } catch (error) {
        const notYet = error instanceof ApiError && (error.kind === 'not_found' || error.kind === 'forbidden');
        if (!notYet || attempt >= attempts) throw error;
        await this.t.wait(o.intervalMs ?? 500, o.signal);
      }
    }
  }

  private async listV0(o: RequestOptions): Promise<Instance[]> {
    const res = await this.t.send({
      action: l10n.t('list instances'),
      method: 'GET',
      path: '/api/v0/instances/',
      query: { owner: 'me' },
      schema: V0ListSchema,
      // The poller asks for it every few seconds: records unchanged since the last answer are not read again.
      quickRead: (body) => {
        const read = this.reuse.read(body);
        return read && { data: { instances: read.list }, rest: read.rest };
      },
      permission: 'instance_read',
      retry: 'read',
      ...o,
    });
    return res.instances;
  }

  private setState(id: number, state: 'running' | 'stopped', action: string, o: RequestOptions): Promise<void> {
    return this.t.send({
      action,
      method: 'PUT',
      path: `/api/v0/instances/${id}/`,
      body: { state },
      schema: anyOk,
      permission: 'instance_write',
      retry: 'read',
      ...o,
    });
  }
}
