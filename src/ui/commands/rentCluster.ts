import * as vscode from 'vscode';
import { COMMANDS, VIEWS } from '../../core/ids';
import { pickCluster } from '../../core/rent/clusterChoice';
import { clusterButtonLabel, type ClusterRentEnd } from '../../core/rent/clusterEnd';
import type { ClusterOffers } from '../../core/rent/clusterPick';
import { clusterRenter } from '../../core/rent/clusterPorts';
import { rentClusterFlow, type ClusterRentDeps } from '../../core/rent/clusterRent';
import { bootOf, clusterOffers, destroyNode, overlayPort } from '../../core/rent/clusterService';
import { notify } from '../pickers/notify';
import { checkClusterHealth } from './health';
import { asker } from '../pickers/prompts';
import { openRentWizard } from '../pickers/rentWizard';
import { command, type CommandDefinition } from '../registry';
import { rentFlowDeps, type RentDeps } from './rent';

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
  // Each running node's health, once, quietly: one summary for the cluster.
  void checkClusterHealth(s, running);
  return running.length ? running : undefined;
}

/** The cluster to rent: the one named (its offers searched fresh), or one picked among a search for clusters. */
async function resolveCluster(s: RentDeps, deps: ClusterRentDeps, target: unknown): Promise<ClusterOffers | undefined> {
  if (isClusterTarget(target))
    return { clusterId: target.clusterId, offers: await clusterOffers(() => s.session.client, target.clusterId) };
  const offers = await clusterOffers(() => s.session.client);
  const picked = await pickCluster(deps.ask, offers);
  if (picked && 'refusal' in picked) {
    void vscode.window.showInformationMessage(picked.refusal);
    return undefined;
  }
  return picked;
}

/** The flow's collaborators, from the window's session, renter, poller and boxes. */
function clusterDeps(s: RentDeps): ClusterRentDeps {
  const rent = rentFlowDeps(s);
  const client = () => s.session.client;
  return {
    ask: asker(s.prompts()),
    unsettled: rent.unsettled,
    credit: rent.credit,
    allowsSpend: rent.allowsSpend,
    idle: rent.idle,
    baseUrl: rent.baseUrl,
    account: rent.account,
    overlays: overlayPort(client),
    renter: clusterRenter(s.renter),
    plan: (offer, credit, nodes) =>
      openRentWizard(s, offer, credit, { clusterNodes: nodes, volumeChoices: undefined }, (notice) => {
        void vscode.window.showWarningMessage(notice.text);
      }),
    boot: (id) => {
      // The cluster's end says how every node's boot went, in one notice.
      s.boots.track(id, { quiet: true });
      return bootOf(s.poller, id);
    },
    destroy: (id) => destroyNode(client, s.poller, id),
    clusterOffers: (id) => clusterOffers(client, id),
  };
}
