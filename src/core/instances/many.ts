import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import type { ActionResult } from './actions';
import { instanceName } from './names';
import { isOutbid } from './outbid';
import { instancePhase, isBooting } from './phase';
import { burnRate, currentRate, startAddsPerHour } from './rates';
import { l10n, sentences } from '../l10n';
import type { Notice } from '../notice';

/** The actions that take several instances at once from the Instances view's selection. */
export type BulkAction = 'stop' | 'start' | 'destroy';

/** Whether `action` applies to the instance in its phase now (the same rule as its menu's `when`). */
export function appliesTo(action: BulkAction, instance: Instance): boolean {
  const phase = instancePhase(instance);
  switch (action) {
    case 'stop':
      return phase === 'running' || isBooting(phase);
    case 'start':
      // An outbid instance does not start until its bid wins: Change Bid is its way back.
      return phase === 'stopped' && !isOutbid(instance);
    case 'destroy':
      return phase !== 'gone';
  }
}

/** The one question asked before acting on several instances. */
export interface BulkConfirmation {
  /** Those the action is taken on, in the order the user sees them. */
  targets: Instance[];
  /** Selected, but the action does not apply to them now: left alone, and named. */
  skipped: Instance[];
  message: string;
  detail: string;
  /** The button. */
  action: string;
  /** What billing changes by, $/h: negative when it falls (stop, destroy), positive for start (checked against the cap). */
  changePerHour: number;
}

const VERB: Record<BulkAction, { button: string; skip: string }> = {
  stop: { button: l10n.t('Stop'), skip: l10n.t('not running, so nothing to stop') },
  start: { button: l10n.t('Start'), skip: l10n.t('only a stopped instance starts; an outbid one waits for its bid') },
  destroy: { button: l10n.t('Destroy'), skip: l10n.t('already gone') },
};

function perHour(rate: number | undefined): string {
  return rate === undefined ? l10n.t('price unknown') : `${formatDollars(rate)}/h`;
}

/**
 * The confirmation for `action` on the selected instances: each with what it bills now and after,
 * and the total that changes. `notes` adds a line under an instance (Destroy: what its folder holds);
 * `unchecked` names, in one line, those whose files could not be checked.
 */
export function bulkConfirmation(
  action: BulkAction,
  selected: readonly Instance[],
  notes: ReadonlyMap<number, string> = new Map(),
  unchecked: readonly number[] = [],
): BulkConfirmation {
  const targets = selected.filter((i) => appliesTo(action, i));
  const skipped = selected.filter((i) => !appliesTo(action, i));
  const n = targets.length;
  const them = n === 1 ? l10n.t('this instance') : l10n.t('these {0} instances', n);
  const lines: string[] = [];
  let now = 0;
  let after = 0;
  for (const i of targets) {
    const rate = currentRate(i);
    const disk = i.storage_total_cost ?? undefined;
    now += rate ?? 0;
    let line: string;
    if (action === 'stop') {
      after += disk ?? 0;
      line = l10n.t(
        '{0}: {1} now → {2} for its disk',
        instanceName(i),
        perHour(rate),
        disk === undefined ? l10n.t('its disk') : `${formatDollars(disk)}/h`,
      );
    } else if (action === 'start') {
      const running = i.dph_total ?? undefined;
      after += running ?? (rate ?? 0) + startAddsPerHour(i);
      line = l10n.t('{0}: {1} now (disk) → {2} running', instanceName(i), perHour(rate), perHour(running));
    } else {
      line = l10n.t('{0}: {1} now → nothing', instanceName(i), perHour(rate));
    }
    const note = notes.get(i.id);
    lines.push(`• ${line}${note ? `\n   ${note}` : ''}`);
  }
  let summary: string;
  if (action === 'stop') {
    summary = l10n.t(
      'GPU billing ends; disks still bill {0}/h until destroyed ({1}/h now). Files on the disks are kept.',
      formatDollars(after),
      formatDollars(now),
    );
  } else if (action === 'destroy') {
    summary = l10n.t(
      '{0} deleted for good, with every file on them; {1}/h stops. This cannot be undone.',
      n === 1 ? l10n.t('This instance and its disk are') : l10n.t('These {0} instances and their disks are', n),
      formatDollars(now),
    );
  } else {
    summary = l10n.t(
      'Together they will bill {0}/h once running ({1}/h now for their disks), {2}/h more.',
      formatDollars(after),
      formatDollars(now),
      formatDollars(after - now),
    );
  }
  const notChecked = targets.filter((i) => unchecked.includes(i.id));
  if (notChecked.length)
    lines.push(
      '',
      l10n.t(
        '{0} could not be checked over SSH (no answer within seconds, or no SSH key on this machine).',
        notChecked.length === targets.length
          ? n === 1
            ? l10n.t('Its files')
            : l10n.t('Their files')
          : l10n.t('The files of {0}', notChecked.map(instanceName).join(', ')),
      ),
    );
  if (skipped.length)
    lines.push(
      '',
      l10n.t('Left alone ({0}): {1}.', VERB[action].skip, skipped.map((i) => `${instanceName(i)}, ${instancePhase(i)}`).join('; ')),
    );
  return {
    targets,
    skipped,
    message: `${VERB[action].button} ${them}?`,
    detail: [...lines, '', summary].join('\n'),
    action: n === 1 ? VERB[action].button : `${VERB[action].button} ${n}`,
    changePerHour: action === 'start' ? after - now : action === 'stop' ? after - now : -now,
  };
}

