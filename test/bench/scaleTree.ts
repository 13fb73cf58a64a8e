// The Instances view's tree as src/ui/views/instancesView.ts builds it, with the same core calls,
// for the scale bench (the view itself needs VS Code): the root's rows after each poll, then the
// children VS Code asks of every expanded row (a cluster's nodes, an instance's jobs).
import type { Overlay } from '../../src/core/api/clusters';
import type { Instance } from '../../src/core/api/instances';
import { unreadableOf } from '../../src/core/api/unreadable';
import { groupClusters, type ClusterGroup } from '../../src/core/instances/cluster';
import { OverlayDirectory } from '../../src/core/instances/clusterCache';
import { presentCluster, type ClusterPresentation } from '../../src/core/instances/clusterPresent';
import { viewSummary, type ViewSummary } from '../../src/core/instances/many';
import type { InstanceSnapshot } from '../../src/core/instances/poller';
import type { InstancePresentation } from '../../src/core/instances/present';
import { PresentationCache } from '../../src/core/instances/presentCache';
import { presentJobRow, type JobRow } from '../../src/core/jobs/rows';

interface Row {
  instance: Instance;
  p: InstancePresentation;
  hasJobs: boolean;
}

export interface TreeDeps {
  overlays: () => Promise<readonly Overlay[]>;
  costOf: (id: number) => number | undefined;
  hasJobs: (id: number) => boolean;
  jobRows: (id: number) => JobRow[];
}

export class InstanceTreeModel {
  private readonly directory = new OverlayDirectory();
  private readonly rows = new PresentationCache();
  items: Row[] = [];
  itemsById = new Map<number, Row>();
  clusters: Array<{ cluster: ClusterGroup; p: ClusterPresentation }> = [];

  constructor(private readonly deps: TreeDeps) {}

  header(instances: readonly Instance[]): ViewSummary {
    return viewSummary(instances);
  }

  /** The rows VS Code reads after a change event; returns how many. */
  async read(snapshot: InstanceSnapshot): Promise<number> {
    const instances = snapshot.instances;
    const known = await this.directory.forCycle(snapshot, this.deps.overlays);
    const grouping = groupClusters(instances, known.overlays);
    const shown = (i: Instance) => i.actual_status !== 'destroyed';
    const plain = grouping.plain.filter(shown).map((i) => this.itemOf(i));
    this.clusters = grouping.clusters.map((cluster) => ({ cluster, p: presentCluster(cluster) }));
    this.items = [...grouping.clusters.flatMap((c) => c.nodes.filter(shown).map((i) => this.itemOf(i))), ...plain];
    this.itemsById = new Map();
    for (const item of this.items) this.itemsById.set(item.instance.id, item);
    this.rows.retain(instances);
    unreadableOf(instances);
    let rows = this.clusters.length + plain.length;
    for (const { cluster } of this.clusters) {
      const nodes = cluster.nodes.map((i) => this.itemsById.get(i.id) ?? this.itemOf(i));
      rows += nodes.length + cluster.missing.length;
    }
    for (const item of this.items) if (item.hasJobs) rows += this.deps.jobRows(item.instance.id).map((r) => presentJobRow(r)).length;
    return rows;
  }

  private itemOf(i: Instance): Row {
    return {
      instance: i,
      p: this.rows.present(i, { nowMs: Date.now(), costSoFar: this.deps.costOf(i.id) }),
      hasJobs: this.deps.hasJobs(i.id),
    };
  }
}
