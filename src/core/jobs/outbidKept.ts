/**
 * How a move (outbidMove.ts) ends when it stops part-way, and Destroy New Instance: both instances
 * are kept until the user chooses, and the notice says where the checkpoint is and what each bills.
 */
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { destroyInstance, type ActionResult } from '../instances/actions';
import { instanceName } from '../instances/names';
import { outbidDiskRate } from '../instances/outbid';
import { l10n, sentences } from '../l10n';
import { visibleText } from '../text';
import { errorText, jobNames, type MoveState, type OutbidAction, type OutbidOutcome, type OutbidPolicyDeps } from './outbidPorts';

/** Why the move stopped part-way, and the buttons that notice offers. */
export type Stop = { why: string; actions: OutbidAction[] };

/** The one destroy action; a clear refusal is said, not thrown. */
export async function destroyOne(d: OutbidPolicyDeps, instance: Instance): Promise<ActionResult | { kind: 'refused'; message: string }> {
  const name = instanceName(instance);
  try {
    return await destroyInstance(d.instances, instance, name);
  } catch (error) {
    return {
      kind: 'refused',
      message: l10n.t(
        'the service refused to destroy {0}: {1}. Destroy it from the Instances view once you have checked it.',
        name,
        errorText(error),
      ),
    };
  }
}

export function diskBills(old: Instance): string {
  const disk = outbidDiskRate(old);
  return disk === undefined ? l10n.t('Its disk still bills meanwhile.') : l10n.t('Its disk bills {0}/h meanwhile.', formatDollars(disk));
}

/** Where the checkpoints are: their folders, or the jobs' folders when none had one. */
function checkpointPlaces(move: MoveState): string {
  const withCheckpoint = move.jobs.filter((j) => j.latest);
  return [
    ...new Set(
      (withCheckpoint.length ? withCheckpoint.map((j) => j.checkpointPath) : move.jobs.map((j) => j.jobPath)).map((p) =>
        visibleText(p, 200),
      ),
    ),
  ].join(', ');
}

/** The move stopped part-way: both instances stay; where the checkpoint is, and what the new one costs. */
export function kept(d: OutbidPolicyDeps, move: MoveState, stop: Stop): OutbidOutcome {
  const fresh = move.fresh!;
  const disk = outbidDiskRate(move.old);
  const where =
    disk === undefined
      ? l10n.t(
          'Nothing was destroyed: the checkpoint is on #{0} (stopped, its disk still bills) in {1}.',
          move.old.id,
          checkpointPlaces(move),
        )
      : l10n.t(
          'Nothing was destroyed: the checkpoint is on #{0} (stopped, its disk bills {1}/h) in {2}.',
          move.old.id,
          formatDollars(disk),
          checkpointPlaces(move),
        );
  const costs = l10n.t('The new instance #{0} bills {1}/h while it runs.', fresh.id, formatDollars(fresh.perHour));
  const text = sentences(
    l10n.t('GPU Rental: the move of {0} to #{1} stopped: {2}.', jobNames(move.jobs), fresh.id, stop.why),
    where,
    costs,
  );
  d.logger.warn(text);
  return { kind: 'acted', notice: { severity: 'warning', text, actions: stop.actions }, move };
}

/** Destroy New Instance: asked in a modal, then the one destroy action; the old instance and its checkpoint stay. */
export async function destroyNewInstance(d: OutbidPolicyDeps, move: MoveState): Promise<OutbidOutcome> {
  const fresh = move.fresh;
  if (!fresh)
    return {
      kind: 'acted',
      notice: { severity: 'info', text: l10n.t('GPU Rental: no new instance was rented for this move; there is nothing to destroy.') },
    };
  const instance = await d.instances.show(fresh.id).catch(() => undefined);
  const target: Instance = instance ?? { id: fresh.id, actual_status: null };
  const name = instance ? instanceName(instance) : `#${fresh.id}`;
  const ok = await d.ask.confirm(
    l10n.t('Destroy {0}?', name),
    sentences(
      l10n.t('It was rented to take over {0} from #{1}, which is kept, stopped, with the checkpoint.', jobNames(move.jobs), move.old.id),
      l10n.t('Its disk and every file on it are deleted for good.'),
      l10n.t('This cannot be undone.'),
    ),
    l10n.t('Destroy'),
  );
  if (!ok) return kept(d, move, { why: l10n.t('the new instance was not destroyed, as you chose'), actions: ['retryCopy', 'destroyNew'] });
  const result = await destroyOne(d, target);
  d.logger.info(`Move from #${move.old.id}: destroying the new instance #${fresh.id}: ${result.kind}: ${result.message}`);
  void d.poller.refresh();
  if (result.kind !== 'done')
    return {
      kind: 'acted',
      notice: { severity: 'warning', text: l10n.t('GPU Rental: {0}', result.message), actions: ['destroyNew'] },
      move,
    };
  return {
    kind: 'acted',
    notice: {
      severity: 'info',
      text: sentences(
        l10n.t('GPU Rental: {0}', result.message),
        l10n.t(
          'The checkpoint stays on #{0} in {1}; the service resumes it when its bid is the highest again.',
          move.old.id,
          checkpointPlaces(move),
        ),
        diskBills(move.old),
      ),
    },
  };
}
