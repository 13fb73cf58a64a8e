/**
 * Which machines of one cluster a Rent Cluster rents: the offers grouped by GPU model and count
 * (a distributed job runs the same number of processes on every node), the group the user started
 * from or the largest by default, how many nodes, and the cheapest machines of the group for the
 * plan's disk. Also the overlay's name, the node labels and the create body's overlay variable.
 */
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { boxProblem, boxValue, wholeNumberBox } from '../numbers';
import type { Ask } from '../prompts';
import { priceRent } from './flow';
import type { RentPlan } from './plan';

/** The offers of one physical cluster (they share `cluster_id`, and so a LAN). */
export interface ClusterOffers {
  clusterId: number;
  offers: readonly Offer[];
}

/** The offers of one GPU model and count within a cluster, one per machine, cheapest first. */
export interface NodeGroup {
  gpuName: string;
  numGpus: number;
  offers: Offer[];
}

/** "H100 SXM ×8", the name of a group in questions and messages. */
export function groupName(group: Pick<NodeGroup, 'gpuName' | 'numGpus'>): string {
  return group.numGpus > 1 ? `${group.gpuName} ×${group.numGpus}` : group.gpuName;
}

/** Whether an offer belongs to a group. */
export function inGroup(offer: Offer, group: Pick<NodeGroup, 'gpuName' | 'numGpus'>): boolean {
  return offer.gpu_name === group.gpuName && offer.num_gpus === group.numGpus;
}

/**
 * The cluster's rentable offers grouped by GPU model and count, one offer per machine (the cheapest
 * listed; two instances on one machine are no more GPUs for the network), each group cheapest first,
 * the groups with the most machines first.
 */
export function nodeGroups(offers: readonly Offer[]): NodeGroup[] {
  const byKey = new Map<string, NodeGroup>();
  const machines = new Set<string>();
  for (const offer of [...offers].sort(byListedPrice)) {
    if (offer.rentable === false) continue;
    const key = `${offer.gpu_name}\u0000${offer.num_gpus}`;
    const machine = offer.machine_id == null ? `offer:${offer.id}` : `machine:${offer.machine_id}`;
    if (machines.has(machine)) continue;
    machines.add(machine);
    const group = byKey.get(key) ?? { gpuName: offer.gpu_name, numGpus: offer.num_gpus, offers: [] };
    group.offers.push(offer);
    byKey.set(key, group);
  }
  return [...byKey.values()].sort(
    (a, b) => b.offers.length - a.offers.length || a.offers[0]!.dph_total - b.offers[0]!.dph_total || a.gpuName.localeCompare(b.gpuName),
  );
}

function byListedPrice(a: Offer, b: Offer): number {
  return a.dph_total - b.dph_total || a.id - b.id;
}

/** What the user settled on: the group and how many of its machines. */
export interface NodeChoice {
  group: NodeGroup;
  count: number;
}

/** What the caller already knows; whatever is given is not asked. */
export interface NodeGiven {
  /** The offer the user started from (a row of the explorer): its group comes first. */
  startedFrom?: Offer;
  /** How many nodes (automation). */
  count?: number;
}

/** Why no cluster can be chosen; the text is whole. */
export interface NodeRefusal {
  refusal: string;
}

/**
 * Asks which GPU model (only when several have two machines or more) and how many nodes (2 to the
 * machines of that model). Refused when no model has two machines; undefined when the user cancels.
 */
