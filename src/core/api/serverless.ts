import * as z from 'zod';
import { anyOk, optInt, optNumber, optString, optTime, type RequestOptions } from './fields';
import { ApiError } from './errors';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/**
 * A serverless endpoint: a named pool whose worker groups the service scales between limits.
 * `target_util` is a fraction; `cold_mult` is the cold-capacity target as a multiple of hot;
 * times are in seconds. The endpoint's routing key is deliberately not kept.
 */
export const EndpointSchema = z.object({
  id: z.int(),
  endpoint_name: z.string(),
  endpoint_state: optString,
  min_load: optNumber,
  min_cold_load: optNumber,
  target_util: optNumber,
  cold_mult: optNumber,
  cold_workers: optNumber,
  max_workers: optNumber,
  max_queue_time: optNumber,
  target_queue_time: optNumber,
  inactivity_timeout: optNumber,
  created_at: optTime,
});
export type Endpoint = z.output<typeof EndpointSchema>;

export interface EndpointFields {
  endpoint_name: string;
  min_load?: number;
  min_cold_load?: number;
  target_util?: number;
  cold_mult?: number;
  cold_workers?: number;
  max_workers?: number;
  max_queue_time?: number;
  target_queue_time?: number;
  inactivity_timeout?: number;
  endpoint_state?: 'active' | 'suspended' | 'stopped';
}

/** A worker group: which template runs on which offers, for one endpoint. `gpu_ram` in GB. */
export const WorkerGroupSchema = z.object({
  id: z.int(),
  endpoint_id: optInt,
  endpoint_name: optString,
  template_hash: optString,
  template_id: optInt,
  launch_args: optString,
  min_load: optNumber,
  target_util: optNumber,
  cold_mult: optNumber,
  cold_workers: optNumber,
  max_workers: optNumber,
  test_workers: optNumber,
  gpu_ram: optNumber,
  created_at: optTime,
});
export type WorkerGroup = z.output<typeof WorkerGroupSchema>;

export interface WorkerGroupFields {
  endpoint_id?: number;
  endpoint_name?: string;
  template_hash?: string;
  template_id?: number;
  /** Offer query in the CLI language, e.g. `gpu_ram>=24 verified=true`. */
  search_params?: string;
  launch_args?: string;
  gpu_ram?: number;
  test_workers?: number;
  min_load?: number;
  target_util?: number;
  cold_mult?: number;
  cold_workers?: number;
  max_workers?: number;
}

/** One instance serving an endpoint, as the autoscaler reports it. `cur_load` and `perf` are in the endpoint's load units. */
export const ServerlessWorkerSchema = z.object({
  id: z.int(),
  status: optString,
  url: optString,
  created_at: optTime,
  cur_load: optNumber,
  perf: optNumber,
  reqs_working: optNumber,
});
export type ServerlessWorker = z.output<typeof ServerlessWorkerSchema>;

/**
 * The autoscaler's answers. An unknown id or a refused key comes back as a bare JSON string (see
 * `stringAnswer` in the calls below). Logs come as `logs`, or by level as the CLI reads them, of
 * which `info1` is its default.
 */
const WorkersAnswer = z
  .object({ workers: z.array(ServerlessWorkerSchema).nullish() })
  .transform((v): ServerlessWorker[] => v.workers ?? []);
const LogsAnswer = z
  .object({ logs: z.string().nullish(), info1: z.string().nullish(), info0: z.string().nullish() })
  .transform((v) => v.logs ?? v.info1 ?? v.info0 ?? '');

/** Which endpoint's logs to read. The service finds it by name; the CLI sends the id too. */
export interface EndpointRef {
  id: number;
  name: string;
  /**
   * The endpoint's own routing key, when the caller has it: it then goes in the body as `api_key`
   * instead of the account key (which the official CLI sends there, and which is sent otherwise).
   */
  apiKey?: string;
}

/**
 * The two names of the worker-group log route: the official CLI posts to the first, the OpenAPI
 * documents the second. The CLI's is tried first (its requests are what production accepts).
 */
