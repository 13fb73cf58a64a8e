/**
 * Check Cluster Network's verdict: what the cluster needs between its nodes for what it costs, and
 * whether the measured figures carry it.
 *
 * - every cluster needs 1 Gbit/s between nodes: below it, a multi-node job spends most of its time
 *   waiting on the network whatever its GPUs;
 * - nodes with 2 or more data-centre GPUs (A100, H100 class: `DATA_CENTRE_GPU`) need 10 Gbit/s:
 *   their gradients for each step outgrow a slower link, and the cluster costs the most.
 *
 * The figure judged is the lower of the slowest link (node 0 ↔ node k over TCP) and, when it ran,
 * the all-reduce's bus bandwidth: busbw is, by nccl-tests' definition, the rate each node's link
 * carries during the all-reduce, so it compares with a link's Gbit/s, and it is what a job's
 * gradients see with every node sending at once through the engine the job uses. An all-reduce
 * that did not finish fails the check (a job would hang in it too); one skipped (a node without
 * torch) leaves the verdict to the links.
 */

import type { Instance } from '../../api/instances';
import { formatDollars } from '../../format';
import { l10n } from '../../l10n';
import type { Notice } from '../../notice';
import type { AllReduceResult } from './preflightAllReduce';

/** A measured link: node 0 ↔ node `rank`, in Gbit/s. */
export interface Link {
  readonly rank: number;
  readonly gbits: number;
}

/** fast: reachable and fast enough for what it costs; slow: too slow for it; failed: not checked through, or unreachable. */
export type PreflightVerdict = 'fast' | 'slow' | 'failed';

export interface PreflightOutcome {
  readonly verdict: PreflightVerdict;
  readonly notice: Notice;
  /** One line per link or failed pair, and the all-reduce's line, as the notice lists them. */
  readonly lines: readonly string[];
  readonly links: readonly Link[];
  /** The all-reduce across every node, when the links were measured. */
  readonly allReduce?: AllReduceResult;
  /** The cluster's total $/h while its nodes run. */
  readonly perHour: number;
}

/** Below this, any multi-node job waits on the network (Gbit/s). */
export const FLOOR_GBITS = 1;
/** Below this, nodes with several data-centre GPUs wait on their gradients (Gbit/s). */
export const DATA_CENTRE_GBITS = 10;
/** The GPUs that cost the most per node and whose multi-GPU nodes need 10 Gbit/s between them. */
export const DATA_CENTRE_GPU = /\b(?:A100|A800|H100|H800|H200|GH200|B100|B200|GB200|MI250|MI300)/i;

export const pair = (a: number, b: number) => l10n.t('node {0} ↔ node {1}', a, b);
export const gbitsText = (gbits: number) => gbits.toFixed(1);

/**
 * The bandwidth a cluster of these nodes needs between nodes: 10 Gbit/s when a node has 2 or more
 * data-centre GPUs (the most GPUs per node it has is given), else 1 Gbit/s.
 */
export function requiredGbits(nodes: readonly Instance[]): { gbits: number; gpusPerNode?: number } {
  const big = nodes.filter((n) => (n.num_gpus ?? 0) >= 2 && DATA_CENTRE_GPU.test(n.gpu_name ?? ''));
  if (big.length === 0) return { gbits: FLOOR_GBITS };
  return { gbits: DATA_CENTRE_GBITS, gpusPerNode: Math.max(...big.map((n) => n.num_gpus ?? 0)) };
}

/** The verdict on measured links (at least one) and the all-reduce, with the notice's text. */
export function verdictOf(
  cluster: { readonly label: string; readonly nodes: readonly Instance[] },
  links: readonly Link[],
  allReduce: AllReduceResult | undefined,
  lines: readonly string[],
  perHour: number,
): { verdict: PreflightVerdict; text: string } {
  const measured = l10n.t('Measured: {0}.', lines.join('; '));
  const slowest = links.reduce((s, l) => (l.gbits < s.gbits ? l : s), links[0]!);
  const collective = allReduce?.kind === 'measured' ? allReduce : undefined;
  const need = requiredGbits(cluster.nodes);
  const cost = formatDollars(perHour);
  const said = (verdict: PreflightVerdict, text: string) => ({ verdict, text: `${text} ${measured}` });
  if (allReduce?.kind === 'failed')
    return said(
      'failed',
      l10n.t(
        'GPU Rental: every node of {0} reaches every other, but an all-reduce across them with torch.distributed ({1}) did not finish ({2}). A job across these nodes may hang the same way; check that torch and its backend work on every node, then check again.',
        cluster.label,
        allReduce.backend,
        allReduce.why,
      ),
    );
  if (slowest.gbits < need.gbits)
    return said(
      'slow',
      need.gpusPerNode !== undefined
        ? l10n.t(
            'GPU Rental: the slowest link ({0}) carries {1} Gbit/s, below the 10 Gbit/s that nodes with {2} data-centre GPUs need; their gradients will wait on the network, and the cluster costs {3}/h. Consider a cluster whose machines share a faster network.',
            pair(0, slowest.rank),
            gbitsText(slowest.gbits),
            need.gpusPerNode,
            cost,
          )
        : l10n.t(
            'GPU Rental: the slowest link ({0}) carries {1} Gbit/s, below the 1 Gbit/s any multi-node job needs; the GPUs will wait on the network, and the cluster costs {2}/h. Consider a cluster whose machines share a faster network.',
            pair(0, slowest.rank),
            gbitsText(slowest.gbits),
            cost,
          ),
    );
  if (collective && collective.gbits < need.gbits)
    return said(
      'slow',
      need.gpusPerNode !== undefined
        ? l10n.t(
            'GPU Rental: an all-reduce across the nodes ({0}) carries {1} Gbit/s, below the 10 Gbit/s that nodes with {2} data-centre GPUs need, though each link alone is faster; their gradients will wait on the network, and the cluster costs {3}/h. Consider a cluster whose machines share a faster network.',
            collective.backend,
            gbitsText(collective.gbits),
            need.gpusPerNode,
            cost,
          )
        : l10n.t(
            'GPU Rental: an all-reduce across the nodes ({0}) carries {1} Gbit/s, below the 1 Gbit/s any multi-node job needs, though each link alone is faster; the GPUs will wait on the network, and the cluster costs {2}/h. Consider a cluster whose machines share a faster network.',
            collective.backend,
            gbitsText(collective.gbits),
            cost,
          ),
    );
  if (collective)
    return said(
      'fast',
      l10n.t(
        'GPU Rental: every node of {0} reaches every other, the slowest link carries {1} Gbit/s and an all-reduce across the nodes {2} Gbit/s, enough for what the cluster costs ({3}/h).',
        cluster.label,
        gbitsText(slowest.gbits),
        gbitsText(collective.gbits),
        cost,
      ),
    );
  return said(
    'fast',
    l10n.t(
      'GPU Rental: every node of {0} reaches every other, and the slowest link carries {1} Gbit/s, enough for what the cluster costs ({2}/h).',
      cluster.label,
      gbitsText(slowest.gbits),
      cost,
    ),
  );
}
