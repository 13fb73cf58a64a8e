/**
 * The variables each node of a cluster job runs with: where rank 0 listens, which rank this node
 * is, how many nodes and GPUs take part. The same values appear under three sets of names, so a
 * recipe written for torchrun's own variables, for SkyPilot or for dstack runs unchanged:
 *
 * | ours | SkyPilot | dstack | value |
 * | --- | --- | --- | --- |
 * | `MASTER_ADDR` | | `DSTACK_MASTER_NODE_IP` | rank 0's overlay (eth0) address |
 * | `MASTER_PORT` | | | the rendezvous port, above 1000 |
 * | `NODE_RANK` | `SKYPILOT_NODE_RANK` | `DSTACK_NODE_RANK` | this node's rank, 0 to n-1 |
 * | `NNODES` | `SKYPILOT_NUM_NODES` | `DSTACK_NODES_NUM` | the number of nodes |
 * | `NPROC_PER_NODE` | `SKYPILOT_NUM_GPUS_PER_NODE` | `DSTACK_GPUS_PER_NODE` | this node's GPUs |
 * | `WORLD_SIZE` | | `DSTACK_GPUS_NUM` | every node's GPUs together |
 * | `NODE_IPS` | `SKYPILOT_NODE_IPS` | `DSTACK_NODES_IPS` | the addresses in rank order, one a line |
 * | `NCCL_SOCKET_IFNAME` | | | `eth0`, the overlay |
 *
 * Every value is checked here (an IPv4 address, a whole number in its range), so none can carry a
 * shell word; they are quoted all the same where a script sets them.
 */

import { l10n } from '../../l10n';
import { shellQuote } from '../../shell';
import INTERFACE_ADDRESS from './remote/interface-address.sh';

/** The interface the service's overlay network is on, inside every node. */
export const OVERLAY_INTERFACE = 'eth0';

/** The lowest and highest rendezvous port: the service keeps 1000 and below for itself. */
export const MIN_MASTER_PORT = 1001;
export const MAX_MASTER_PORT = 65535;

/** One node of the cluster, as the job sees it. */
export interface ClusterNode {
  /** Its IPv4 address on the overlay (eth0), e.g. `10.0.0.2`. */
  readonly address: string;
  /** The GPUs it has; the job starts one process per GPU. */
  readonly gpus: number;
}

/** The nodes in rank order (rank 0 first) and the port rank 0 listens on. */
export interface ClusterLayout {
  readonly nodes: readonly ClusterNode[];
  readonly masterPort: number;
}

/** A variable's name and its value, in the order a script sets them. */
export type Variable = readonly [name: string, value: string];

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Whether `text` is a dotted-quad IPv4 address (no leading zeros, no spaces). */
export function isIpv4(text: string): boolean {
  return IPV4.test(text);
}

/** `port` when it is a whole number from 1001 to 65535; else an error that says which ports work. */
export function checkMasterPort(port: number): number {
  if (!Number.isInteger(port) || port < MIN_MASTER_PORT || port > MAX_MASTER_PORT)
    throw new RangeError(
      l10n.t(
        'GPU Rental: {0} cannot be the rendezvous port. Choose a whole number from {1} to {2}; the service keeps ports up to 1000 for itself.',
        String(port),
        MIN_MASTER_PORT,
        MAX_MASTER_PORT,
      ),
    );
  return port;
}

/** The layout when every node and the port can be used; else an error that names what is wrong. */
export function checkLayout(layout: ClusterLayout): ClusterLayout {
  checkMasterPort(layout.masterPort);
  if (layout.nodes.length === 0) throw new RangeError(l10n.t('GPU Rental: a cluster job needs at least one node.'));
  const seen = new Set<string>();
  layout.nodes.forEach((node, rank) => {
    if (!isIpv4(node.address))
      throw new RangeError(
        l10n.t(
          'GPU Rental: node {0} has no usable overlay address ("{1}"). Check that it joined the cluster\'s network.',
          rank,
          node.address,
        ),
      );
    if (seen.has(node.address))
      throw new RangeError(l10n.t('GPU Rental: two nodes have the overlay address {0}. Each node needs its own address.', node.address));
    seen.add(node.address);
    if (!Number.isInteger(node.gpus) || node.gpus < 1 || node.gpus > 1024)
      throw new RangeError(
        l10n.t('GPU Rental: node {0} reports {1} GPUs; a cluster job needs at least one GPU on every node.', rank, String(node.gpus)),
      );
  });
  return layout;
}

