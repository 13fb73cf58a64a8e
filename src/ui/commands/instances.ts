import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { destroyInstance, outcomeUnseen, stopInstance, type ActionResult } from '../../core/instances/actions';
import { bulkConfirmation, bulkSummary, eachBounded, type BulkAction, type BulkOutcome } from '../../core/instances/many';
import { instancePhase, type InstancePhase } from '../../core/instances/phase';
import { instanceLabel, instanceName } from '../../core/instances/names';
import { presentInstance } from '../../core/instances/present';
import { currentRate, startAddsPerHour } from '../../core/instances/rates';
import { UnusableSshAddress, sshCommand, sshEndpoint } from '../../core/instances/ssh';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { InstanceCleanup } from '../../core/ssh/instanceCleanup';
import type { BootStatus } from '../bootStatus';
import { chooseOf, type Prompts } from '../prompts';
import type { SpendGuard } from '../spendGuard';
import { command, type CommandDefinition } from './registry';
import { InstanceItem } from '../views/instancesView';
import { formatDollars } from '../../core/format';
import { formatBytes } from '../../core/transfer/progress';
import { sentences } from '../../core/l10n';

/** What a command was invoked with: a tree item, an instance id (automation, notifications) or nothing (palette). */
export type Target = InstanceItem | number | undefined;

/** What resolving a command's instance needs: the last list, or the service. */
export interface TargetDeps {
  readonly session: Pick<Session, 'client'>;
  readonly poller: Pick<InstancePoller, 'snapshot' | 'refresh'>;
}

/** What the instance commands use. */
export interface InstanceDeps extends TargetDeps {
  readonly poller: InstancePoller;
  readonly boots: Pick<BootStatus, 'track'>;
  readonly spend: Pick<SpendGuard, 'allows'>;
  readonly cleanup: Pick<InstanceCleanup, 'forgetInstance'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
  readonly logChannels: InstanceLogChannels;
  /** What the destroy confirmation asks the instance before it deletes its disk (ui/commands/transfer.ts). */
  readonly beforeDestroy?: BeforeDestroy;
  /** The instance this window is connected to through Remote-SSH, if any (src/ui/remoteWindow.ts). */
  readonly windowInstance?: () => number | undefined;
}

/**
 * Destroy never loses work silently: how much the instance's folder holds, asked with a short
 * timeout, and a download of it offered first.
 */
export interface BeforeDestroy {
  /** The folder and its bytes (undefined when missing); undefined when the instance did not answer in time. */
  measure(instance: Instance): Promise<{ folder: string; bytes: number | undefined } | undefined>;
  /** Downloads the folder; true when it arrived completely. */
  download(instance: Instance, folder: string): Promise<boolean>;
}

/** One output channel per instance for its log, reused each time it is shown; disposed with the extension. */
export class InstanceLogChannels implements vscode.Disposable {
  private readonly channels = new Map<number, vscode.OutputChannel>();

  for(id: number): vscode.OutputChannel {
    let channel = this.channels.get(id);
    if (!channel) {
      channel = vscode.window.createOutputChannel(vscode.l10n.t('GPU Rental: Instance #{0}', id));
      this.channels.set(id, channel);
    }
    return channel;
  }

  dispose(): void {
    this.channels.forEach((c) => c.dispose());
  }
}

