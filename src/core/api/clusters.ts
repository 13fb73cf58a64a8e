/**
 * Clusters and overlay networks. Machines of one physical cluster share a LAN (offers carry its
 * `cluster_id`); an overlay network gives the account's instances on one cluster a private network
 * on `eth0`. The routes are the service CLI's (vast-cli 1.5.2, `clusters.py`), not in the OpenAPI
 * file, so every answer is read tolerantly.
 *
 * A create, add or delete whose answer is not seen fails with `outcomeUnknown` (see `writeOutcome`):
 * the caller lists the overlays (`findOverlay`) before it tries again, never sends it twice blindly.
 */
import * as z from 'zod';
import { ApiError, writeOutcome } from './errors';
import { anyOk, intFrom, listOf, logUnreadable, optBool, optInt, optString, recordId, tolerantArray, type RequestOptions } from './fields';
import { overlayNameProblem } from './instanceRequests';
import type { Transport } from './transport';
import { MAX_REASONS, withUnreadable, type Unreadable } from './unreadable';
import { l10n } from '../l10n';

export { joinOverlayEnv, overlayJoinKey, overlayNameProblem, OVERLAY_NAME, type OverlayJoin } from './instanceRequests';

const OVERLAY_PATH = '/api/v0/overlay/';

/**
 * Instance ids: a list of ids (numbers or numeric text), null for none. Anything else, a missing
 * list, or a list with one odd member, is unknown (undefined): members are never guessed short.
 */
const instanceIds = z
  .unknown()
  .transform((value): number[] | undefined => {
    if (value === null) return [];
    if (!Array.isArray(value)) return undefined;
    const ids: number[] = [];
    for (const item of value) {
      const id = intFrom(item);
      if (id === undefined || id < 0) return undefined;
      ids.push(id);
    }
    return ids;
  })
  .optional();

/** `{overlay_id, name, internal_subnet, cluster_id, instances}`; an overlay without a usable id is left out and counted. */
export const OverlaySchema = z.object({
  overlay_id: recordId,
  name: optString,
  /** e.g. `10.0.0.0/24`: the addresses its members get on `eth0`. */
  internal_subnet: optString,
  cluster_id: optInt,
  /** Ids of the instances in it; undefined when the answer's list could not be read. */
  instances: instanceIds,
});
export type Overlay = z.output<typeof OverlaySchema>;

const OverlayListSchema = listOf(OverlaySchema, 'overlays');

/** What a create answers, as far as it says: the new overlay's id when it gives one. */
const OverlayCreatedSchema = z.union([
  z.object({ overlay_id: optInt, id: optInt }).transform((v) => ({ overlayId: v.overlay_id ?? v.id ?? undefined })),
  z.unknown().transform(() => ({ overlayId: undefined })),
]);

/** A cluster of the account, as far as a renter needs it. */
export interface Cluster {
  id: number;
  /** The machines in it, when the answer lists them. */
  machineIds?: number[];
  /** How many machines (nodes) it has: the listed nodes, or the count the answer gives. */
  nodeCount?: number;
  /** The machine that manages the cluster, when one is marked. */
  managerMachineId?: number;
  /** The cluster's LAN, e.g. `10.0.0.0/24`. */
  subnet?: string;
}

