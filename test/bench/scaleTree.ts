// The Instances view's tree for the scale bench, with the view's own core code (the view itself
// needs VS Code): the root's rows after each poll (core/instances/instanceRows.ts, rows as plain
// objects where the view makes TreeItems), the cluster rows' text, then the children VS Code asks
// of every expanded row (a cluster's nodes, an instance's jobs).
import type { Overlay } from '../../src/core/api/clusters';
import type { Instance } from '../../src/core/api/instances';
import { unreadableOf } from '../../src/core/api/unreadable';
import { OverlayDirectory } from '../../src/core/instances/clusterCache';
import { presentCluster } from '../../src/core/instances/clusterPresent';
import { InstanceRows } from '../../src/core/instances/instanceRows';
import { viewSummary, type ViewSummary } from '../../src/core/instances/many';
import type { InstanceSnapshot } from '../../src/core/instances/poller';
import type { InstancePresentation } from '../../src/core/instances/present';
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
  private readonly rows = new InstanceRows<Row>((instance, p, hasJobs) => ({ instance, p, hasJobs }));

  constructor(private readonly deps: TreeDeps) {}

  header(instances: readonly Instance[]): ViewSummary {
    return viewSummary(instances);
  }

  /** The rows VS Code reads after a change event; returns how many. */
  async read(snapshot: InstanceSnapshot): Promise<number> {
    const instances = snapshot.instances;
    const known = await this.directory.forCycle(snapshot, this.deps.overlays);
    const context = { nowMs: Date.now(), costOf: this.deps.costOf, hasJobs: this.deps.hasJobs };
    const built = this.rows.build(instances, known.overlays, context);
    const clusters = built.clusters.map((cluster) => ({ cluster, p: presentCluster(cluster) }));
    unreadableOf(instances);
    let rows = clusters.length + built.plain.length;
    for (const { cluster } of clusters) {
      const nodes = cluster.nodes.map((i) => this.rows.rowOf(i, context));
      rows += nodes.length + cluster.missing.length;
    }
    for (const item of built.items) if (item.hasJobs) rows += this.deps.jobRows(item.instance.id).map((r) => presentJobRow(r)).length;
    return rows;
  }
}