/** Stop, start, reboot, destroy, label, logs and SSH command: each from the tree or the palette. */
export function instanceCommands(s: InstanceDeps): CommandDefinition[] {
  return [
    command(COMMANDS.stopInstance, (t?: Target, selected?: unknown) =>
      several(t, selected)
        ? bulk(s, 'stop', several(t, selected)!)
        : withTarget(s, t, vscode.l10n.t('Stop which instance?'), ['running', 'loading', 'provisioning', 'rebooting', 'starting'], (i) =>
            stop(s, i),
          ),
    ),
    command(COMMANDS.startInstance, (t?: Target, selected?: unknown) =>
      several(t, selected)
        ? bulk(s, 'start', several(t, selected)!)
        : withTarget(s, t, vscode.l10n.t('Start which instance?'), ['stopped'], (i) => start(s, i)),
    ),
    command(COMMANDS.rebootInstance, (t?: Target) =>
      withTarget(s, t, vscode.l10n.t('Reboot which instance?'), ['running'], (i) => reboot(s, i)),
    ),
    command(COMMANDS.destroyInstance, (t?: Target, selected?: unknown) =>
      several(t, selected)
        ? bulk(s, 'destroy', several(t, selected)!)
        : withTarget(s, t, vscode.l10n.t('Destroy which instance?'), undefined, (i) => destroy(s, i)),
    ),
    command(COMMANDS.labelInstance, (t?: Target, label?: unknown) =>
      withTarget(s, t, vscode.l10n.t('Label which instance?'), undefined, (i) => relabel(s, i, label)),
    ),
    command(COMMANDS.showInstanceLogs, (t?: Target) =>
      withTarget(s, t, vscode.l10n.t('Show the logs of which instance?'), undefined, (i) => showLogs(s, i)),
    ),
    command(COMMANDS.copySshCommand, (t?: Target) =>
      withTarget(s, t, vscode.l10n.t('Copy the SSH command of which instance?'), ['running'], (i) => copySsh(i)),
    ),
  ];
}

/**
 * The instances of a multi-selection, when the command came from the tree with several selected
 * (VS Code passes the clicked item and the selection). A click outside the selection acts on the
 * clicked item alone, as does a selection of one; job rows in the selection are not instances.
 */
function several(target: Target, selected: unknown): Instance[] | undefined {
  if (!(target instanceof InstanceItem) || !Array.isArray(selected)) return undefined;
  const items = selected.filter((x): x is InstanceItem => x instanceof InstanceItem);
  if (items.length < 2 || !items.some((x) => x.instance.id === target.instance.id)) return undefined;
  return items.map((x) => x.instance);
}

/** At most this many stop, start or destroy requests at once: the service rate-limits a burst. */
const BULK_PARALLEL = 3;

/**
 * Stop, Start or Destroy on several instances: one confirmation that lists each with what it bills
 * now and after, then each through the same core action as one at a time, then one summary. Start
 * acts on the selected stopped instances only, their total checked against the spend cap first.
 */
async function bulk(s: InstanceDeps, action: BulkAction, selected: readonly Instance[]): Promise<BulkOutcome[]> {
  // The rows may be a poll old: the latest list says what each bills now.
  const latest = selected.map((i) => s.poller.snapshot?.instances.find((x) => x.id === i.id) ?? i);
  const files = action === 'destroy' ? await filesThatGo(s, latest) : { notes: new Map<number, string>(), unchecked: [] };
  const c = bulkConfirmation(action, latest, files.notes, files.unchecked);
  if (c.targets.length === 0) {
    void vscode.window.showInformationMessage(
      sentences(
        action === 'stop'
          ? vscode.l10n.t('GPU Rental: none of the {0} selected instances can be stopped now.', latest.length)
          : action === 'start'
            ? vscode.l10n.t('GPU Rental: none of the {0} selected instances can be started now.', latest.length)
            : vscode.l10n.t('GPU Rental: none of the {0} selected instances can be destroyed now.', latest.length),
        c.detail.trim(),
      ),
    );
    return [];
  }
  if (action === 'start') {
    const what = vscode.l10n.t('started: {0} instances add {1}/h together', c.targets.length, formatDollars(c.changePerHour));
    if (!(await s.spend.allows(s.poller, c.changePerHour, what))) return [];
  }
  if (!(await s.prompts().confirm(c.message, c.detail, c.action))) return [];
  const outcomes = await eachBounded(c.targets, BULK_PARALLEL, (i) => actOn(s, action, i));
  for (const o of outcomes) {
    if (!('result' in o) || o.result.kind !== 'done') continue;
    if (action === 'destroy') await s.cleanup.forgetInstance(o.instance.id);
    else if (action === 'start') s.boots.track(o.instance.id);
    else s.poller.watch(o.instance.id);
  }
  await s.poller.refresh();
  const summary = bulkSummary(action, outcomes);
  if (summary.level === 'info') void vscode.window.showInformationMessage(summary.message);
  else {
    s.logger.warn(summary.message);
    void vscode.window.showWarningMessage(summary.message, vscode.l10n.t('Refresh')).then((choice) => {
      if (choice) void vscode.commands.executeCommand(COMMANDS.refresh);
    });
  }
  return outcomes;
}

