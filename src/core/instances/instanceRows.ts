/**
 * The Instances view's rows, built from each poll's list: the clusters (instances grouped by their
 * overlay network), their nodes, then the plain instances. A row is made again only when its
 * record, its presentation (see PresentationCache) or whether it has jobs changed; otherwise the
 * row object of the last poll is handed back. An account with thousands of instances changes a few
 * between polls (the list hands back unchanged records as the same objects: api/listReuse.ts), so
 * a poll makes a few rows instead of thousands. The view (ui/views/instancesView.ts) supplies how a
 * row is made; `npm run bench` ("Scale") measures this same code with plain objects.
 */
import type { Overlay } from '../api/clusters';
import type { Instance } from '../api/instances';
import { groupClusters, type ClusterGroup } from './cluster';
import type { InstancePresentation } from './present';
import { PresentationCache } from './presentCache';

export interface RowContext {
  nowMs: number;
  /** Dollars billed so far, when known. */
  costOf(id: number): number | undefined;
  hasJobs(id: number): boolean;
}

export interface RootRows<R> {
  clusters: ClusterGroup[];
  /** Every instance row shown: the clusters' nodes in rank order, then the plain instances. */
  items: R[];
  /** The instances in no cluster. */
  plain: R[];
}

export type MakeRow<R> = (instance: Instance, p: InstancePresentation, hasJobs: boolean) => R;

interface Made<R> {
  instance: Instance;
  p: InstancePresentation;
  hasJobs: boolean;
  row: R;
}

/** A destroyed instance may still be listed for a moment; it is not shown. */
const shown = (i: Instance) => i.actual_status !== 'destroyed';

export class InstanceRows<R> {
  private readonly presentations = new PresentationCache();
  private made = new Map<number, Made<R>>();

  constructor(private readonly make: MakeRow<R>) {}

  /** The rows of this list, grouped by these overlays. */
  build(instances: readonly Instance[], overlays: readonly Overlay[], c: RowContext): RootRows<R> {
    const grouping = groupClusters(instances, overlays);
    const next = new Map<number, Made<R>>();
    const rowOf = (i: Instance) => {
      const made = this.madeFor(i, c);
      next.set(i.id, made);
      return made.row;
    };
    const plain = grouping.plain.filter(shown).map(rowOf);
    const items = [...grouping.clusters.flatMap((g) => g.nodes.filter(shown).map(rowOf)), ...plain];
    this.made = next;
    this.presentations.retain(instances);
    return { clusters: grouping.clusters, items, plain };
  }

  /** The row `build` last made for this instance (a cluster's node), or one made now for an instance it did not show. */
  rowOf(instance: Instance, c: RowContext): R {
    const made = this.made.get(instance.id);
    return made && made.instance === instance ? made.row : this.madeFor(instance, c).row;
  }

  /** Forgets every row (another account, signed out). */
  clear(): void {
    this.made.clear();
    this.presentations.clear();
  }

  private madeFor(i: Instance, c: RowContext): Made<R> {
    const p = this.presentations.present(i, { nowMs: c.nowMs, costSoFar: c.costOf(i.id) });
    const hasJobs = c.hasJobs(i.id);
    const before = this.made.get(i.id);
    if (before && before.instance === i && before.p === p && before.hasJobs === hasJobs) return before;
    return { instance: i, p, hasJobs, row: this.make(i, p, hasJobs) };
  }
}
