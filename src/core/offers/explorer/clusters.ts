/**
 * The Offer Explorer's "Group by cluster": the offers that share a `cluster_id` (machines on one
 * LAN) under one row that sums them up ("cluster 4812: 4 machines × 8 H100, $31.20/h for all"),
 * groups in the order of the table's sort, and how many offers in no cluster are hidden. Pure, so
 * the page only draws what this decides.
 */
import type { Offer } from '../../api/offers';
import { formatDollars } from '../../format';
import { l10n, sentences } from '../../l10n';
import { columnById, type ColumnId, type RowContext } from './columns';
import { sortAnnouncement, type SortKey } from './rows';

/** One cluster among the rows shown. */
export interface ClusterGroup {
  readonly clusterId: number;
  /** Every shown offer of the cluster, as indices into the offers, in the table's order. */
  readonly members: readonly number[];
  /**
   * One offer per machine (the one with the most GPUs, then the cheapest): what "for all" adds up,
   * as two offers of one machine are not two machines.
   */
  readonly nodes: readonly number[];
  /** $/h of all nodes together. */
  readonly totalPrice: number;
  readonly totalGpus: number;
  /** The nodes' GPU models, each once, in the order first seen. */
  readonly gpuModels: readonly string[];
  /** The group row's sentence. */
  readonly text: string;
}

/** What the grid draws while grouping. */
export interface ClusterRows {
  /** The groups, in the order of the sort (the cheapest total first, and so on). */
  readonly groups: readonly ClusterGroup[];
  /** Top to bottom: an offer's index (0 or more), or a group's row as `groupRow(index in groups)`. */
  readonly rows: readonly number[];
  /** How many of the rows given were left out, their offer being in no cluster. */
  readonly hidden: number;
}

/** The row of the group at `index` in `groups`: a negative number, so it never reads as an offer's index. */
export const groupRow = (index: number): number => -1 - index;
/** The group's index in `groups` for a row that is a group's (`row < 0`). */
export const groupIndexOf = (row: number): number => -1 - row;

/**
 * Groups the rows (offer indices, already narrowed and in the table's order) by cluster: each
 * group's row, then its offers in the same order. Groups sort by the same keys as the offers, on
 * the group's own value for each column (clusterValue); ties keep the order in which the groups'
 * first offers come. Linear in the rows but for sorting the groups.
 */
export function groupByCluster(offers: readonly Offer[], order: readonly number[], sort: readonly SortKey[], ctx: RowContext): ClusterRows {
  const byCluster = new Map<number, number[]>();
  let hidden = 0;
  for (const i of order) {
    const id = offers[i]!.cluster_id;
    if (typeof id !== 'number') {
      hidden++;
      continue;
    }
    const members = byCluster.get(id);
    if (members) members.push(i);
    else byCluster.set(id, [i]);
  }
  const groups = [...byCluster].map(([clusterId, members]) => clusterGroup(offers, clusterId, members));
  if (sort.length > 0) {
    const keys = groups.map((g) =>
      sort.map((k) =>
        clusterValue(
          k.column,
          g.nodes.map((i) => offers[i]!),
          ctx,
        ),
      ),
    );
    const positions = groups.map((_, k) => k);
    positions.sort((a, b) => {
      for (let s = 0; s < sort.length; s++) {
        const c = compareValues(keys[a]![s], keys[b]![s], sort[s]!.direction === 'asc' ? 1 : -1);
        if (c !== 0) return c;
      }
      return a - b;
    });
    const sorted = positions.map((k) => groups[k]!);
    return { groups: sorted, rows: rowsOf(sorted), hidden };
  }
  return { groups, rows: rowsOf(groups), hidden };
}

function rowsOf(groups: readonly ClusterGroup[]): number[] {
  const rows: number[] = [];
  groups.forEach((g, k) => {
    rows.push(groupRow(k));
    for (const i of g.members) rows.push(i);
  });
  return rows;
}

function clusterGroup(offers: readonly Offer[], clusterId: number, members: number[]): ClusterGroup {
  const byMachine = new Map<string, number>();
  for (const i of members) {
    const o = offers[i]!;
    const machine = machineKey(o);
    const had = byMachine.get(machine);
    if (had === undefined || betterNode(o, offers[had]!)) byMachine.set(machine, i);
  }
  const nodes = members.filter((i) => byMachine.get(machineKey(offers[i]!)) === i);
  let totalPrice = 0;
  let totalGpus = 0;
  const models: string[] = [];
  const counts = new Set<number>();
  for (const i of nodes) {
    const o = offers[i]!;
    totalPrice += o.dph_total;
    totalGpus += o.num_gpus;
    counts.add(o.num_gpus);
    if (!models.includes(o.gpu_name)) models.push(o.gpu_name);
  }
  const first = offers[nodes[0]!]!;
  const text = clusterText({
    clusterId,
    machines: nodes.length,
    gpuModels: models.length,
    gpusPerMachine: counts.size === 1 ? first.num_gpus : undefined,
    gpuModel: first.gpu_name,
    totalGpus,
    totalPrice,
  });
  return { clusterId, members, nodes, totalPrice, totalGpus, gpuModels: models, text };
}

