import type { Overlay } from '../api/clusters';
import type { Instance } from '../api/instances';
import { l10n } from '../l10n';
import { visibleText } from '../text';
import { instancePhase } from './phase';
import { currentRate } from './rates';

/**
 * The account's instances as the Instances view shows them: those of one overlay network form a
 * cluster (one row, its nodes under it); the rest stay plain rows. Nothing is dropped: an instance
 * that no readable overlay claims is a plain row, and an id an overlay lists that the account's
 * list does not hold is named as missing.
 */
export interface ClusterGroup {
  overlayId: number;
  /** The overlay's name as the service sent it (`[a-z0-9-]`), when it sent one. */
  name: string | undefined;
  /** How the view and sentences name the cluster: the overlay's name, made safe to show. */
  label: string;
  clusterId: number | undefined;
  subnet: string | undefined;
  /** The account's instances in it, in rank order: by overlay address when known, then the `-node<k>` label a cluster rent gives, then id. */
  nodes: Instance[];
  /** Ids the overlay lists that the account's instance list does not hold (neither shown nor acted on). */
  missing: number[];
  /** The nodes' $/h in their phases now (running: all of it; stopped: the disk). */
  perHour: number;
  /** Whether some node's price is unknown, so `perHour` is a floor. */
  priceUnknown: boolean;
  /** Nodes running now. */
  running: number;
  /** Nodes in all: those shown and those missing. */
  size: number;
}

export interface Grouping {
  clusters: ClusterGroup[];
  /** Instances in no cluster, in the list's order (destroyed ones included, as the list had them). */
  plain: Instance[];
}

/**
 * Groups `instances` (the poller's snapshot) by `overlays`. `addresses` maps an instance id to its
 * overlay (eth0) address where it was read on the node. An overlay whose member list could not be
 * read groups nothing (its instances stay plain rows); an instance two overlays list joins the
 * first. A destroyed instance is no node (the overlay's list may lag behind) and is not missing.
 * Clusters come in name order.
 */
export function groupClusters(
  instances: readonly Instance[],
  overlays: readonly Overlay[],
  addresses: ReadonlyMap<number, string> = new Map(),
): Grouping {
  // On every poll over every instance: no pair per instance on the way to the map.
  const byId = new Map<number, Instance>();
  for (const i of instances) byId.set(i.id, i);
  const claimed = new Set<number>();
  const clusters: ClusterGroup[] = [];
  for (const overlay of overlays) {
    if (overlay.instances === undefined) continue;
    const nodes: Instance[] = [];
    const missing: number[] = [];
    for (const id of new Set(overlay.instances)) {
      if (claimed.has(id)) continue;
      const instance = byId.get(id);
      if (!instance) missing.push(id);
      else if (instancePhase(instance) !== 'gone') nodes.push(instance);
      claimed.add(id);
    }
    nodes.sort(byRank(addresses));
    missing.sort((a, b) => a - b);
    const rates = nodes.map((i) => currentRate(i));
    clusters.push({
      overlayId: overlay.overlay_id,
      name: overlay.name ?? undefined,
      label: overlay.name ? visibleText(overlay.name) : l10n.t('overlay {0}', overlay.overlay_id),
      clusterId: overlay.cluster_id ?? undefined,
      subnet: overlay.internal_subnet ?? undefined,
      nodes,
      missing,
      perHour: rates.reduce<number>((t, r) => t + (r ?? 0), 0),
      priceUnknown: rates.some((r) => r === undefined),
      running: nodes.filter((i) => instancePhase(i) === 'running').length,
      size: nodes.length + missing.length,
    });
  }
  clusters.sort((a, b) => a.label.localeCompare(b.label) || a.overlayId - b.overlayId);
  return { clusters, plain: instances.filter((i) => !claimed.has(i.id)) };
}

/** Rank order: overlay address (numerically) where known, then a cluster rent's `-node<k>` label, then id. */
function byRank(addresses: ReadonlyMap<number, string>): (a: Instance, b: Instance) => number {
  const key = (i: Instance): [number, number, number] => [
    ipv4Number(addresses.get(i.id)) ?? Infinity,
    nodeIndex(i.label) ?? Infinity,
    i.id,
  ];
  return (a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let k = 0; k < ka.length; k++) if (ka[k] !== kb[k]) return ka[k]! < kb[k]! ? -1 : 1;
    return 0;
  };
}

/** `10.0.0.2` as one number, so that .10 comes after .9; undefined for anything else (a prefix length is ignored). */
export function ipv4Number(address: string | undefined): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/\d{1,2})?$/.exec(address?.trim() ?? '');
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

/** `train-node3` → 3: the index a cluster rent gives each node's label; undefined for another label. */
export function nodeIndex(label: string | null | undefined): number | undefined {
  const m = /-node(\d{1,4})$/.exec(label ?? '');
  return m ? Number(m[1]) : undefined;
}

/** The cluster that holds an instance, if any. */
export function clusterOf(grouping: Pick<Grouping, 'clusters'>, instanceId: number): ClusterGroup | undefined {
  return grouping.clusters.find((c) => c.nodes.some((i) => i.id === instanceId));
}
