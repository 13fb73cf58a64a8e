/**
 * Clusters and overlay networks. A cluster is the catalogue's machines that share a `cluster_id`
 * (one physical LAN). An overlay is an account's private network over one cluster: instances on
 * the cluster's machines join it at rent (`-n NAME` in the create's env) or later
 * (`PUT /api/v0/overlay/`), and leave it when destroyed. Inside a node the overlay is `eth0`, with
 * the address `overlayOf` gives: `10.77.<n>.<k>` in `internal_subnet` `10.77.<n>.0/24`, k = 1, 2,
 * ... in join order (a leaver's number is reused by the next to join). The refusals here are the
 * simulator's wording: the service's CLI only prints `msg`.
 */
import type { Offer } from './catalogue';
import type { InstanceState, Ms, OverlayRecord, StoreData } from './model';
import { fail } from './router';

/** Overlay names, as the service's CLI documents them. */
export const OVERLAY_NAME = /^[a-z0-9-]+$/;
/** The block overlay subnets are cut from: `10.77.<n>.0/24`, n = 0..255. */
const OVERLAY_BLOCK = '10.77';
const SUBNETS = 256;
/** Hosts of a /24: .1 to .254. */
const MAX_MEMBERS = 254;

/** Where an instance sits on its overlay: what `eth0` shows inside it. */
export interface OverlayAddress {
  overlayId: number;
  name: string;
  clusterId: number;
  /** `internal_subnet`, e.g. `10.77.0.0/24`. */
  subnet: string;
  /** e.g. `10.77.0.1`. */
  address: string;
  prefixLength: number;
  /** The host number in the subnet: 1 for the first to join. */
  index: number;
}

export function overlays(data: StoreData): OverlayRecord[] {
  return (data.overlays ??= []);
}

export function subnetOf(overlay: OverlayRecord): string {
  return `${OVERLAY_BLOCK}.${overlay.subnet}.0/24`;
}

/** The overlay as `GET /api/v0/overlay/` lists it (the fields the service's CLI reads). */
export function overlayWire(overlay: OverlayRecord): Record<string, unknown> {
  return {
    overlay_id: overlay.id,
    name: overlay.name,
    internal_subnet: subnetOf(overlay),
    cluster_id: overlay.clusterId,
    instances: overlay.members.map((m) => m.instanceId),
  };
}

/** The account's overlay called `name`, or the 404 for it. */
export function overlayNamed(data: StoreData, accountId: number, name: string): OverlayRecord {
  const found = overlays(data).find((o) => o.accountId === accountId && o.name === name);
  if (!found) throw fail(404, 'no_such_overlay', `No overlay network named '${name}'. Create it first with POST /api/v0/overlay/.`);
  return found;
}

/** Makes an overlay over `clusterId`, which the caller has checked to exist. */
export function createOverlay(
  data: StoreData,
  o: { accountId: number; name: string; clusterId: number; id: number; now: Ms },
): OverlayRecord {
  if (!OVERLAY_NAME.test(o.name))
    throw fail(400, 'invalid_name', `Overlay name '${o.name}' is not valid: use lowercase letters, digits and '-' only.`);
  const all = overlays(data);
  if (all.some((x) => x.accountId === o.accountId && x.name === o.name))
    throw fail(400, 'overlay_exists', `An overlay network named '${o.name}' already exists; choose another name or delete it first.`);
  const used = new Set(all.map((x) => x.subnet));
  const subnet = Array.from({ length: SUBNETS }, (_, n) => n).find((n) => !used.has(n));
  if (subnet === undefined) throw fail(400, 'no_subnet', 'No overlay subnet is free; delete an overlay network first.');
  const overlay: OverlayRecord = {
    id: o.id,
    accountId: o.accountId,
    name: o.name,
    clusterId: o.clusterId,
    subnet,
    createdAt: o.now,
    members: [],
  };
  all.push(overlay);
  return overlay;
}

/**
 * Refuses, before anything is made, an instance on `offer`'s machine joining `overlay`: a machine
 * outside the overlay's cluster, or a full subnet.
 */
