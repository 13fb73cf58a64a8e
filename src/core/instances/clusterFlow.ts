import type { ClustersApi } from '../api/clusters';
import { ApiError } from '../api/errors';
import { l10n, sentences } from '../l10n';
import type { Ask } from '../prompts';
import { bulkFlow, type BulkDeps } from './bulk';
import type { ClusterGroup } from './cluster';
import type { InstanceAction, InstanceNotice } from './flows';
import { appliesTo, type BulkAction, type BulkOutcome } from './many';

/**
 * Stop, Start or Destroy on a cluster row: all its nodes with one confirmation, through the
 * several-instances flow (bulk.ts), so each node's truth is reported on its own. Destroy then
 * deletes the overlay network, but only once every node was seen destroyed and the overlay lists no
 * instance the account does not show; a delete whose answer was not seen is said to be unknown.
 */
export interface ClusterFlowDeps extends BulkDeps {
  readonly overlays: Pick<ClustersApi, 'deleteOverlay'>;
}

/** What became of the overlay network after a Destroy. */
export type OverlayEnd = 'deleted' | 'kept' | 'refused' | 'unknown';

export type ClusterEnd =
  | { kind: 'nothingApplies'; notice: InstanceNotice }
  | { kind: 'declined' }
  | { kind: 'acted'; outcomes: BulkOutcome[]; overlay?: OverlayEnd; notice: InstanceNotice };

export async function clusterFlow(s: ClusterFlowDeps, action: BulkAction, cluster: ClusterGroup): Promise<ClusterEnd> {
  const { label } = cluster;
  if (action === 'destroy' && cluster.nodes.length === 0) return deleteEmpty(s, cluster);
  if (!cluster.nodes.some((i) => appliesTo(action, i))) {
    const text =
      action === 'stop'
        ? l10n.t('GPU Rental: no node of the cluster "{0}" is running or booting, so there is nothing to stop.', label)
        : l10n.t('GPU Rental: no node of the cluster "{0}" is stopped, so there is nothing to start.', label);
    return { kind: 'nothingApplies', notice: { severity: 'info', text, actions: [] } };
  }
  const extra: string[] = [];
  if (cluster.missing.length) extra.push(missingLine(cluster));
  if (action === 'destroy')
    extra.push(
      cluster.missing.length
        ? l10n.t('Its overlay network "{0}" is kept while it lists an instance your account does not show.', label)
        : l10n.t('Then its overlay network "{0}" is deleted.', label),
    );
  const end = await bulkFlow({ ...s, ask: titled(s.ask, question(action, label), extra) }, action, cluster.nodes);
  if (end.kind !== 'acted' || action !== 'destroy') return end;

  const allGone = end.outcomes.length === cluster.nodes.length && end.outcomes.every((o) => 'result' in o && o.result.kind === 'done');
  if (!allGone || cluster.missing.length) {
    const why = cluster.missing.length
      ? l10n.t('Its overlay network "{0}" is kept: it lists an instance your account does not show.', label)
      : l10n.t('Its overlay network "{0}" is kept while a node may still be in it.', label);
    s.logger.info(
      `GPU Rental: overlay ${cluster.overlayId} kept (${allGone ? 'it lists instances the account does not show' : 'a node may remain'}).`,
    );
    return { ...end, overlay: 'kept', notice: { ...end.notice, text: sentences(end.notice.text, why) } };
  }
  const overlay = await deleteOverlay(s, cluster);
  return { ...end, overlay: overlay.end, notice: joined(end.notice, overlay.notice) };
}

function question(action: BulkAction, label: string): string {
  switch (action) {
    case 'stop':
      return l10n.t('Stop the cluster "{0}"?', label);
    case 'start':
      return l10n.t('Start the cluster "{0}"?', label);
    case 'destroy':
      return l10n.t('Destroy the cluster "{0}"?', label);
  }
}

function missingLine(cluster: ClusterGroup): string {
  return l10n.t(
    "Its overlay network also lists {0}, not among your account's instances: left alone.",
    cluster.missing.map((id) => `#${id}`).join(', '),
  );
}

