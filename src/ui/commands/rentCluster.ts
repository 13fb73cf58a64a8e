import * as vscode from 'vscode';
import { writeOutcome } from '../../core/api/errors';
import { clusterFilter } from '../../core/api/offerQuery';
import type { Offer } from '../../core/api/offers';
import { COMMANDS, VIEWS } from '../../core/ids';
import { destroyInstance } from '../../core/instances/actions';
import { instanceName } from '../../core/instances/names';
import { untilPhase } from '../../core/instances/untilPhase';
import { pickCluster } from '../../core/rent/clusterChoice';
import { clusterButtonLabel, type ClusterRentEnd } from '../../core/rent/clusterEnd';
import type { ClusterOffers } from '../../core/rent/clusterPick';
import { clusterRenter, type BootResult, type DestroyResult, type OverlayPort } from '../../core/rent/clusterPorts';
import { rentClusterFlow, type ClusterRentDeps } from '../../core/rent/clusterRent';
import { notify } from '../pickers/notify';
import { asker } from '../pickers/prompts';
import { openRentWizard } from '../pickers/rentWizard';
import { command, type CommandDefinition } from './registry';
import { rentFlowDeps, type RentDeps } from './rent';

/** How long a new node may take to run before the cluster rent calls its boot failed. */
const NODE_BOOT_TIMEOUT_MS = 20 * 60_000;

/** What the explorer's cluster group (or automation) passes: the cluster, and optionally how many nodes. */
interface ClusterTarget {
  clusterId: number;
  count?: number;
}

function isClusterTarget(value: unknown): value is ClusterTarget {
  return typeof value === 'object' && value !== null && typeof (value as ClusterTarget).clusterId === 'number';
}

/**
 * Rent Cluster…: from the Offer Explorer's cluster group (its id), automation, or the palette (a
 * pick among the clusters a search finds). What is asked, confirmed and rented is decided in
 * src/core/rent/clusterRent.ts; one rent at a time, shared with Rent Offer's gate.
 */
export function rentClusterCommands(deps: RentDeps): CommandDefinition[] {
  return [command(COMMANDS.rentCluster, (target?: unknown) => deps.gate.run(() => rentCluster(deps, target)))];
}

/** Resolves with the ids of the nodes that run (and are kept), or undefined when nothing was rented. */
async function rentCluster(s: RentDeps, target: unknown): Promise<number[] | undefined> {
  const deps = clusterDeps(s);
  const cluster = await resolveCluster(s, deps, target);
  if (!cluster) return undefined;
  const status = vscode.window.setStatusBarMessage(vscode.l10n.t('$(sync~spin) GPU Rental: renting a cluster…'));
  let end: ClusterRentEnd | undefined;
  try {
    end = await rentClusterFlow(
      {
        ...deps,
        progress: (text) => {
          s.logger.info(`rent cluster: ${text}`);
          vscode.window.setStatusBarMessage(vscode.l10n.t('$(sync~spin) {0}', text), 10_000);
        },
      },
      { cluster, count: isClusterTarget(target) ? target.count : undefined },
    );
  } finally {
    status.dispose();
  }
  void s.poller.refresh();
  if (!end) return undefined;
  void notify(end.notice, clusterButtonLabel).then((button) => {
    if (button === 'showInstances') void vscode.commands.executeCommand(`${VIEWS.instances}.focus`);
    else if (button === 'showLogs') s.log.show();
  });
  const running = end.nodes.filter((n) => n.state === 'rented' && n.instanceId !== undefined).map((n) => n.instanceId!);
  return running.length ? running : undefined;
}

/** The cluster to rent: the one named (its offers searched fresh), or one picked among a search for clusters. */
async function resolveCluster(s: RentDeps, deps: ClusterRentDeps, target: unknown): Promise<ClusterOffers | undefined> {
  if (isClusterTarget(target)) return { clusterId: target.clusterId, offers: await clusterOffers(s, target.clusterId) };
  const offers = await clusterOffers(s);
  const picked = await pickCluster(deps.ask, offers);
  if (picked && 'refusal' in picked) {
    void vscode.window.showInformationMessage(picked.refusal);
    return undefined;
  }
  return picked;
}

/** Rentable on-demand offers of one cluster, or of any cluster. */
function clusterOffers(s: RentDeps, clusterId?: number): Promise<Offer[]> {
  return s.session.client.offers.search({
    query: { filters: { cluster_id: clusterFilter(clusterId), rentable: { eq: true } }, order: [], type: 'on-demand' },
    limit: 1000,
  });
}

/** The flow's collaborators, from the window's session, renter, poller and boxes. */
function clusterDeps(s: RentDeps): ClusterRentDeps {
  const rent = rentFlowDeps(s);
  return {
    ask: asker(s.prompts()),
    unsettled: rent.unsettled,
    credit: rent.credit,
    allowsSpend: rent.allowsSpend,
    idle: rent.idle,
    baseUrl: rent.baseUrl,
    account: rent.account,
    overlays: overlayPort(s),
    renter: clusterRenter(s.renter),
    plan: (offer, credit, nodes) =>
      openRentWizard(s, offer, credit, { clusterNodes: nodes, volumeChoices: undefined }, (notice) => {
        void vscode.window.showWarningMessage(notice.text);
      }),
    boot: (id) => bootOf(s, id),
    destroy: (id) => destroyNode(s, id),
    clusterOffers: (id) => clusterOffers(s, id),
  };
}

/** The overlay routes through the window's client; a failed write is told as refused or unknown. */
function overlayPort(s: RentDeps): OverlayPort {
  const clusters = () => s.session.client.clusters;
  return {
    async createOverlay(clusterId, name) {
      try {
        return { kind: 'created', overlayId: (await clusters().createOverlay({ clusterId, name })).overlayId };
      } catch (error) {
        return { kind: writeOutcome(error), message: error instanceof Error ? error.message : String(error) };
      }
    },
    deleteOverlay: (name) => clusters().deleteOverlay({ name }),
    async listOverlays() {
      const listed = await clusters().overlays();
      return listed.flatMap((o) => (o.name ? [{ overlay_id: o.overlay_id, name: o.name, cluster_id: o.cluster_id }] : []));
    },
  };
}

/** Waits for a new node to run, showing its boot in the status bar; a dead end or the timeout is a failed boot. */
async function bootOf(s: RentDeps, id: number): Promise<BootResult> {
  s.boots.track(id);
  const wait = await untilPhase(s.poller, id, ['running'], { timeoutMs: NODE_BOOT_TIMEOUT_MS });
  if (wait.outcome === 'reached') return { kind: 'running' };
  if (wait.outcome === 'timedOut')
    return { kind: 'failed', reason: vscode.l10n.t('it did not run within {0} minutes', NODE_BOOT_TIMEOUT_MS / 60_000) };
  return { kind: 'failed', reason: vscode.l10n.t('it became {0} while booting', wait.outcome === 'gaveUp' ? wait.phase : 'cancelled') };
}

/** Destroys a node the flow gave up; the instance read fresh, so its name and rate are current. */
async function destroyNode(s: RentDeps, id: number): Promise<DestroyResult> {
  const known = s.poller.snapshot?.instances.find((i) => i.id === id) ?? (await s.session.client.instances.show(id));
  // A refused destroy (notDone) leaves the node rented, and the flow says so; only an unseen one is unknown.
  return destroyInstance(s.session.client.instances, known, instanceName(known));
}