const ClusterNodeSchema = z.object({ machine_id: optInt, is_cluster_manager: optBool });
const ClusterRecordSchema = z.object({
  id: optInt,
  cluster_id: optInt,
  subnet: optString,
  node_count: optInt,
  nodes: tolerantArray(ClusterNodeSchema).catch([]),
  machine_ids: z.array(z.unknown()).nullish().catch(undefined),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One cluster from its record; `keyId` is the key it was listed under, when the answer is keyed by id. */
function readCluster(value: unknown, keyId: number | undefined): Cluster | 'object' | 'id' {
  const parsed = ClusterRecordSchema.safeParse(value);
  if (!parsed.success || !isRecord(value)) return 'object';
  const r = parsed.data;
  const id = r.id ?? r.cluster_id ?? keyId;
  if (id === undefined || id === null || id < 0) return 'id';
  const cluster: Cluster = { id };
  const listed = r.nodes.length > 0 ? r.nodes.map((n) => n.machine_id ?? undefined) : (r.machine_ids ?? []).map(intFrom);
  if (listed.length > 0 && listed.every((m): m is number => m !== undefined)) cluster.machineIds = listed;
  const count = r.nodes.length > 0 ? r.nodes.length : (r.node_count ?? cluster.machineIds?.length);
  if (count !== undefined && count !== null && count >= 0) cluster.nodeCount = count;
  const manager = r.nodes.find((n) => n.is_cluster_manager === true)?.machine_id;
  if (manager !== undefined && manager !== null) cluster.managerMachineId = manager;
  if (r.subnet) cluster.subnet = r.subnet;
  return cluster;
}

/**
 * The clusters answer is undocumented: read as `{clusters: …}` or bare, the clusters either a record
 * keyed by id (what the CLI reads) or a list of records with `id`. A cluster without a usable id is
 * left out and counted; a null or missing list is none.
 */
export const ClusterListSchema = z.unknown().transform((input, ctx): Cluster[] => {
  const inner = isRecord(input) && 'clusters' in input ? input['clusters'] : input;
  if (inner === null || inner === undefined) return [];
  if (!Array.isArray(inner) && !isRecord(inner)) {
    ctx.issues.push({ code: 'custom', message: l10n.t('expected a list or {{0}: [...]}', 'clusters'), input });
    return z.NEVER;
  }
  // A keyed record's keys are the service's text: the log names an entry by its position only.
  const entries: Array<[number | undefined, unknown]> = Array.isArray(inner)
    ? inner.map((v) => [undefined, v])
    : Object.entries(inner).map(([k, v]) => [intFrom(k), v]);
  const out: Cluster[] = [];
  const report: Unreadable = { count: 0, listedById: 0, dropped: 0, reasons: [] };
  for (const [index, [keyId, value]] of entries.entries()) {
    const read = readCluster(value, keyId);
    if (typeof read !== 'string') {
      out.push(read);
      continue;
    }
    report.count++;
    report.dropped++;
    if (report.reasons.length < MAX_REASONS)
      report.reasons.push(read === 'object' ? l10n.t('[{0}]: not an object', index) : l10n.t('[{0}]: no usable id', index));
  }
  return withUnreadable(out, report);
});

/** Which overlay a delete names: its id, or its name. */
export type OverlayRef = { overlayId: number } | { name: string };

/** Kept here too: the caller of a write names where it came from. */
export { writeOutcome };

export class ClustersApi {
  constructor(private readonly t: Transport) {}

  /** The account's clusters. Undocumented answer; clusters without a usable id are counted (`unreadableOf`) and logged. */
  async list(o: RequestOptions = {}): Promise<Cluster[]> {
    const clusters = await this.t.send({
      action: l10n.t('list clusters'),
      method: 'GET',
      path: '/api/v0/clusters/',
      schema: ClusterListSchema,
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('list clusters'), clusters);
    return clusters;
  }

  /** The account's overlay networks; one without a usable id is left out, counted and logged. */
  async overlays(o: RequestOptions = {}): Promise<Overlay[]> {
    const overlays = await this.t.send({
      action: l10n.t('list overlay networks'),
      method: 'GET',
      path: OVERLAY_PATH,
      schema: OverlayListSchema,
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('list overlay networks'), overlays);
    return overlays;
  }

  /** The overlay of that name, or undefined: how a caller learns what a create or delete with an unseen answer did. */
  async findOverlay(name: string, o: RequestOptions = {}): Promise<Overlay | undefined> {
    return (await this.overlays(o)).find((overlay) => overlay.name === name);
  }

  /**
   * Creates an overlay network on a cluster. Sent once: a lost answer is `outcomeUnknown` and the
   * caller looks for the name (`findOverlay`) before it tries again.
   */
  async createOverlay(request: { clusterId: number; name: string }, o: RequestOptions = {}): Promise<{ overlayId: number | undefined }> {
    const action = l10n.t('create the overlay network {0}', request.name);
    this.checkName(action, 'POST', request.name);
    return this.t.send({
      action,
      method: 'POST',
      path: OVERLAY_PATH,
      body: { cluster_id: request.clusterId, name: request.name },
      schema: OverlayCreatedSchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** Adds a running instance to an overlay network (a rent joins at create instead: `joinOverlayEnv`). */
  async addInstance(name: string, instanceId: number, o: RequestOptions = {}): Promise<void> {
    const action = l10n.t('add instance {0} to the overlay network {1}', instanceId, name);
    this.checkName(action, 'PUT', name);
    await this.t.send({
      action,
      method: 'PUT',
      path: OVERLAY_PATH,
      body: { name, instance_id: instanceId },
      schema: anyOk,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** Deletes an overlay network, by id or by name. */
  async deleteOverlay(ref: OverlayRef, o: RequestOptions = {}): Promise<void> {
    const byName = 'name' in ref;
    const action = l10n.t('delete the overlay network {0}', byName ? ref.name : ref.overlayId);
    if (byName) this.checkName(action, 'DELETE', ref.name);
    await this.t.send({
      action,
      method: 'DELETE',
      path: OVERLAY_PATH,
      body: byName ? { overlay_name: ref.name } : { overlay_id: ref.overlayId },
      schema: anyOk,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** A name the service would refuse is refused here, before anything is sent (so the outcome is known). */
  private checkName(action: string, method: 'POST' | 'PUT' | 'DELETE', name: string): void {
    const problem = overlayNameProblem(name);
    if (problem) throw new ApiError({ kind: 'bad_request', action, method, path: OVERLAY_PATH, serverMessage: problem });
  }
}