export const WORKER_GROUP_LOG_PATHS = ['/get_autogroup_logs/', '/get_workergroup_logs/'] as const;
export type WorkerGroupLogPath = (typeof WORKER_GROUP_LOG_PATHS)[number];

/** The service's default is 10,000 lines; an editor tab does not need that many. */
export const DEFAULT_LOG_TAIL = 1000;

const results = <T extends z.ZodType>(item: T) =>
  z.object({ results: z.array(item).nullish() }).transform((v): z.output<T>[] => v.results ?? []);

export class ServerlessApi {
  /** The worker-group log route that last answered (anything but a 404), tried first next time. */
  private groupLogPath: WorkerGroupLogPath = WORKER_GROUP_LOG_PATHS[0];

  constructor(private readonly t: Transport) {}

  /** Which worker-group log route this client uses now; see WORKER_GROUP_LOG_PATHS. */
  get workerGroupLogPath(): WorkerGroupLogPath {
    return this.groupLogPath;
  }

  listEndpoints(o: RequestOptions = {}): Promise<Endpoint[]> {
    return this.t.send({
      action: l10n.t('list serverless endpoints'),
      method: 'GET',
      path: '/api/v0/endptjobs/',
      schema: results(EndpointSchema),
      permission: 'misc',
      retry: 'read',
      ...o,
    });
  }

  async createEndpoint(fields: EndpointFields, o: RequestOptions = {}): Promise<number> {
    const schema = z.object({ result: z.int() });
    const res = await this.t.send({
      action: l10n.t('create endpoint "{0}"', fields.endpoint_name),
      method: 'POST',
      path: '/api/v0/endptjobs/',
      body: { client_id: 'me', autoscaler_instance: 'prod', ...fields },
      schema,
      permission: 'misc',
      retry: 'write',
      ...o,
    });
    return res.result;
  }

