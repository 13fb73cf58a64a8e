/**
 * The nodes of a Rent Cluster once the user confirmed: each rented through the one renter (journal
 * first, one create at a time, an unseen answer settled by reading the account, never by renting
 * again), then every boot watched. A node that fails is named, and the user chooses: replace it
 * from the same cluster (its price said), keep the others, or destroy them. Closing the question
 * destroys them: no half-cluster bills that the user did not choose to keep.
 */
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import type { Ask } from '../prompts';
import { clusterQuote } from './clusterConfirmation';
import type { ClusterNetwork } from './clusterEnd';
import { groupName, inGroup, nodeCandidates, nodeLabel, nodeEnv, type NodeGroup } from './clusterPick';
import type { BootResult, ClusterNode, ClusterRenter, DestroyResult, OverlayPort } from './clusterPorts';
import { priceRent } from './flow';
import { rentRequest, type RentPlan } from './plan';
import type { RentAccount } from './renter';

/** What the nodes' part of the flow calls. */
export interface ClusterRunDeps {
  ask: Pick<Ask, 'choose'>;
  renter: ClusterRenter;
  overlays: Pick<OverlayPort, 'deleteOverlay'>;
  /** Waits until the instance runs, or says why it failed to boot. */
  boot(instanceId: number): Promise<BootResult>;
  /** Destroys an instance and says what came of it. */
  destroy(instanceId: number): Promise<DestroyResult>;
  /** The cluster's offers now, for a replacement; the offers the flow started with are used when this fails. */
  clusterOffers(clusterId: number): Promise<readonly Offer[]>;
  /** The spend cap check; false when it refuses (it has told the user why). */
  allowsSpend(perHour: number, reason: string): Promise<boolean>;
  /** Told before each step, for the progress notification. */
  progress?(text: string): void;
}

/** One Rent Cluster after its confirmation: what it sends, and every node so far. */
export interface ClusterRun {
  deps: ClusterRunDeps;
  account: RentAccount;
  plan: RentPlan;
  onstart: string | undefined;
  credit: number | undefined;
  clusterId: number;
  group: NodeGroup;
  network: ClusterNetwork;
  /** Every rent tried, in order. */
  nodes: ClusterNode[];
  /** The $/h of each rank as planned, then as rented (a replacement changes its rank's). */
  rates: number[];
  /** Offers and machines tried or planned: a replacement is another machine. */
  claimedOffers: Set<number>;
  claimedMachines: Set<number>;
}

type Decision = { kind: 'replace'; offer: Offer } | { kind: 'keep' } | { kind: 'destroy' };
export type RankResult = 'ok' | 'keep' | 'destroy';

/** Claims an offer (and its machine) so no replacement picks it again. */
export function claim(run: Pick<ClusterRun, 'claimedOffers' | 'claimedMachines'>, offer: Offer): void {
  run.claimedOffers.add(offer.id);
  if (offer.machine_id != null) run.claimedMachines.add(offer.machine_id);
}