/** The bulk flow's one confirmation, worded for the cluster: its question, and what happens besides the nodes. */
function titled(ask: Ask, message: string, extra: readonly string[]): Ask {
  return {
    confirm: (_message, detail, action) => ask.confirm(message, [detail, ...extra].join('\n\n'), action),
    countdown: (m, seconds, cancel) => ask.countdown(m, seconds, cancel),
    input: (options) => ask.input(options),
    choose: (m, detail, actions) => ask.choose(m, detail, actions),
    pick: (options) => ask.pick(options),
  };
}

/** Deletes the overlay network, then lists the instances again so the row goes. */
async function deleteOverlay(s: ClusterFlowDeps, cluster: ClusterGroup): Promise<{ end: OverlayEnd; notice: InstanceNotice }> {
  const { label } = cluster;
  try {
    await s.overlays.deleteOverlay({ overlayId: cluster.overlayId });
    s.logger.info(`GPU Rental: overlay ${cluster.overlayId} deleted.`);
    await s.after.refresh();
    return { end: 'deleted', notice: { severity: 'info', text: l10n.t('Its overlay network "{0}" is deleted.', label), actions: [] } };
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    const outcome = deleteOutcome(error);
    s.logger.warn(`GPU Rental: delete of overlay ${cluster.overlayId} ${outcome}: ${problem}`);
    await s.after.refresh();
    const text =
      outcome === 'unknown'
        ? l10n.t(
            'It is not known whether its overlay network "{0}" was deleted ({1}): refresh the Instances view to see whether it is still there.',
            label,
            problem,
          )
        : l10n.t('Its overlay network "{0}" was not deleted ({1}): Destroy on its row in the Instances view tries again.', label, problem);
    return { end: outcome, notice: { severity: 'warning', text, actions: ['refresh'] } };
  }
}

/** A cluster row with no node left: Destroy deletes its overlay network, after asking. */
async function deleteEmpty(s: ClusterFlowDeps, cluster: ClusterGroup): Promise<ClusterEnd> {
  const { label } = cluster;
  if (cluster.missing.length)
    return {
      kind: 'nothingApplies',
      notice: {
        severity: 'warning',
        text: sentences(
          l10n.t('GPU Rental: the overlay network "{0}" is kept: it lists an instance your account does not show.', label),
          missingLine(cluster),
          l10n.t('Refresh the Instances view; if the instance appears, destroy it first.'),
        ),
        actions: ['refresh'],
      },
    };
  const confirmed = await s.ask.confirm(
    l10n.t('Delete the overlay network "{0}"?', label),
    l10n.t('No instance of yours is in it any more. Deleting it changes no instance.'),
    l10n.t('Delete'),
  );
  if (!confirmed) return { kind: 'declined' };
  const overlay = await deleteOverlay(s, cluster);
  return {
    kind: 'acted',
    outcomes: [],
    overlay: overlay.end,
    notice: { ...overlay.notice, text: sentences(l10n.t('GPU Rental: the cluster "{0}" had no node left.', label), overlay.notice.text) },
  };
}

/**
 * `writeOutcome` of api/clusters.ts, without importing that module at run time: the Instances
 * commands load at activation, which must not reach zod (test/unit/activationPath.test.ts). Only a
 * clear refusal is "refused"; anything else may have been done.
 */
function deleteOutcome(error: unknown): 'refused' | 'unknown' {
  return error instanceof ApiError && !error.outcomeUnknown ? 'refused' : 'unknown';
}

/** One notice from two: the louder severity, both texts, every button once. */
function joined(a: InstanceNotice, b: InstanceNotice): InstanceNotice {
  const severity =
    a.severity === 'error' || b.severity === 'error' ? 'error' : a.severity === 'warning' || b.severity === 'warning' ? 'warning' : 'info';
  const actions = [...new Set<InstanceAction>([...a.actions, ...b.actions])];
  return { severity, text: sentences(a.text, b.text), actions };
}