export function checkJoin(overlay: OverlayRecord, offer: Offer, what: string): void {
  if (offer.cluster_id !== overlay.clusterId)
    throw fail(
      400,
      'wrong_cluster',
      `${what} is on machine ${offer.machine_id}, which is not in cluster ${overlay.clusterId} of overlay network '${overlay.name}'.`,
    );
  if (overlay.members.length >= MAX_MEMBERS) throw fail(400, 'overlay_full', `Overlay network '${overlay.name}' is full.`);
}

/** The overlay an instance is in, if any. */
export function overlayHolding(data: StoreData, instanceId: number): OverlayRecord | undefined {
  return overlays(data).find((o) => o.members.some((m) => m.instanceId === instanceId));
}

/** Adds a checked instance to the overlay with the lowest free host number. */
export function join(overlay: OverlayRecord, inst: InstanceState): void {
  if (overlay.members.some((m) => m.instanceId === inst.id)) return;
  const taken = new Set(overlay.members.map((m) => m.host));
  let host = 1;
  while (taken.has(host)) host += 1;
  overlay.members.push({ instanceId: inst.id, host });
}

/** A destroyed instance leaves its overlay. Returns whether it was in one. */
export function leave(data: StoreData, instanceId: number): boolean {
  const overlay = overlayHolding(data, instanceId);
  if (!overlay) return false;
  overlay.members = overlay.members.filter((m) => m.instanceId !== instanceId);
  return true;
}

/** Deletes an overlay; its members stay rented and leave it (the CLI: "removes all of its associated instances"). */
export function deleteOverlay(data: StoreData, overlay: OverlayRecord): void {
  data.overlays = overlays(data).filter((o) => o !== overlay);
}

/** Where the instance sits on its overlay, or undefined when it is in none. */
export function overlayOf(data: StoreData, instanceId: number): OverlayAddress | undefined {
  const overlay = overlayHolding(data, instanceId);
  const member = overlay?.members.find((m) => m.instanceId === instanceId);
  if (!overlay || !member) return undefined;
  return {
    overlayId: overlay.id,
    name: overlay.name,
    clusterId: overlay.clusterId,
    subnet: subnetOf(overlay),
    address: `${OVERLAY_BLOCK}.${overlay.subnet}.${member.host}`,
    prefixLength: 24,
    index: member.host,
  };
}

/** The catalogue's machines of a cluster (one offer each), by machine id. */
export function clusterMachines(offers: readonly Offer[], clusterId: number): Offer[] {
  const byMachine = new Map<number, Offer>();
  for (const o of offers) if (o.cluster_id === clusterId && !byMachine.has(o.machine_id)) byMachine.set(o.machine_id, o);
  return [...byMachine.values()].sort((a, b) => a.machine_id - b.machine_id);
}

/** A cluster's own LAN (not the overlay), derived from its id: `172.<16..31>.<x>.0/24`. */
function lanOf(clusterId: number): { subnet: string; host: (k: number) => string } {
  const prefix = `172.${16 + ((clusterId >> 8) % 16)}.${clusterId % 256}`;
  return { subnet: `${prefix}.0/24`, host: (k) => `${prefix}.${k}` };
}

/**
 * `GET /api/v0/clusters/`: the clusters the account rents in (those holding its instances), in
 * the shape the service's CLI reads: `{clusters: {"<id>": {subnet, nodes: [{machine_id,
 * is_cluster_manager, local_ip}]}}}`; every machine of the cluster is a node, the lowest machine
 * id its manager.
 */
export function clustersWire(offers: readonly Offer[], offerIds: readonly number[]): Record<string, unknown> {
  const byId = new Map(offers.map((o) => [o.id, o]));
  const ids = [...new Set(offerIds.map((id) => byId.get(id)?.cluster_id).filter((c): c is number => typeof c === 'number'))].sort(
    (a, b) => a - b,
  );
  const clusters: Record<string, unknown> = {};
  for (const id of ids) {
    const lan = lanOf(id);
    const nodes = clusterMachines(offers, id).map((o, k) => ({
      machine_id: o.machine_id,
      is_cluster_manager: k === 0,
      local_ip: lan.host(k + 1),
    }));
    clusters[String(id)] = { subnet: lan.subnet, nodes };
  }
  return clusters;
}
