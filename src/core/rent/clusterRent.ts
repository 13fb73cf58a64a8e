/**
 * Rent Cluster as a core flow: which machines of one cluster (clusterPick.ts), one confirmation with
 * every node and the total (clusterConfirmation.ts), the spend cap on the total, then the private
 * network (overlay) and each node rented into it (clusterNodes.ts), and what the end says
 * (clusterEnd.ts). The ui command hands it the cluster's offers, the ports and the boxes.
 */
import type { Offer } from '../api/offers';
import { l10n } from '../l10n';
import { failure, type Notice } from '../notice';
import type { Ask } from '../prompts';
import { clusterCapReason, clusterConfirmation, clusterQuote, clusterUnaffordable } from './clusterConfirmation';
import { clusterEnd, type ClusterButton, type ClusterNetwork, type ClusterRentEnd } from './clusterEnd';
import { bootAll, claim, destroyAll, fillRank, plannedRates, type ClusterRun, type ClusterRunDeps } from './clusterNodes';
import { chooseNodes, clusterPlanRefusal, nodeCandidates, overlayName, type ClusterOffers, type NodeGiven } from './clusterPick';
import type { OverlayPort } from './clusterPorts';
import { unsettledNotice } from './flow';
import type { PendingRent } from './journal';
import type { RentPlan } from './plan';
import { isStop, rentSetup, type RentFlowDeps } from './rentOffer';

/** What Rent Cluster reads and asks through; the ui builds it once per command. */
export interface ClusterRentDeps extends ClusterRunDeps, Pick<RentFlowDeps, 'idle' | 'baseUrl' | 'account'> {
  ask: Pick<Ask, 'pick' | 'input' | 'confirm' | 'choose'>;
  overlays: OverlayPort;
  /** Rents on the window's account whose outcome is not known yet. */
  unsettled(): readonly PendingRent[];
  /** The account's credit, read fresh; undefined when not reported. */
  credit(): Promise<number | undefined>;
  /** What every node of `nodes` runs (the rent wizard on the first node's offer); undefined when cancelled. */
  plan(offer: Offer, credit: number | undefined, nodes: number): Promise<RentPlan | undefined>;
}

/** What the caller knows already; whatever is given is not asked. */
export interface ClusterGiven extends NodeGiven {
  cluster: ClusterOffers;
  /** What every node runs (automation); its label is the cluster's. */
  plan?: RentPlan;
}

/** A rent stopped before anything was sent, or after a refused overlay: a notice and no node. */
function stopped(notice: Notice<ClusterButton>, network?: ClusterNetwork): ClusterRentEnd {
  return { kind: 'refused', nodes: [], network, notice };
}

/**
 * Rents a cluster: refused while a rent is unsettled or when the cluster has fewer than 2 machines
 * of one model; asks the model and the count, the plan, then one confirmation with every node and
 * the total, checked against the credit and the spend cap. Then creates the overlay and rents each
 * node into it. Resolves with every node's truth and the notice, or undefined when cancelled.
 */
export async function rentClusterFlow(deps: ClusterRentDeps, given: ClusterGiven): Promise<ClusterRentEnd | undefined> {
  const unsettled = unsettledNotice(deps.unsettled());
  if (unsettled) return stopped({ severity: 'warning', text: unsettled.text });
  const choice = await chooseNodes(deps.ask, given.cluster, given);
  if (!choice) return undefined;
  if ('refusal' in choice) return stopped(failure(choice.refusal));
  const credit = await deps.credit();
  const plan = given.plan ?? (await deps.plan(choice.group.offers[0]!, credit, choice.count));
  if (!plan) return undefined;
  const planRefusal = clusterPlanRefusal(plan);
  if (planRefusal) return stopped(failure(planRefusal));
  const offers = nodeCandidates(choice.group.offers, plan).slice(0, choice.count);
  if (offers.length < choice.count)
    return stopped(
      failure(
        l10n.t(
          'GPU Rental: not rented: only {0} machines of cluster {1} have the {2} GB of disk (and the connection) each node asks for. Ask for less disk, or for fewer nodes.',
          offers.length,
          given.cluster.clusterId,
          plan.disk,
        ),
      ),
    );
  const quote = clusterQuote(offers, plan.disk, credit);
  if (!quote.affordable && credit !== undefined) return stopped(failure(clusterUnaffordable(quote, credit)));
  if (!(await deps.allowsSpend(quote.totalPerHour, clusterCapReason(quote)))) return undefined;
  const name = overlayName(plan.label, await takenNames(deps.overlays));
  const confirmation = clusterConfirmation({ quote, clusterId: given.cluster.clusterId, network: name, disk: plan.disk, credit });
  if (!(await deps.ask.confirm(confirmation.title, confirmation.detail, confirmation.button))) return undefined;
  const setup = rentSetup(deps, plan);
  if (isStop(setup)) return setup.stop ? stopped({ severity: setup.stop.notice.severity, text: setup.stop.notice.text }) : undefined;

  const network = await createNetwork(deps, given.cluster.clusterId, name);
  if ('notice' in network) return stopped(network.notice);
  const run: ClusterRun = {
    deps,
    account: setup.account,
    plan,
    onstart: setup.onstart,
    credit,
    clusterId: given.cluster.clusterId,
    group: choice.group,
    network,
    nodes: [],
    rates: plannedRates(offers, plan.disk, credit),
    claimedOffers: new Set(),
    claimedMachines: new Set(),
  };
  for (const offer of offers) claim(run, offer);
  return finish(run, await rentNodes(run, offers), choice.count);
}