const machineKey = (o: Offer): string => (typeof o.machine_id === 'number' ? `m${o.machine_id}` : `o${o.id}`);

/** The whole machine before a part of it; of the same size, the cheaper. */
function betterNode(o: Offer, than: Offer): boolean {
  return o.num_gpus > than.num_gpus || (o.num_gpus === than.num_gpus && o.dph_total < than.dph_total);
}

/** What a group row says; whole sentences, one per form. */
export function clusterText(c: {
  clusterId: number;
  machines: number;
  /** How many GPU models the nodes have. */
  gpuModels: number;
  /** The GPUs of each machine when all have as many, else undefined. */
  gpusPerMachine: number | undefined;
  /** The model when there is one. */
  gpuModel: string;
  totalGpus: number;
  totalPrice: number;
}): string {
  const price = formatDollars(c.totalPrice);
  if (c.gpuModels > 1)
    return l10n.t('cluster {0}: {1} machines, {2} GPU models, {3}/h for all', c.clusterId, c.machines, c.gpuModels, price);
  if (c.machines === 1) return l10n.t('cluster {0}: 1 machine with {1}, {2}/h', c.clusterId, gpuSet(c.totalGpus, c.gpuModel), price);
  if (c.gpusPerMachine === undefined)
    return l10n.t('cluster {0}: {1} machines, {2} in all, {3}/h for all', c.clusterId, c.machines, gpuSet(c.totalGpus, c.gpuModel), price);
  return l10n.t('cluster {0}: {1} machines × {2}, {3}/h for all', c.clusterId, c.machines, gpuSet(c.gpusPerMachine, c.gpuModel), price);
}

/** "8 H100": a number of GPUs of one model. */
function gpuSet(count: number, model: string): string {
  return l10n.t('{0} {1}', count, model);
}

/**
 * A group's value for a column, from its nodes: sums for what adds up across machines (GPUs,
 * $/h, DLPerf, TFLOPS), the ratio of the sums for per-GPU price and DLPerf per dollar, the mean
 * for the price against the going rate, the weakest machine for the rest (memory, reliability,
 * network, disk: a job across machines runs at the pace of its slowest), and text shared by all
 * (else the first in alphabetical order). Undefined when no node knows it.
 */
export function clusterValue(column: ColumnId, nodes: readonly Offer[], ctx: RowContext): number | string | undefined {
  const spec = columnById(column);
  const values = nodes.map((o) => spec.value(o, ctx));
  if (spec.kind === 'text') {
    const texts = values.filter((v): v is string | number => v !== undefined).map((v) => String(v).toLowerCase());
    return texts.length === 0 ? undefined : texts.reduce((a, b) => (b < a ? b : a));
  }
  const nums = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (nums.length === 0) return undefined;
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const price = sum(nodes.map((o) => o.dph_total));
  switch (column) {
    case 'count':
    case 'price':
    case 'dlperf':
    case 'tflops':
      return sum(nums);
    case 'pricePerGpu': {
      const gpus = sum(nodes.map((o) => o.num_gpus));
      return gpus > 0 ? price / gpus : undefined;
    }
    case 'dlperfPerDollar': {
      const dlperf = sum(nodes.map((o) => o.dlperf ?? 0));
      return price > 0 && dlperf > 0 ? dlperf / price : undefined;
    }
    case 'priceContext':
      return sum(nums) / nums.length;
    case 'cluster':
      return nums[0];
    default:
      return Math.min(...nums);
  }
}

/** Unknown last in either direction, as the offers sort. */
function compareValues(x: number | string | undefined, y: number | string | undefined, sign: number): number {
  if (x === undefined) return y === undefined ? 0 : 1;
  if (y === undefined) return -1;
  return x === y ? 0 : x < y ? -sign : sign;
}

/** The status line's part about grouping: how many clusters, and how many offers in no cluster are hidden. */
export function groupingStatus(grouping: Pick<ClusterRows, 'groups' | 'hidden'>): string {
  const n = grouping.groups.length;
  return sentences(
    n === 1 ? l10n.t('1 cluster.') : l10n.t('{0} clusters.', n.toLocaleString('en-US')),
    grouping.hidden === 0
      ? undefined
      : grouping.hidden === 1
        ? l10n.t('1 offer in no cluster is hidden while grouping.')
        : l10n.t('{0} offers in no cluster are hidden while grouping.', grouping.hidden.toLocaleString('en-US')),
    grouping.hidden > 0 ? l10n.t('To search only machines in a cluster, add cluster_id!=null to the query.') : undefined,
  );
}

/** What the live region says after a sort or a filter while grouping. */
export function groupingAnnouncement(sort: readonly SortKey[], grouping: ClusterRows): string {
  const shown = grouping.rows.length - grouping.groups.length;
  return sentences(l10n.t('{0}; grouped by cluster.', sortAnnouncement(sort, shown)), groupingStatus(grouping));
}