/** One instance of a bulk action; a clear refusal is its own outcome, so the others still run. */
async function actOn(s: InstanceDeps, action: BulkAction, i: Instance): Promise<BulkOutcome> {
  const name = instanceName(i);
  try {
    if (action === 'stop') return { instance: i, result: await stopInstance(s.session.client.instances, i, name) };
    if (action === 'destroy') return { instance: i, result: await destroyInstance(s.session.client.instances, i, name) };
    try {
      await s.session.client.instances.start(i.id);
      return { instance: i, result: { kind: 'done', message: vscode.l10n.t('starting {0}.', name) } };
    } catch (error) {
      if (!outcomeUnseen(error)) throw error;
      return {
        instance: i,
        result: {
          kind: 'unknown',
          message: i.dph_total
            ? vscode.l10n.t(
                'it is not known whether {0} is starting ({1}); it may bill, billing {2}/h once running.',
                name,
                errorText(error),
                formatDollars(i.dph_total),
              )
            : vscode.l10n.t('it is not known whether {0} is starting ({1}); it may bill.', name, errorText(error)),
        },
      };
    }
  } catch (error) {
    s.logger.warn(`GPU Rental: ${action} of #${i.id} refused: ${errorText(error)}`);
    return { instance: i, refused: errorText(error) };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What each running instance's folder holds, asked of all at once with the short timeout: a bulk destroy offers no download, so it says to destroy that one alone. */
async function filesThatGo(s: InstanceDeps, instances: readonly Instance[]): Promise<{ notes: Map<number, string>; unchecked: number[] }> {
  const notes = new Map<number, string>();
  const unchecked: number[] = [];
  if (!s.beforeDestroy) return { notes, unchecked };
  const measure = s.beforeDestroy.measure.bind(s.beforeDestroy);
  await Promise.all(
    instances
      .filter((i) => instancePhase(i) === 'running')
      .map(async (i) => {
        const measured = await measure(i);
        if (!measured) unchecked.push(i.id);
        else if (measured.bytes !== undefined)
          notes.set(
            i.id,
            vscode.l10n.t('{0} holds {1}: to download it first, destroy this one alone', measured.folder, formatBytes(measured.bytes)),
          );
      }),
  );
  return { notes, unchecked };
}

/**
 * Resolves the instance a command acts on, then acts. From the palette, a quick pick offers only
 * instances in a phase the command applies to. Errors escape to the command guard.
 */
async function withTarget<T>(
  s: TargetDeps,
  target: Target,
  title: string,
  phases: readonly InstancePhase[] | undefined,
  act: (instance: Instance) => Promise<T>,
): Promise<T | undefined> {
  const instance = await resolveTarget(s, target, title, phases);
  return instance ? await act(instance) : undefined;
}

export async function resolveTarget(
  s: TargetDeps,
  target: Target,
  title: string,
  phases: readonly InstancePhase[] | undefined,
): Promise<Instance | undefined> {
  if (target instanceof InstanceItem) return target.instance;
  if (typeof target === 'number') {
    return s.poller.snapshot?.instances.find((i) => i.id === target) ?? (await s.session.client.instances.show(target));
  }
  await s.poller.refresh();
  const candidates = (s.poller.snapshot?.instances ?? []).filter((i) => !phases || phases.includes(instancePhase(i)));
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(
      !phases
        ? vscode.l10n.t('GPU Rental: no instance to act on.')
        : phases.length === 1
          ? vscode.l10n.t('GPU Rental: no instance to act on (it must be {0}).', phases[0]!)
          : vscode.l10n.t('GPU Rental: no instance to act on (it must be one of: {0}).', phases.join(', ')),
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((instance) => {
      const p = presentInstance(instance, { nowMs: Date.now() });
      return { label: `$(${p.icon.id.replace('~spin', '')}) ${p.label}`, description: p.description, instance };
    }),
    { title: vscode.l10n.t('GPU Rental: {0}', title), placeHolder: vscode.l10n.t('Pick an instance') },
  );
  return picked?.instance;
}

async function afterChange(s: Pick<InstanceDeps, 'boots' | 'poller'>, id: number, booting: boolean): Promise<void> {
  if (booting) s.boots.track(id);
  else s.poller.watch(id);
  await s.poller.refresh();
}

async function stop(s: InstanceDeps, i: Instance): Promise<void> {
  const result = await stopInstance(s.session.client.instances, i, instanceName(i));
  await afterChange(s, i.id, false);
  report(s, result);
}

/** Says what a stop or destroy did; an outcome that is not known is a warning that says to check. */
function report(s: InstanceDeps, result: ActionResult): void {
  const message = vscode.l10n.t('GPU Rental: {0}', result.message);
  if (result.kind === 'done') {
    void vscode.window.showInformationMessage(message);
    return;
  }
  s.logger.warn(message);
  void vscode.window.showWarningMessage(message, vscode.l10n.t('Refresh')).then((choice) => {
    if (choice) void vscode.commands.executeCommand(COMMANDS.refresh);
  });
}

/** Starting resumes GPU billing, so it only ever happens here, on the user's explicit command. */
async function start(s: InstanceDeps, i: Instance): Promise<void> {
  // The disk already bills; starting adds the rest of the instance's rate.
  const adds = startAddsPerHour(i);
  if (!(await s.spend.allows(s.poller, adds, vscode.l10n.t('started: {0} adds {1}/h', instanceName(i), formatDollars(adds))))) return;
  await s.session.client.instances.start(i.id);
  await afterChange(s, i.id, true);
  void vscode.window.showInformationMessage(
    i.dph_total
      ? vscode.l10n.t('GPU Rental: starting {0}. It bills {1}/h once running.', instanceName(i), formatDollars(i.dph_total))
      : vscode.l10n.t('GPU Rental: starting {0}.', instanceName(i)),
  );
}

async function reboot(s: InstanceDeps, i: Instance): Promise<void> {
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Reboot {0}?', instanceName(i)),
      vscode.l10n.t('Every process on it is stopped and the container restarts. Files on its disk are kept.'),
      vscode.l10n.t('Reboot'),
    );
  if (!ok) return;
  await s.session.client.instances.reboot(i.id);
  await afterChange(s, i.id, true);
}

async function destroy(s: InstanceDeps, i: Instance): Promise<boolean> {
  const rate = currentRate(i);
  const billing = rate ? vscode.l10n.t('Billing ({0}/h now) stops.', formatDollars(rate)) : vscode.l10n.t('Billing stops.');
  for (;;) {
    const data = await whatGoes(s, i);
    // Destroying the machine this window runs on ends the window's connection too: said before it happens.
    const here = s.windowInstance?.() === i.id && vscode.l10n.t('This window is connected to it and loses its connection.');
    const detail = sentences(
      data.text,
      vscode.l10n.t('Its disk and every file on it are deleted for good.'),
      billing,
      here,
      vscode.l10n.t('This cannot be undone.'),
    );
    const prompts = s.prompts();
    if (!data.folder) {
      if (!(await prompts.confirm(vscode.l10n.t('Destroy {0}?', instanceName(i)), detail, vscode.l10n.t('Destroy')))) return false;
      break;
    }
    const destroy = vscode.l10n.t('Destroy');
    const actions = [vscode.l10n.t('Download First'), destroy];
    // Prompts that answer confirmations only (tests) are asked the last action, Destroy, alone.
    const choice = await chooseOf(prompts)(vscode.l10n.t('Destroy {0}?', instanceName(i)), detail, actions);
    if (choice === destroy) break;
    if (choice !== vscode.l10n.t('Download First')) return false;
    // Whatever the download did, the user is asked again: a failed download must not lead to a destroy.
    await s.beforeDestroy!.download(i, data.folder);
  }
  const result = await destroyInstance(s.session.client.instances, i, instanceName(i));
  if (result.kind === 'done') await s.cleanup.forgetInstance(i.id);
  await s.poller.refresh();
  report(s, result);
  return result.kind === 'done';
}

/**
 * What the confirmation says about the files that go with the instance: the size of its folder
 * when a running instance answers within seconds, else why it could not be checked.
 */
async function whatGoes(s: InstanceDeps, i: Instance): Promise<{ text: string; folder?: string }> {
  if (!s.beforeDestroy) return { text: '' };
  const phase = instancePhase(i);
  if (phase !== 'running') {
    return { text: vscode.l10n.t('Its files could not be checked: the instance is {0}, so it has no address to ask.', phase) };
  }
  const measured = await s.beforeDestroy.measure(i);
  if (!measured)
    return { text: vscode.l10n.t('Its files could not be checked over SSH (no answer within 5 seconds, or no SSH key on this machine).') };
  if (measured.bytes === undefined) return { text: vscode.l10n.t('{0} does not exist on it.', measured.folder) };
  return {
    text: vscode.l10n.t('{0} holds {1} that goes with the instance.', measured.folder, formatBytes(measured.bytes)),
    folder: measured.folder,
  };
}

async function relabel(s: InstanceDeps, i: Instance, label: unknown): Promise<void> {
  const value =
    typeof label === 'string'
      ? label
      : await vscode.window.showInputBox({
          title: vscode.l10n.t('GPU Rental: Label {0}', instanceLabel(i)),
          value: i.label ?? '',
          prompt: vscode.l10n.t('A name to recognise the instance by. Leave empty to clear it.'),
          validateInput: (v) => (v.length > 1024 ? vscode.l10n.t('At most 1024 characters.') : undefined),
        });
  if (value === undefined) return;
  await s.session.client.instances.setLabel(i.id, value.trim());
  await s.poller.refresh();
}

async function showLogs(s: InstanceDeps, i: Instance): Promise<string> {
  const text = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('GPU Rental: fetching the log of {0}…', instanceName(i)),
      cancellable: true,
    },
    (_progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return s.session.client.instances.logs(i.id, { tail: 1000 }, { signal: abort.signal });
    },
  );
  const channel = s.logChannels.for(i.id);
  channel.replace(text || vscode.l10n.t('(the log is empty)'));
  channel.show(true);
  return text;
}

async function copySsh(i: Instance): Promise<string | undefined> {
  // The address comes from the service: it is checked and quoted before it reaches the clipboard
  // (and from there a shell); a bad one is named instead of copied.
  let command: string | undefined;
  try {
    const endpoint = sshEndpoint(i);
    command = endpoint && sshCommand(endpoint);
  } catch (error) {
    if (!(error instanceof UnusableSshAddress)) throw error;
    void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: nothing was copied for {0}. {1}', instanceName(i), error.message));
    return undefined;
  }
  if (command === undefined) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('GPU Rental: {0} has no SSH address yet. Wait until it is running.', instanceName(i)),
    );
    return undefined;
  }
  await vscode.env.clipboard.writeText(command);
  void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: copied "{0}".', command));
  return command;
}