/** What became of one instance in a bulk action: an ActionResult, or an error refused outright (nothing happened). */
export type BulkOutcome = { instance: Instance; result: ActionResult } | { instance: Instance; refused: string };

/** The one message after a bulk action: "3 destroyed.", or which failed or are unknown and what to do. */
export interface BulkSummary extends Notice {
  /** `info` when every one was done. */
  readonly severity: 'info' | 'warning';
}

export function bulkSummary(action: BulkAction, outcomes: readonly BulkOutcome[]): BulkSummary {
  const done: Instance[] = [];
  const unknown: string[] = [];
  const failed: string[] = [];
  for (const o of outcomes) {
    if ('refused' in o) failed.push(`${instanceName(o.instance)}: ${o.refused}`);
    else if (o.result.kind === 'done') done.push(o.instance);
    // Named only: each unknown's own message would repeat "refresh to check" once per instance.
    else if (o.result.kind === 'unknown') unknown.push(instanceName(o.instance));
    else failed.push(o.result.message);
  }
  const n = done.length;
  const head =
    n === 0
      ? action === 'stop'
        ? l10n.t('none stopped')
        : action === 'start'
          ? l10n.t('none started')
          : l10n.t('none destroyed')
      : action === 'stop'
        ? l10n.t('{0} stopping', n)
        : action === 'start'
          ? l10n.t('{0} starting', n)
          : l10n.t('{0} destroyed', n);
  if (!unknown.length && !failed.length) {
    const tail =
      action === 'stop'
        ? l10n.t(
            'Their disks still bill {0}/h until you destroy them.',
            formatDollars(done.reduce((t, i) => t + (i.storage_total_cost ?? 0), 0)),
          )
        : action === 'start' && l10n.t('The status bar shows them booting.');
    return { severity: 'info', text: sentences(l10n.t('GPU Rental: {0}.', head), tail) };
  }
  const parts = [l10n.t('GPU Rental: {0}', head)];
  if (failed.length) parts.push(l10n.t('{0} failed ({1})', failed.length, failed.join(' ')));
  if (unknown.length)
    parts.push(
      unknown.length === 1
        ? l10n.t('1 unknown ({0}: neither the answer nor a second look came back, so it may still bill)', unknown[0]!)
        : l10n.t(
            '{0} unknown ({1}: neither the answer nor a second look came back, so they may still bill)',
            unknown.length,
            unknown.join(', '),
          ),
    );
  const next = unknown.length
    ? l10n.t('Refresh the Instances view to see what really happened before trying again.')
    : l10n.t('Try the failed ones again from the Instances view.');
  return { severity: 'warning', text: sentences(`${parts.join('; ')}.`, next) };
}

/**
 * Runs `act` on each item, at most `limit` at a time (the service rate-limits a burst), in order;
 * the results keep the items' order. `act` never throws here: each outcome is its own.
 */
export async function eachBounded<T, R>(items: readonly T[], limit: number, act: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await act(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** The Instances view's header: the container's badge (running instances) and the total $/h. */
export interface ViewSummary {
  running: number;
  /** "2 running instances"; undefined with none (no badge). */
  badgeTooltip: string | undefined;
  /** The total $/h, running and stopped disks, as the account status bar counts it; undefined when nothing bills. */
  description: string | undefined;
}

export function viewSummary(instances: readonly Instance[]): ViewSummary {
  const running = instances.filter((i) => instancePhase(i) === 'running').length;
  const total = burnRate(instances).perHour;
  return {
    running,
    badgeTooltip: running === 0 ? undefined : running === 1 ? l10n.t('1 running instance') : l10n.t('{0} running instances', running),
    description: total > 0 ? `${formatDollars(total)}/h` : undefined,
  };
}