/** Rents rank after rank, then watches the boots; stops renting when the user keeps what is rented. */
async function rentNodes(run: ClusterRun, offers: readonly Offer[]): Promise<'ok' | 'keep' | 'destroy'> {
  let kept = false;
  for (const [rank, offer] of offers.entries()) {
    const filled = await fillRank(run, rank, offer);
    if (filled === 'destroy') return 'destroy';
    if (filled === 'keep') {
      kept = true;
      break;
    }
  }
  const booted = await bootAll(run);
  if (booted === 'destroy') return 'destroy';
  return kept || booted === 'keep' || run.nodes.filter((n) => n.state === 'rented').length < offers.length ? 'keep' : 'ok';
}

async function finish(run: ClusterRun, result: 'ok' | 'keep' | 'destroy', wanted: number): Promise<ClusterRentEnd> {
  if (result === 'destroy') await destroyAll(run);
  const kind = result === 'ok' ? 'complete' : result === 'keep' ? 'kept' : 'destroyed';
  return clusterEnd(kind, run.plan.label, run.nodes, run.network, wanted);
}

/** The account's overlay names, so the new one does not collide; none when they cannot be read (the create will say). */
async function takenNames(overlays: OverlayPort): Promise<string[]> {
  try {
    return (await overlays.listOverlays()).map((o) => o.name);
  } catch {
    return [];
  }
}

/**
 * Creates the overlay. Refused: nothing is rented. An answer not seen is checked by listing the
 * overlays: found, the rent goes on; not found or not readable, nothing is rented and the user is told.
 */
async function createNetwork(
  deps: Pick<ClusterRentDeps, 'overlays' | 'progress'>,
  clusterId: number,
  name: string,
): Promise<ClusterNetwork | { notice: Notice<ClusterButton> }> {
  deps.progress?.(l10n.t('Creating the private network "{0}"', name));
  const nothing = l10n.t('No node was rented and nothing is billed.');
  const created = await deps.overlays.createOverlay(clusterId, name);
  if (created.kind === 'created') return { name, overlayId: created.overlayId, deleted: false };
  if (created.kind === 'refused')
    return {
      notice: failure(
        l10n.t(
          'GPU Rental: not rented: the service refused to create the private network "{0}" for cluster {1} ({2}). {3}',
          name,
          clusterId,
          created.message,
          nothing,
        ),
      ),
    };
  let listed: readonly { name: string; overlay_id: number; cluster_id?: number | null }[];
  try {
    listed = await deps.overlays.listOverlays();
  } catch (error) {
    return {
      notice: {
        severity: 'error',
        text: l10n.t(
          'GPU Rental: not rented: the answer to creating the private network "{0}" was lost ({1}), and the list of networks could not be read to check it ({2}). {3} Try again; the name may be taken now.',
          name,
          created.message,
          error instanceof Error ? error.message : String(error),
          nothing,
        ),
        actions: ['showLogs'],
      },
    };
  }
  const found = listed.find((o) => o.name === name && (o.cluster_id == null || o.cluster_id === clusterId));
  if (found) return { name, overlayId: found.overlay_id, deleted: false };
  return {
    notice: {
      severity: 'warning',
      text: l10n.t(
        'GPU Rental: not rented: the answer to creating the private network "{0}" was lost ({1}), and the service does not list it. {2} Try again.',
        name,
        created.message,
        nothing,
      ),
      actions: ['showLogs'],
    },
  };
}
