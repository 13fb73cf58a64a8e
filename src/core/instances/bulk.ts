import type { GpuRentalClient } from '../api/client';
import type { Instance } from '../api/instances';
import { formatBytes, formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import type { Logger } from '../log';
import type { Ask } from '../prompts';
import { destroyInstance, outcomeUnseen, stopInstance, type ActionResult } from './actions';
import type { AfterChange, BeforeDestroy, InstanceNotice, SpendCheck } from './flows';
import { bulkConfirmation, bulkSummary, eachBounded, type BulkAction, type BulkOutcome } from './many';
import { instanceName } from './names';
import { instancePhase } from './phase';

/** At most this many stop, start or destroy requests at once: the service rate-limits a burst. */
export const BULK_PARALLEL = 3;

export interface BulkDeps {
  readonly ask: Ask;
  readonly instances: Pick<GpuRentalClient['instances'], 'stop' | 'start' | 'destroy' | 'show'>;
  readonly spend: SpendCheck;
  readonly after: AfterChange;
  readonly logger: Logger;
  /** Only `measure` is used: a bulk destroy offers no download. */
  readonly beforeDestroy?: Pick<BeforeDestroy, 'measure'>;
}

/** How a bulk action ended: nothing applied (said why), declined or refused by the cap (nothing happened), or acted. */
export type BulkEnd =
  | { kind: 'nothingApplies'; notice: InstanceNotice }
  | { kind: 'declined' }
  | { kind: 'acted'; outcomes: BulkOutcome[]; notice: InstanceNotice };

/**
 * Stop, Start or Destroy on several instances: one confirmation that lists each with what it bills
 * now and after, then each through the same core action as one at a time, then one summary. Start
 * acts on the selected stopped instances only, their total checked against the spend cap first; it
 * never starts one the user did not select.
 */
export async function bulkFlow(s: BulkDeps, action: BulkAction, selected: readonly Instance[]): Promise<BulkEnd> {
  const files = action === 'destroy' ? await filesThatGo(s.beforeDestroy, selected) : { notes: new Map<number, string>(), unchecked: [] };
  const c = bulkConfirmation(action, selected, files.notes, files.unchecked);
  if (c.targets.length === 0)
    return { kind: 'nothingApplies', notice: { severity: 'info', text: noneApplies(action, selected.length, c.detail), actions: [] } };
  if (action === 'start') {
    const what = l10n.t('started: {0} instances add {1}/h together', c.targets.length, formatDollars(c.changePerHour));
    if (!(await s.spend(c.changePerHour, what))) return { kind: 'declined' };
  }
  if (!(await s.ask.confirm(c.message, c.detail, c.action))) return { kind: 'declined' };
  const outcomes = await eachBounded(c.targets, BULK_PARALLEL, (i) => actOn(s, action, i));
  for (const o of outcomes) {
    if (!('result' in o) || o.result.kind !== 'done') continue;
    if (action === 'destroy') await s.after.forget(o.instance.id);
    else if (action === 'start') s.after.track(o.instance.id);
    else s.after.watch(o.instance.id);
  }
  await s.after.refresh();
  const summary = bulkSummary(action, outcomes);
  if (summary.severity === 'info') return { kind: 'acted', outcomes, notice: { ...summary, actions: [] } };
  s.logger.warn(summary.text);
  return { kind: 'acted', outcomes, notice: { ...summary, actions: ['refresh'] } };
}

function noneApplies(action: BulkAction, selected: number, detail: string): string {
  const head =
    action === 'stop'
      ? l10n.t('GPU Rental: none of the {0} selected instances can be stopped now.', selected)
      : action === 'start'
        ? l10n.t('GPU Rental: none of the {0} selected instances can be started now.', selected)
        : l10n.t('GPU Rental: none of the {0} selected instances can be destroyed now.', selected);
  return sentences(head, detail.trim());
}

/** One instance of a bulk action; a clear refusal is its own outcome, so the others still run. */
async function actOn(s: BulkDeps, action: BulkAction, i: Instance): Promise<BulkOutcome> {
  const name = instanceName(i);
  try {
    if (action === 'stop') return { instance: i, result: await stopInstance(s.instances, i, name) };
    if (action === 'destroy') return { instance: i, result: await destroyInstance(s.instances, i, name) };
    return { instance: i, result: await startOne(s, i, name) };
  } catch (error) {
    s.logger.warn(`GPU Rental: ${action} of #${i.id} refused: ${errorText(error)}`);
    return { instance: i, refused: errorText(error) };
  }
}

/** Starts one; an answer not seen is "unknown" (it may bill), never "nothing happened". */
async function startOne(s: BulkDeps, i: Instance, name: string): Promise<ActionResult> {
  try {
    await s.instances.start(i.id);
    return { kind: 'done', message: l10n.t('starting {0}.', name) };
  } catch (error) {
    if (!outcomeUnseen(error)) throw error;
    return {
      kind: 'unknown',
      message: i.dph_total
        ? l10n.t(
            'it is not known whether {0} is starting ({1}); it may bill, billing {2}/h once running.',
            name,
            errorText(error),
            formatDollars(i.dph_total),
          )
        : l10n.t('it is not known whether {0} is starting ({1}); it may bill.', name, errorText(error)),
    };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What each running instance's folder holds, asked of all at once with the short timeout: a bulk destroy offers no download, so it says to destroy that one alone. */
async function filesThatGo(
  before: Pick<BeforeDestroy, 'measure'> | undefined,
  instances: readonly Instance[],
): Promise<{ notes: Map<number, string>; unchecked: number[] }> {
  const notes = new Map<number, string>();
  const unchecked: number[] = [];
  if (!before) return { notes, unchecked };
  await Promise.all(
    instances
      .filter((i) => instancePhase(i) === 'running')
      .map(async (i) => {
        const measured = await before.measure(i);
        if (!measured) unchecked.push(i.id);
        else if (measured.bytes !== undefined)
          notes.set(
            i.id,
            l10n.t('{0} holds {1}: to download it first, destroy this one alone', measured.folder, formatBytes(measured.bytes)),
          );
      }),
  );
  return { notes, unchecked };
}
