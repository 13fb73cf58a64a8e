/**
 * What the service says about instances, as tolerant zod schemas: a rented machine's record, the
 * list's pages, and the answers to a rent, a show and a log request. The calls are in instances.ts.
 */
import * as z from 'zod';
import { nullableString, optBool, optInt, optNumber, optPort, optString, optTime, recordId, tolerantArray } from './fields';

/** `{"22/tcp": [{HostIp, HostPort}]}`; an odd entry becomes null, an odd map undefined, an odd port undefined. */
const PortMapSchema = z
  .record(
    z.string(),
    z
      .array(z.object({ HostIp: optString, HostPort: optPort }))
      .nullable()
      .catch(null),
  )
  .optional()
  .catch(undefined);

/**
 * A rented machine. `actual_status` is null while provisioning, then `loading`, `running`;
 * `stopped` after a stop; `exited`, `offline` and `unknown` are failures that never reach running.
 */
export const InstanceSchema = z.object({
  id: recordId,
  // Everything the extension offers for an instance follows from its status, so a status of
  // another type makes the record unreadable (listed by id), never a guess such as "provisioning".
  actual_status: nullableString,
  intended_status: optString,
  cur_state: optString,
  next_state: optString,
  status_msg: optString,
  label: optString,
  machine_id: optInt,
  host_id: optInt,
  image_uuid: optString,
  image_runtype: optString,
  /** The token of the instance's Jupyter server (a secret: never logged or shown). */
  jupyter_token: optString,
  template_hash_id: optString,
  template_name: optString,
  onstart: optString,
  ssh_host: optString,
  ssh_port: optPort,
  public_ipaddr: optString,
  ports: PortMapSchema,
  direct_port_count: optNumber,
  num_gpus: optNumber,
  gpu_name: optString,
  gpu_ram: optNumber,
  /** MB across all the instance's GPUs. */
  gpu_totalram: optNumber,
  gpu_util: optNumber,
  gpu_temp: optNumber,
  cpu_util: optNumber,
  cpu_cores_effective: optNumber,
  cpu_ram: optNumber,
  disk_space: optNumber,
  disk_usage: optNumber,
  /** VRAM in use (GB in the service's records; core/instances/health.ts reads the unit). */
  vmem_usage: optNumber,
  start_date: optNumber,
  /** The contract's end, epoch seconds: the host may stop renting the machine after it (a price increase starts then). */
  end_date: optNumber,
  dph_base: optNumber,
  dph_total: optNumber,
  storage_cost: optNumber,
  storage_total_cost: optNumber,
  inet_up_cost: optNumber,
  inet_down_cost: optNumber,
  /** The machine's download speed as the service measured it, Mbit/s (the health check holds the machine to it). */
  inet_down: optNumber,
  is_bid: optBool,
  /** The machine's current minimum bid, $/hour: an interruptible instance bidding less is stopped. */
  min_bid: optNumber,
  geolocation: optString,
  reliability2: optNumber,
  verification: optString,
  cuda_max_good: optNumber,
  driver_version: optString,
  /** The offer's PCIe generation and lanes per GPU (what the health check holds the machine to). */
  pci_gen: optNumber,
  gpu_lanes: optNumber,
  created_at: optTime,
});
/**
 * Fields the service works out from its clock for every answer, to the millisecond: the schema
 * leaves them out (the start date says the same, and stays put), so that a record that did not
 * change reads as unchanged (see listReuse.ts).
 */
export const INSTANCE_CLOCK_FIELDS = ['duration', 'uptime_mins', 'client_run_time', 'host_run_time'] as const;

/**
 * `unreadable` marks a stand-in for a record the list could not read beyond its id: it is listed
 * (so it can be destroyed) with every other field unknown. The service never sets it.
 */
export type Instance = z.output<typeof InstanceSchema> & { readonly unreadable?: true };

/** The stand-in for an instance the list could read only the id of: status unknown (null). */
export function unreadableInstance(id: number): Instance {
  return { id, actual_status: null, unreadable: true };
}

/** The account's instances, one odd record costing only itself (see tolerantArray). */
export const InstanceListSchema = tolerantArray(InstanceSchema, { byId: unreadableInstance });

export const CreatedInstanceSchema = z
  .object({ new_contract: z.int(), instance_api_key: optString })
  .transform((v) => ({ instanceId: v.new_contract, instanceApiKey: v.instance_api_key }));
export type CreatedInstance = z.output<typeof CreatedInstanceSchema>;

/** Show returns `{"instances": record}`; a missing instance comes back as null (some versions: a list). */
export const ShowInstanceSchema = z
  .object({ instances: z.union([InstanceSchema, z.array(InstanceSchema)]).nullish() })
  .transform((v) => (Array.isArray(v.instances) ? (v.instances[0] ?? null) : (v.instances ?? null)));

export const InstancePageSchema = z.object({
  instances: InstanceListSchema,
  next_token: z.string().nullish().catch(undefined),
  total_instances: optNumber,
});
export type InstancePage = z.output<typeof InstancePageSchema>;

export const LogRequestSchema = z.object({ result_url: z.url() });
