/**
 * What a Rent Cluster tells the user at its end: every node's truth (rented, unknown, failed,
 * destroyed), what was kept and what it bills, and whether the private network is still there.
 * A node whose outcome is not known is named with where to look, never left out.
 */
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import type { Notice } from '../notice';
import type { ClusterNode } from './clusterPorts';

/** A button of the end notice; the ui runs the command of the same name. */
export type ClusterButton = 'showInstances' | 'showLogs';

/** What a button says, in the display language. */
export function clusterButtonLabel(button: ClusterButton): string {
  switch (button) {
    case 'showInstances':
      return l10n.t('Show Instances');
    case 'showLogs':
      return l10n.t('Show Logs');
  }
}

/** The private network the nodes joined, and whether it is gone at the end. */
export interface ClusterNetwork {
  name: string;
  overlayId?: number;
  /** Deleted when the cluster was destroyed; `deleteProblem` when that failed. */
  deleted: boolean;
  deleteProblem?: string;
}

/** How a cluster rent ended. */
export interface ClusterRentEnd {
  /** Every node rented or tried, in order (a replaced node once per attempt). */
  nodes: ClusterNode[];
  network: ClusterNetwork | undefined;
  /**
   * `complete`: every node runs; `kept`: the user kept fewer; `destroyed`: the user gave the cluster
   * up; `refused`: stopped before any node was sent (a refusal, the overlay not made).
   */
  kind: 'complete' | 'kept' | 'destroyed' | 'refused';
  notice: Notice<ClusterButton>;
}

/** One node's truth as a sentence. */
export function nodeLine(node: ClusterNode): string {
  const id = node.instanceId;
  switch (node.state) {
    case 'rented':
      return node.note
        ? l10n.t('Node {0} (instance #{1}) is still rented at {2}/h: {3}', node.rank, id ?? '?', formatDollars(node.perHour), node.note)
        : l10n.t('Node {0} is instance #{1} at {2}/h.', node.rank, id ?? '?', formatDollars(node.perHour));
    case 'failed':
      return l10n.t('Node {0} on {1} was not rented: {2}.', node.rank, node.description, node.reason ?? l10n.t('unknown'));
    case 'destroyed':
      return node.reason
        ? l10n.t('Node {0} (instance #{1}) was destroyed: {2}.', node.rank, id ?? '?', node.reason)
        : l10n.t('Node {0} (instance #{1}) was destroyed.', node.rank, id ?? '?');
    case 'unknown':
      return id === undefined
        ? l10n.t('Node {0} ("{1}") may exist and bill: {2}. Look for it in the Instances view.', node.rank, node.label, node.reason ?? '')
        : l10n.t(
            'Node {0} (instance #{1}) may still exist and bill: {2} Look at it in the Instances view.',
            node.rank,
            id,
            node.note ?? node.reason ?? '',
          );
  }
}

/** Nodes that bill, or may: rented, or of unknown outcome. */
export function billingNodes(nodes: readonly ClusterNode[]): ClusterNode[] {
  return nodes.filter((n) => n.state === 'rented' || n.state === 'unknown');
}

function networkLine(network: ClusterNetwork | undefined, kind: Exclude<ClusterRentEnd['kind'], 'refused'>): string | undefined {
  if (!network || kind !== 'destroyed') return undefined;
  if (network.deleted) return l10n.t('The private network "{0}" was deleted.', network.name);
  return network.deleteProblem
    ? l10n.t('The private network "{0}" was not deleted: {1}', network.name, network.deleteProblem)
    : l10n.t('The private network "{0}" was kept, because a node may still be in it.', network.name);
}

/** The end: what was kept and what it bills, then every node that is not simply running. */
export function clusterEnd(
  kind: Exclude<ClusterRentEnd['kind'], 'refused'>,
  label: string,
  nodes: ClusterNode[],
  network: ClusterNetwork | undefined,
  wanted: number,
): ClusterRentEnd {
  const rented = nodes.filter((n) => n.state === 'rented');
  const unknown = nodes.some((n) => n.state === 'unknown' || (n.state === 'rented' && n.note !== undefined));
  const total = formatDollars(rented.reduce((sum, n) => sum + n.perHour, 0));
  const head =
    kind === 'complete'
      ? l10n.t(
          'GPU Rental: the cluster "{0}" is ready: {1} nodes run on its private network and bill {2}/h in all.',
          label,
          rented.length,
          total,
        )
      : kind === 'kept'
        ? l10n.t(
            'GPU Rental: kept {0} of the {1} nodes of the cluster "{2}", as you chose; they bill {3}/h in all.',
            rented.length,
            wanted,
            label,
            total,
          )
        : rented.length === 0 && !unknown
          ? l10n.t('GPU Rental: the cluster "{0}" was not rented, as you chose. Nothing of it bills.', label)
          : l10n.t('GPU Rental: the cluster "{0}" was given up, as you chose, but not all of it is gone.', label);
  // A complete cluster lists only the attempts that were replaced; the others list every node.
  const lines = (kind === 'complete' ? nodes.filter((n) => n.state !== 'rented') : nodes).map(nodeLine);
  const actions: ClusterButton[] = unknown ? ['showInstances', 'showLogs'] : rented.length > 0 ? ['showInstances'] : [];
  return {
    kind,
    nodes,
    network,
    notice: {
      severity: unknown ? 'error' : kind === 'complete' ? 'info' : 'warning',
      text: sentences(head, ...lines, networkLine(network, kind)),
      ...(actions.length > 0 ? { actions } : {}),
    },
  };
}
