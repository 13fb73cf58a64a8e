import * as z from 'zod';
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

  deleteWorkerGroup(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `delete worker group ${id}`, method: 'DELETE', path: `/api/v0/workergroups/${id}/`, body: { client_id: 'me', autojob_id: id }, schema: anyOk, permission: 'misc', retry: 'write', ...o });
  }
}