export async function chooseNodes(
  ask: Pick<Ask, 'pick' | 'input'>,
  cluster: ClusterOffers,
  given: NodeGiven = {},
): Promise<NodeChoice | NodeRefusal | undefined> {
  const groups = nodeGroups(cluster.offers).filter((g) => g.offers.length >= 2);
  if (groups.length === 0)
    return {
      refusal: l10n.t(
        'GPU Rental: not rented: cluster {0} has fewer than 2 machines of one GPU model for rent now, and a cluster needs at least 2. Refresh the offers, or pick another cluster.',
        cluster.clusterId,
      ),
    };
  const started = given.startedFrom && groups.find((g) => inGroup(given.startedFrom!, g));
  const ordered = started ? [started, ...groups.filter((g) => g !== started)] : groups;
  const group =
    ordered.length === 1 || (started && given.count !== undefined)
      ? ordered[0]!
      : await ask.pick({
          title: l10n.t('Rent Cluster: which GPU model? (cluster {0})', cluster.clusterId),
          placeholder: l10n.t('Every node of a cluster has the same GPUs, so a job runs the same way on each.'),
          items: ordered.map((g) => ({
            label: groupName(g),
            description: l10n.t('{0} machines, from {1}/h each', g.offers.length, formatDollars(g.offers[0]!.dph_total)),
            value: g,
          })),
        });
  if (!group) return undefined;
  const box = wholeNumberBox(2, group.offers.length);
  if (given.count !== undefined) {
    const problem = boxProblem(String(given.count), box);
    return problem
      ? {
          refusal: l10n.t(
            'GPU Rental: not rented: {0} nodes of {1} cannot be rented from cluster {2}. {3}',
            given.count,
            groupName(group),
            cluster.clusterId,
            problem,
          ),
        }
      : { group, count: given.count };
  }
  const text = await ask.input({
    title: l10n.t('Rent Cluster: how many nodes of {0}?', groupName(group)),
    prompt: l10n.t('Between 2 and {0}: the machines of this model in cluster {1} for rent now.', group.offers.length, cluster.clusterId),
    value: '2',
    validate: (value) => boxProblem(value, box),
  });
  if (text === undefined) return undefined;
  return { group, count: boxValue(text, box) };
}

/**
 * Whether an offer can take the plan: the disk it asks for and, for a direct connection, direct
 * ports. (A cluster plan has no volume and no bid: see `clusterPlanRefusal`.)
 */
export function fitsPlan(offer: Offer, plan: RentPlan): boolean {
  if (typeof offer.disk_space === 'number' && offer.disk_space < plan.disk) return false;
  if (plan.runtype !== undefined && /direc/.test(plan.runtype) && !((offer.direct_port_count ?? 0) > 0)) return false;
  return true;
}

/** The group's offers that fit the plan, cheapest first for the plan's disk (as the confirmation prices them). */
export function nodeCandidates(offers: readonly Offer[], plan: RentPlan): Offer[] {
  const total = (o: Offer) => priceRent(o, plan.disk, undefined).quote.totalPerHour;
  return offers.filter((o) => fitsPlan(o, plan)).sort((a, b) => total(a) - total(b) || a.id - b.id);
}

/** Overlay names the service takes: lower-case letters, digits and dashes. */
export const OVERLAY_NAME = /^[a-z0-9-]+$/;
const OVERLAY_NAME_MAX = 40;

/**
 * The overlay's name from the cluster's label: lower case, every other character a dash, no dash
 * at either end, at most 40 characters; "cluster" when nothing is left. A name the account already
 * has gets "-2", "-3", … so the create is not refused for it.
 */
export function overlayName(label: string, taken: readonly string[] = []): string {
  const base =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, OVERLAY_NAME_MAX)
      .replace(/-+$/, '') || 'cluster';
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const name = `${base.slice(0, OVERLAY_NAME_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!used.has(name)) return name;
  }
}

/**
 * A node's create body `env`: the plan's variables, then the entry that puts the instance into the
 * overlay at rent (the CLI's `--env "-n NAME"`). A plan variable that would join another overlay is
 * left out: a node is in its cluster's network only.
 */
export function nodeEnv(name: string, planEnv: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(planEnv))
    if (!/^\s*-n(?:\s|$)/.test(key)) Object.defineProperty(env, key, { value, enumerable: true, writable: true, configurable: true });
  env[`-n ${name}`] = '1';
  return env;
}

/** Node `rank`'s label: the cluster's label and the node's index, "train-node0". */
export function nodeLabel(clusterLabel: string, rank: number): string {
  return `${clusterLabel}-node${rank}`;
}

/** Why a plan cannot rent a cluster, or undefined: a volume lives on one machine, and a bid lets one node be stopped alone. */
export function clusterPlanRefusal(plan: RentPlan): string | undefined {
  if (plan.volume)
    return l10n.t(
      'GPU Rental: not rented: a volume lives on one machine, so a cluster cannot attach one. Rent the cluster without a volume.',
    );
  if (plan.bid !== undefined)
    return l10n.t(
      'GPU Rental: not rented: a cluster rents on demand, because an outbid node would stop alone and break the job. Rent the cluster without a bid.',
    );
  return undefined;
}
