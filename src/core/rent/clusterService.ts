/**
 * Rent Cluster's ports made from the service: the overlay routes, the wait for a node's boot, the
 * destroy of a node the flow gives up, and the cluster's offers. The window's command and the tests
 * and benchmarks that rent against the simulator build the flow's collaborators here, so all of
 * them drive the same code.
 */
import type { GpuRentalClient } from '../api/client';
import { writeOutcome } from '../api/errors';
import { clusterFilter } from '../api/offerQuery';
import type { Offer } from '../api/offers';
import { destroyInstance } from '../instances/actions';
import { instanceName } from '../instances/names';
import { phaseText } from '../instances/present';
import type { InstancePoller } from '../instances/poller';
import { untilPhase } from '../instances/untilPhase';
import { l10n } from '../l10n';
import type { BootResult, DestroyResult, OverlayPort } from './clusterPorts';

/** How long a new node may take to run before the cluster rent calls its boot failed. */
export const NODE_BOOT_TIMEOUT_MS = 20 * 60_000;

type Client = Pick<GpuRentalClient, 'clusters' | 'instances' | 'offers'>;

/** The overlay routes through `client`; a failed create is told as refused or unknown (never seen). */
export function overlayPort(client: () => Pick<GpuRentalClient, 'clusters'>): OverlayPort {
  return {
    async createOverlay(clusterId, name) {
      try {
        return { kind: 'created', overlayId: (await client().clusters.createOverlay({ clusterId, name })).overlayId };
      } catch (error) {
        return { kind: writeOutcome(error), message: error instanceof Error ? error.message : String(error) };
      }
    },
    deleteOverlay: (name) => client().clusters.deleteOverlay({ name }),
    async listOverlays() {
      const listed = await client().clusters.overlays();
      return listed.flatMap((o) => (o.name ? [{ overlay_id: o.overlay_id, name: o.name, cluster_id: o.cluster_id }] : []));
    },
  };
}

/**
 * Waits for a new node to run through the poller; a dead end (stopped, failed, gone) or the timeout
 * is a failed boot, with the reason as a clause.
 */
export async function bootOf(
  poller: Pick<InstancePoller, 'onDidUpdate' | 'refresh' | 'watch'>,
  id: number,
  timeoutMs = NODE_BOOT_TIMEOUT_MS,
): Promise<BootResult> {
  const wait = await untilPhase(poller, id, ['running'], { timeoutMs });
  if (wait.outcome === 'reached') return { kind: 'running' };
  if (wait.outcome === 'timedOut')
    return { kind: 'failed', reason: l10n.t('it did not run within {0} minutes', Math.round(timeoutMs / 60_000)) };
  if (wait.outcome === 'cancelled') return { kind: 'failed', reason: l10n.t('the wait for its boot was cancelled') };
  switch (wait.phase) {
    case 'failed':
      return { kind: 'failed', reason: l10n.t('the service reports it failed') };
    case 'gone':
      return { kind: 'failed', reason: l10n.t('it was destroyed before it ran') };
    case 'stopped':
      return { kind: 'failed', reason: l10n.t('it was stopped before it ran') };
    default:
      return { kind: 'failed', reason: l10n.t('it became {0} while booting', phaseText(wait.phase)) };
  }
}

/**
 * Destroys a node the flow gave up, read fresh when the poller does not show it, so its name and rate
 * are current. A refused destroy (notDone) leaves the node rented, and the flow says so; only an
 * unseen one is unknown.
 */
export async function destroyNode(client: () => Client, poller: Pick<InstancePoller, 'snapshot'>, id: number): Promise<DestroyResult> {
  const known = poller.snapshot?.instances.find((i) => i.id === id) ?? (await client().instances.show(id));
  return destroyInstance(client().instances, known, instanceName(known));
}

/** Rentable on-demand offers of one cluster, or of any cluster when `clusterId` is not given. */
export function clusterOffers(client: () => Client, clusterId?: number): Promise<Offer[]> {
  return client().offers.search({
    query: { filters: { cluster_id: clusterFilter(clusterId), rentable: { eq: true } }, order: [], type: 'on-demand' },
    limit: 1000,
  });
}