/** Rents one node into the overlay; an unseen answer is waited for until the account says. */
async function rentNode(run: ClusterRun, rank: number, offer: Offer): Promise<{ node: ClusterNode; replaceable: boolean }> {
  const { deps, plan } = run;
  claim(run, offer);
  const priced = priceRent(offer, plan.disk, run.credit);
  const label = nodeLabel(plan.label, rank);
  const node: ClusterNode = {
    rank,
    offer,
    label,
    description: priced.info.description,
    perHour: priced.quote.totalPerHour,
    state: 'failed',
  };
  run.nodes.push(node);
  deps.progress?.(l10n.t('Renting node {0}: {1} at {2}/h', rank, node.description, formatDollars(node.perHour)));
  const request = rentRequest({ ...plan, label, env: nodeEnv(run.network.name, plan.env) }, run.onstart);
  const outcome = await deps.renter.rent(run.account, offer, request, priced.info);
  switch (outcome.kind) {
    case 'created':
      Object.assign(node, { state: 'rented', instanceId: outcome.instanceId });
      run.rates[rank] = node.perHour;
      return { node, replaceable: true };
    case 'unavailable':
      node.reason = l10n.t('the offer was taken before the rent landed');
      return { node, replaceable: true };
    case 'refused':
      node.reason = l10n.t('the service refused the rent ({0})', outcome.error.message);
      // A missing template or volume is missing on every machine.
      return { node, replaceable: outcome.missing === undefined };
    case 'busy':
    case 'unsettled':
      node.reason = l10n.t('another rent of this account is not settled yet, and renting now could rent twice');
      return { node, replaceable: false };
    case 'uncertain': {
      deps.progress?.(l10n.t('The answer for node {0} was lost: checking your account for it', rank));
      const settled = await deps.renter.settled(outcome.entry);
      if (settled?.kind === 'found') {
        Object.assign(node, { state: 'rented', instanceId: settled.instanceId });
        run.rates[rank] = node.perHour;
        return { node, replaceable: true };
      }
      if (settled?.kind === 'notCreated') {
        node.reason = l10n.t('the answer was lost, and your account shows the rent did not go through');
        return { node, replaceable: true };
      }
      node.state = 'unknown';
      node.reason =
        settled?.kind === 'unknowable'
          ? l10n.t('the answer was lost, and the key it was sent with is gone, so GPU Rental cannot check it')
          : l10n.t('the answer was lost, and another window checked the account for it');
      return { node, replaceable: false };
    }
  }
}