function checkRank(layout: ClusterLayout, rank: number): number {
  if (!Number.isInteger(rank) || rank < 0 || rank >= layout.nodes.length)
    throw new RangeError(l10n.t('GPU Rental: rank {0} is not a node of this {1}-node cluster.', String(rank), layout.nodes.length));
  return rank;
}

/** Every node's GPUs together: the number of processes the job starts. */
export function worldSize(layout: ClusterLayout): number {
  return layout.nodes.reduce((sum, node) => sum + node.gpus, 0);
}

/**
 * The variables of rank `rank`, in a fixed order: ours, then SkyPilot's, then dstack's. `NODE_IPS`
 * holds one address a line with no newline at the end, as SkyPilot's and dstack's do, so
 * `echo "$NODE_IPS" | head -n1` is rank 0 and `| wc -l` is the node count.
 */
export function clusterVariables(layout: ClusterLayout, rank: number): Variable[] {
  checkLayout(layout);
  checkRank(layout, rank);
  const master = layout.nodes[0]!.address;
  const ips = layout.nodes.map((n) => n.address).join('\n');
  const nodes = String(layout.nodes.length);
  const gpus = String(layout.nodes[rank]!.gpus);
  const world = String(worldSize(layout));
  const r = String(rank);
  return [
    ['MASTER_ADDR', master],
    ['MASTER_PORT', String(layout.masterPort)],
    ['NODE_RANK', r],
    ['NNODES', nodes],
    ['NPROC_PER_NODE', gpus],
    ['WORLD_SIZE', world],
    ['NODE_IPS', ips],
    ['NCCL_SOCKET_IFNAME', OVERLAY_INTERFACE],
    ['SKYPILOT_NODE_RANK', r],
    ['SKYPILOT_NODE_IPS', ips],
    ['SKYPILOT_NUM_NODES', nodes],
    ['SKYPILOT_NUM_GPUS_PER_NODE', gpus],
    ['DSTACK_NODE_RANK', r],
    ['DSTACK_NODES_IPS', ips],
    ['DSTACK_MASTER_NODE_IP', master],
    ['DSTACK_NODES_NUM', nodes],
    ['DSTACK_GPUS_PER_NODE', gpus],
    ['DSTACK_GPUS_NUM', world],
  ];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `export NAME=value` for each variable, one a line, every value quoted for the shell when it needs it. */
export function exportLines(variables: readonly Variable[]): string[] {
  return variables.map(([name, value]) => {
    if (!NAME.test(name)) throw new Error(l10n.t('GPU Rental: "{0}" cannot be the name of a variable a job sets.', name));
    return `export ${name}=${shellQuote(value)}`;
  });
}

const INTERFACE = /^[a-z][a-z0-9]{0,14}$/;

/**
 * A POSIX sh snippet that prints this node's IPv4 address on `iface` (eth0, the overlay) and
 * nothing else: from `ip -4 -o addr`, else `ifconfig` (old and new formats), else python3's
 * SIOCGIFADDR. It prints an empty line when the interface has no IPv4 address; check what it
 * printed with parseInterfaceAddress.
 */
export function interfaceAddressScript(iface: string = OVERLAY_INTERFACE): string {
  if (!INTERFACE.test(iface)) throw new Error(l10n.t('GPU Rental: "{0}" is not the name of a network interface.', iface));
  return `i=${iface}\n${INTERFACE_ADDRESS}`;
}

/** The address interfaceAddressScript printed, when it is one; undefined for anything else. */
export function parseInterfaceAddress(output: string): string | undefined {
  const first = output.split('\n')[0]?.trim() ?? '';
  return isIpv4(first) ? first : undefined;
}
