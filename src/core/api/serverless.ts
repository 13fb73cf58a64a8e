import * as z from 'zod';
import { ApiError } from './errors';
import { anyOk, optInt, optNumber, optString, optTime, type RequestOptions } from './fields';
import type { Transport } from './transport';

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
 * The autoscaler's answers: an object, or (for an unknown id or a refused key) a bare JSON
 * string with its message. Logs come as `logs`, or by level (`info1` is the CLI's default).
 */
const WorkersAnswer = z.union([z.object({ workers: z.array(ServerlessWorkerSchema).nullish() }), z.string()]);
const LogsAnswer = z.union([z.object({ logs: z.string().nullish(), info1: z.string().nullish(), info0: z.string().nullish() }), z.string()]);

const results = <T extends z.ZodType>(item: T) =>
  z.object({ results: z.array(item).nullish() }).transform((v): z.output<T>[] => v.results ?? []);

export class ServerlessApi {
  constructor(private readonly t: Transport) {}

  listEndpoints(o: RequestOptions = {}): Promise<Endpoint[]> {
    return this.t.send({ action: 'list serverless endpoints', method: 'GET', path: '/api/v0/endptjobs/', schema: results(EndpointSchema), permission: 'misc', retry: 'read', ...o });
  }

  async createEndpoint(fields: EndpointFields, o: RequestOptions = {}): Promise<number> {
    const schema = z.object({ result: z.int() });
    const res = await this.t.send({ action: `create endpoint "${fields.endpoint_name}"`, method: 'POST', path: '/api/v0/endptjobs/', body: { client_id: 'me', autoscaler_instance: 'prod', ...fields }, schema, permission: 'misc', retry: 'write', ...o });
    return res.result;
  }

  updateEndpoint(id: number, fields: Partial<EndpointFields>, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `update endpoint ${id}`, method: 'PUT', path: `/api/v0/endptjobs/${id}/`, body: { client_id: 'me', endptjob_id: id, ...fields }, schema: anyOk, permission: 'misc', retry: 'read', ...o });
  }

  /** Deletes the endpoint and its worker groups. */
  deleteEndpoint(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `delete endpoint ${id}`, method: 'DELETE', path: `/api/v0/endptjobs/${id}/`, body: { client_id: 'me', endptjob_id: id }, schema: anyOk, permission: 'misc', retry: 'write', ...o });
  }

  listWorkerGroups(o: RequestOptions = {}): Promise<WorkerGroup[]> {
    return this.t.send({ action: 'list worker groups', method: 'GET', path: '/api/v0/workergroups/', schema: results(WorkerGroupSchema), permission: 'misc', retry: 'read', ...o });
  }

  async createWorkerGroup(fields: WorkerGroupFields, o: RequestOptions = {}): Promise<number> {
    const schema = z.object({ id: z.int() });
    const res = await this.t.send({ action: 'create a worker group', method: 'POST', path: '/api/v0/workergroups/', body: { client_id: 'me', autoscaler_instance: 'prod', ...fields }, schema, permission: 'misc', retry: 'write', ...o });
    return res.id;
  }

  updateWorkerGroup(id: number, fields: Partial<WorkerGroupFields>, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `update worker group ${id}`, method: 'PUT', path: `/api/v0/workergroups/${id}/`, body: { client_id: 'me', autojob_id: id, ...fields }, schema: anyOk, permission: 'misc', retry: 'read', ...o });
  }

  /** The workers of all the endpoint's groups. */
  async endpointWorkers(id: number, o: RequestOptions = {}): Promise<ServerlessWorker[]> {
    const call = { action: `list the workers of endpoint ${id}`, method: 'POST', path: '/get_endpoint_workers/' } as const;
    const res = await this.t.send({ ...call, host: 'serverless', body: { id }, schema: WorkersAnswer, permission: 'misc', retry: 'read', ...o });
    return typeof res === 'string' ? refused(call, res) : (res.workers ?? []);
  }

  async workerGroupWorkers(id: number, o: RequestOptions = {}): Promise<ServerlessWorker[]> {
    const call = { action: `list the workers of worker group ${id}`, method: 'POST', path: '/get_workergroup_workers/' } as const;
    const res = await this.t.send({ ...call, host: 'serverless', body: { id }, schema: WorkersAnswer, permission: 'misc', retry: 'read', ...o });
    return typeof res === 'string' ? refused(call, res) : (res.workers ?? []);
  }

  /** The last `tail` lines of the endpoint's log. The service finds it by name; the id goes along, as the CLI sends it. */
  async endpointLogs(endpoint: { id: number; name: string }, tail = 1000, o: RequestOptions = {}): Promise<string> {
    const call = { action: `read the logs of endpoint "${endpoint.name}"`, method: 'POST', path: '/get_endpoint_logs/' } as const;
    const res = await this.t.send({ ...call, host: 'serverless', body: { endpoint: endpoint.name, id: endpoint.id, tail }, schema: LogsAnswer, permission: 'misc', retry: 'read', ...o });
    return typeof res === 'string' ? refused(call, res) : (res.logs ?? res.info1 ?? res.info0 ?? '');
  }

  async workerGroupLogs(id: number, tail = 1000, o: RequestOptions = {}): Promise<string> {
    const call = { action: `read the logs of worker group ${id}`, method: 'POST', path: '/get_workergroup_logs/' } as const;
    const res = await this.t.send({ ...call, host: 'serverless', body: { id, tail }, schema: LogsAnswer, permission: 'misc', retry: 'read', ...o });
    return typeof res === 'string' ? refused(call, res) : (res.logs ?? res.info1 ?? res.info0 ?? '');
  }

  deleteWorkerGroup(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `delete worker group ${id}`, method: 'DELETE', path: `/api/v0/workergroups/${id}/`, body: { client_id: 'me', autojob_id: id }, schema: anyOk, permission: 'misc', retry: 'write', ...o });
  }
}

/** A 200 whose body is only a message: the autoscaler did not find what was asked for. */
function refused(call: { action: string; method: string; path: string }, message: string): never {
  // The message is the service's own; anything that looks like a key is taken out all the same.
  throw new ApiError({ ...call, kind: 'not_found', status: 200, serverMessage: message.replace(/[A-Za-z0-9_-]{32,}/g, '[redacted]').slice(0, 300) });
}