/** The cheapest offer of the same cluster and GPUs on a machine not claimed yet, for the plan. */
async function replacementFor(run: ClusterRun): Promise<Offer | undefined> {
  let fresh: readonly Offer[] = [];
  try {
    fresh = await run.deps.clusterOffers(run.clusterId);
  } catch {
    // The offers the flow started with are still candidates.
  }
  const free = [...fresh, ...run.group.offers].filter(
    (o) => inGroup(o, run.group) && !run.claimedOffers.has(o.id) && (o.machine_id == null || !run.claimedMachines.has(o.machine_id)),
  );
  return nodeCandidates(free, run.plan)[0];
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** Asks what to do about a failed node: replace it (its price said, the cap checked), keep the others, or destroy them. */
async function decide(run: ClusterRun, node: ClusterNode, replaceable: boolean): Promise<Decision> {
  const { deps } = run;
  let replacement = replaceable ? await replacementFor(run) : undefined;
  const others = run.nodes.filter((n) => n !== node && n.state === 'rented');
  const booted = node.state === 'rented' && node.instanceId !== undefined;
  for (;;) {
    const replacePerHour = replacement && priceRent(replacement, run.plan.disk, run.credit).quote.totalPerHour;
    const newTotal = replacePerHour === undefined ? undefined : sum(run.rates) - (run.rates[node.rank] ?? 0) + replacePerHour;
    const buttons = {
      replace: l10n.t('Replace Node'),
      keep: l10n.t('Keep the Others'),
      destroy: others.length > 0 ? l10n.t('Destroy All') : l10n.t('Stop'),
    };
    const choice = await deps.ask.choose(
      l10n.t('GPU Rental: node {0} of the cluster "{1}" failed: {2}.', node.rank, run.plan.label, node.reason ?? ''),
      sentences(
        booted &&
          l10n.t('Its instance #{0} bills {1}/h and is destroyed whatever you choose.', node.instanceId!, formatDollars(node.perHour)),
        replacement && newTotal !== undefined
          ? l10n.t(
              'Replace Node rents {0} from the same cluster for {1}/h instead; the cluster would cost {2}/h in all.',
              groupName(run.group),
              formatDollars(replacePerHour!),
              formatDollars(newTotal),
            )
          : replaceable && l10n.t('No other machine with {0} in cluster {1} is for rent now.', groupName(run.group), run.clusterId),
        others.length > 0
          ? l10n.t(
              '{0} other nodes are rented and bill {1}/h: keep them, or destroy them and the private network. Closing this question destroys them.',
              others.length,
              formatDollars(sum(others.map((n) => n.perHour))),
            )
          : l10n.t('No other node is rented: Stop deletes the private network "{0}".', run.network.name),
      ),
      [...(replacement ? [buttons.replace] : []), ...(others.length > 0 ? [buttons.keep] : []), buttons.destroy],
    );
    if (choice === buttons.keep && others.length > 0) return { kind: 'keep' };
    if (choice !== buttons.replace || !replacement || newTotal === undefined) return { kind: 'destroy' };
    const reason = l10n.t('rented: the cluster would cost {0}/h with the replacement', formatDollars(newTotal));
    if (await deps.allowsSpend(newTotal, reason)) return { kind: 'replace', offer: replacement };
    replacement = undefined; // the cap refused it: keep or destroy
  }
}

/** Rents rank `rank` on `offer`, and on each failure asks; resolves with what the user chose. */
export async function fillRank(run: ClusterRun, rank: number, offer: Offer): Promise<RankResult> {
  let next = offer;
  for (;;) {
    const { node, replaceable } = await rentNode(run, rank, next);
    if (node.state === 'rented') return 'ok';
    const decision = await decide(run, node, replaceable);
    if (decision.kind !== 'replace') return decision.kind;
    next = decision.offer;
  }
}

/** Destroys one node and records what came of it. */
async function destroyNode(run: ClusterRun, node: ClusterNode): Promise<void> {
  if (node.instanceId === undefined) return;
  let result: DestroyResult;
  try {
    result = await run.deps.destroy(node.instanceId);
  } catch (error) {
    result = { kind: 'notDone', message: error instanceof Error ? error.message : String(error) };
  }
  if (result.kind === 'done') {
    node.state = 'destroyed';
    node.note = undefined;
  } else {
    node.state = result.kind === 'unknown' ? 'unknown' : 'rented';
    node.note = result.message;
  }
}

/**
 * Waits for every rented node to boot. A node that fails is named and the user chooses; replace
 * destroys it and rents another machine of the cluster (whose boot is watched in turn), keep
 * destroys it and keeps the others.
 */
export async function bootAll(run: ClusterRun): Promise<RankResult> {
  const live = run.nodes.filter((n) => n.state === 'rented');
  run.deps.progress?.(l10n.t('Waiting for {0} nodes to boot', live.length));
  const results = await Promise.all(live.map((n) => run.deps.boot(n.instanceId!)));
  for (const [index, first] of results.entries()) {
    let node = live[index]!;
    let result = first;
    while (result.kind === 'failed') {
      node.reason = l10n.t('it failed to boot ({0})', result.reason);
      const decision = await decide(run, node, true);
      if (decision.kind === 'destroy') return 'destroy';
      await destroyNode(run, node);
      run.rates[node.rank] = 0;
      if (decision.kind === 'keep') break;
      const filled = await fillRank(run, node.rank, decision.offer);
      if (filled === 'destroy') return 'destroy';
      if (filled === 'keep') break;
      node = run.nodes.at(-1)!;
      run.deps.progress?.(l10n.t('Waiting for node {0} to boot', node.rank));
      result = await run.deps.boot(node.instanceId!);
    }
  }
  return 'ok';
}

/** Destroys every node that was rented (or may have been), then the overlay once no node can be in it. */
export async function destroyAll(run: ClusterRun): Promise<void> {
  run.deps.progress?.(l10n.t('Destroying the nodes of the cluster "{0}"', run.plan.label));
  await Promise.all(run.nodes.filter((n) => n.instanceId !== undefined && n.state !== 'destroyed').map((n) => destroyNode(run, n)));
  if (run.nodes.some((n) => n.state === 'rented' || n.state === 'unknown')) return;
  try {
    await run.deps.overlays.deleteOverlay(run.network.name);
    run.network.deleted = true;
  } catch (error) {
    run.network.deleteProblem = error instanceof Error ? error.message : String(error);
  }
}

/** What every planned node costs, for `run.rates`. */
export function plannedRates(offers: readonly Offer[], disk: number, credit: number | undefined): number[] {
  return clusterQuote(offers, disk, credit).nodes.map((n) => n.priced.quote.totalPerHour);
}