  updateEndpoint(id: number, fields: Partial<EndpointFields>, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('update endpoint {0}', id),
      method: 'PUT',
      path: `/api/v0/endptjobs/${id}/`,
      body: { client_id: 'me', endptjob_id: id, ...fields },
      schema: anyOk,
      permission: 'misc',
      retry: 'read',
      ...o,
    });
  }

  /** Deletes the endpoint and its worker groups. */
  deleteEndpoint(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('delete endpoint {0}', id),
      method: 'DELETE',
      path: `/api/v0/endptjobs/${id}/`,
      body: { client_id: 'me', endptjob_id: id },
      schema: anyOk,
      permission: 'misc',
      retry: 'write',
      ...o,
    });
  }

  listWorkerGroups(o: RequestOptions = {}): Promise<WorkerGroup[]> {
    return this.t.send({
      action: l10n.t('list worker groups'),
      method: 'GET',
      path: '/api/v0/workergroups/',
      schema: results(WorkerGroupSchema),
      permission: 'misc',
      retry: 'read',
      ...o,
    });
  }

  async createWorkerGroup(fields: WorkerGroupFields, o: RequestOptions = {}): Promise<number> {
    const schema = z.object({ id: z.int() });
    const res = await this.t.send({
      action: l10n.t('create a worker group'),
      method: 'POST',
      path: '/api/v0/workergroups/',
      body: { client_id: 'me', autoscaler_instance: 'prod', ...fields },
      schema,
      permission: 'misc',
      retry: 'write',
      ...o,
    });
    return res.id;
  }

  updateWorkerGroup(id: number, fields: Partial<WorkerGroupFields>, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('update worker group {0}', id),
      method: 'PUT',
      path: `/api/v0/workergroups/${id}/`,
      body: { client_id: 'me', autojob_id: id, ...fields },
      schema: anyOk,
      permission: 'misc',
      retry: 'read',
      ...o,
    });
  }

  /** The workers of all the endpoint's groups. */
  async endpointWorkers(id: number, o: RequestOptions = {}): Promise<ServerlessWorker[]> {
    const key = await this.bodyKey(o);
    return this.t.send({
      ...autoscaler(l10n.t('list the workers of endpoint {0}', id), '/get_endpoint_workers/'),
      body: { id, api_key: key },
      secrets: [key],
      schema: WorkersAnswer,
      ...o,
    });
  }

  async workerGroupWorkers(id: number, o: RequestOptions = {}): Promise<ServerlessWorker[]> {
    const key = await this.bodyKey(o);
    return this.t.send({
      ...autoscaler(l10n.t('list the workers of worker group {0}', id), '/get_workergroup_workers/'),
      body: { id, api_key: key },
      secrets: [key],
      schema: WorkersAnswer,
      ...o,
    });
  }

  /** The last `tail` lines of the endpoint's log (its groups' events, each naming its group). */
  async endpointLogs(endpoint: EndpointRef, tail = DEFAULT_LOG_TAIL, o: RequestOptions = {}): Promise<string> {
    const lines = checkTail(tail);
    const key = endpoint.apiKey ?? (await this.bodyKey(o));
    const body = { endpoint: endpoint.name, id: endpoint.id, tail: lines, api_key: key };
    const call = autoscaler(l10n.t('read the logs of endpoint "{0}"', endpoint.name), '/get_endpoint_logs/');
    return this.t.send({ ...call, body, secrets: [endpoint.apiKey, key], schema: LogsAnswer, ...o });
  }

  /**
   * The last `tail` lines of a worker group's log. The route has two names (see
   * WORKER_GROUP_LOG_PATHS): on a 404 the other is tried, and whichever answers is kept for the
   * next call. Only a real 404 counts: the autoscaler's "not found" for an unknown id is a 200.
   */
  async workerGroupLogs(id: number, tail = DEFAULT_LOG_TAIL, o: RequestOptions = {}): Promise<string> {
    const lines = checkTail(tail);
    const key = await this.bodyKey(o);
    const first = this.groupLogPath;
    const order = [first, ...WORKER_GROUP_LOG_PATHS.filter((p) => p !== first)];
    let missing: unknown;
    for (const path of order) {
      try {
        const logs = await this.t.send({
          ...autoscaler(l10n.t('read the logs of worker group {0}', id), path),
          body: { id, tail: lines, api_key: key },
          secrets: [key],
          schema: LogsAnswer,
          ...o,
        });
        this.groupLogPath = path;
        return logs;
      } catch (error) {
        if (!routeMissing(error)) {
          if (error instanceof ApiError && error.status !== undefined) this.groupLogPath = path;
          throw error;
        }
        this.t.logger.info(
          `POST ${path} answered 404; ${path === first && order.length > 1 ? 'trying the other name of the worker-group log route' : 'neither name of the route answered'}`,
        );
        missing ??= error;
      }
    }
    throw missing;
  }

  /** What goes in an autoscaler body as `api_key`: the key the call is made with, as the CLI sends it. */
  private async bodyKey(o: RequestOptions): Promise<string | undefined> {
    return o.apiKey ?? (await this.t.accountKey());
  }

  deleteWorkerGroup(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('delete worker group {0}', id),
      method: 'DELETE',
      path: `/api/v0/workergroups/${id}/`,
      body: { client_id: 'me', autojob_id: id },
      schema: anyOk,
      permission: 'misc',
      retry: 'write',
      ...o,
    });
  }
}

/**
 * The parts every autoscaler call shares: its own host, POST for reads (so `read` retries), the
 * permission of the other serverless calls, and a bare-string answer meaning "not found".
 */
function autoscaler(action: string, path: string) {
  return { action, method: 'POST', path, host: 'serverless', permission: 'misc', retry: 'read', stringAnswer: 'not_found' } as const;
}

/** A 404 from the server itself: the route is not there (an unknown id is a 200 with a string). */
function routeMissing(error: unknown): boolean {
  return error instanceof ApiError && error.kind === 'not_found' && error.status === 404;
}

/** The service wants at least one line; a fraction or zero is a caller's mistake, not a request. */
function checkTail(tail: number): number {
  if (!Number.isInteger(tail) || tail < 1)
    throw new RangeError(l10n.t('tail must be a whole number of lines, at least 1 (got {0}).', tail));
  return tail;
}
