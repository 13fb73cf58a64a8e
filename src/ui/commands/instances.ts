import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { destroyInstance, stopInstance, type ActionResult } from '../../core/instances/actions';
import { instancePhase, type InstancePhase } from '../../core/instances/phase';
import { currentRate, instanceLabel, instanceName, presentInstance, startAddsPerHour } from '../../core/instances/present';
import { UnusableSshAddress, sshCommand, sshEndpoint } from '../../core/instances/ssh';
import type { Services } from '../services';
import { InstanceItem } from '../views/instancesView';
import { formatDollars } from '../../core/format';

/** What a command was invoked with: a tree item, an instance id (automation, notifications) or nothing (palette). */
export type Target = InstanceItem | number | undefined;

/** Stop, start, reboot, destroy, label, logs and SSH command: each from the tree or the palette. */
export function registerInstanceCommands(s: Services): vscode.Disposable[] {
  const logChannels = new Map<number, vscode.OutputChannel>();
  return [
    vscode.commands.registerCommand(COMMANDS.stopInstance, (t?: Target) =>
      withTarget(s, t, 'Stop which instance?', ['running', 'loading', 'provisioning', 'rebooting', 'starting'], (i) => stop(s, i)),
    ),
    vscode.commands.registerCommand(COMMANDS.startInstance, (t?: Target) =>
      withTarget(s, t, 'Start which instance?', ['stopped'], (i) => start(s, i)),
    ),
    vscode.commands.registerCommand(COMMANDS.rebootInstance, (t?: Target) =>
      withTarget(s, t, 'Reboot which instance?', ['running'], (i) => reboot(s, i)),
    ),
    vscode.commands.registerCommand(COMMANDS.destroyInstance, (t?: Target) =>
      withTarget(s, t, 'Destroy which instance?', undefined, (i) => destroy(s, i)),
    ),
    vscode.commands.registerCommand(COMMANDS.labelInstance, (t?: Target, label?: unknown) =>
      withTarget(s, t, 'Label which instance?', undefined, (i) => relabel(s, i, label)),
    ),
    vscode.commands.registerCommand(COMMANDS.showInstanceLogs, (t?: Target) =>
      withTarget(s, t, 'Show the logs of which instance?', undefined, (i) => showLogs(s, i, logChannels)),
    ),
    vscode.commands.registerCommand(COMMANDS.copySshCommand, (t?: Target) =>
      withTarget(s, t, 'Copy the SSH command of which instance?', ['running'], (i) => copySsh(i)),
    ),
    { dispose: () => logChannels.forEach((c) => c.dispose()) },
  ];
}

/**
 * Resolves the instance a command acts on. From the palette, a quick pick offers only instances in
 * a phase the command applies to. Errors become messages with a next step.
 */
async function withTarget<T>(
  s: Services,
  target: Target,
  title: string,
  phases: readonly InstancePhase[] | undefined,
  act: (instance: Instance) => Promise<T>,
): Promise<T | undefined> {
  try {
    const instance = await resolveTarget(s, target, title, phases);
    return instance ? await act(instance) : undefined;
  } catch (error) {
    s.showError(error);
    return undefined;
  }
}

export async function resolveTarget(
  s: Services,
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
    void vscode.window.showInformationMessage(`GPU Rental: no instance to act on${phases ? ` (it must be ${phases.join(' or ')})` : ''}.`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((instance) => {
      const p = presentInstance(instance, { nowMs: Date.now() });
      return { label: `$(${p.icon.id.replace('~spin', '')}) ${p.label}`, description: p.description, instance };
    }),
    { title: `GPU Rental: ${title}`, placeHolder: 'Pick an instance' },
  );
  return picked?.instance;
}

async function afterChange(s: Services, id: number, booting: boolean): Promise<void> {
  if (booting) s.boots.track(id);
  else s.poller.watch(id);
  await s.poller.refresh();
}

async function stop(s: Services, i: Instance): Promise<void> {
  const result = await stopInstance(s.session.client.instances, i, instanceName(i));
  await afterChange(s, i.id, false);
  report(s, result);
}

/** Says what a stop or destroy did; an outcome that is not known is a warning that says to check. */
function report(s: Services, result: ActionResult): void {
  const message = `GPU Rental: ${result.message}`;
  if (result.kind === 'done') {
    void vscode.window.showInformationMessage(message);
    return;
  }
  s.logger.warn(message);
  void vscode.window.showWarningMessage(message, 'Refresh').then((choice) => {
    if (choice) void vscode.commands.executeCommand(COMMANDS.refresh);
  });
}

/** Starting resumes GPU billing, so it only ever happens here, on the user's explicit command. */
async function start(s: Services, i: Instance): Promise<void> {
  // The disk already bills; starting adds the rest of the instance's rate.
  const adds = startAddsPerHour(i);
  if (!(await s.spend.allows(s.poller, adds, `started: ${instanceName(i)} adds ${formatDollars(adds)}/h`))) return;
  await s.session.client.instances.start(i.id);
  await afterChange(s, i.id, true);
  const rate = i.dph_total ? ` It bills ${formatDollars(i.dph_total)}/h once running.` : '';
  void vscode.window.showInformationMessage(`GPU Rental: starting ${instanceName(i)}.${rate}`);
}

async function reboot(s: Services, i: Instance): Promise<void> {
  const ok = await s.prompts.confirm(
    `Reboot ${instanceName(i)}?`,
    'Every process on it is stopped and the container restarts. Files on its disk are kept.',
    'Reboot',
  );
  if (!ok) return;
  await s.session.client.instances.reboot(i.id);
  await afterChange(s, i.id, true);
}

async function destroy(s: Services, i: Instance): Promise<boolean> {
  const rate = currentRate(i);
  const billing = rate ? ` Billing (${formatDollars(rate)}/h now) stops.` : ' Billing stops.';
  const ok = await s.prompts.confirm(
    `Destroy ${instanceName(i)}?`,
    `Its disk and every file on it are deleted for good.${billing} This cannot be undone.`,
    'Destroy',
  );
  if (!ok) return false;
  const result = await destroyInstance(s.session.client.instances, i, instanceName(i));
  if (result.kind === 'done') await s.forgetInstance(i.id);
  await s.poller.refresh();
  report(s, result);
  return result.kind === 'done';
}

async function relabel(s: Services, i: Instance, label: unknown): Promise<void> {
  const value =
    typeof label === 'string'
      ? label
      : await vscode.window.showInputBox({
          title: `GPU Rental: Label ${instanceLabel(i)}`,
          value: i.label ?? '',
          prompt: 'A name to recognise the instance by. Leave empty to clear it.',
          validateInput: (v) => (v.length > 1024 ? 'At most 1024 characters.' : undefined),
        });
  if (value === undefined) return;
  await s.session.client.instances.setLabel(i.id, value.trim());
  await s.poller.refresh();
}

async function showLogs(s: Services, i: Instance, channels: Map<number, vscode.OutputChannel>): Promise<string> {
  const text = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `GPU Rental: fetching the log of ${instanceName(i)}…`, cancellable: true },
    (_progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return s.session.client.instances.logs(i.id, { tail: 1000 }, { signal: abort.signal });
    },
  );
  let channel = channels.get(i.id);
  if (!channel) {
    channel = vscode.window.createOutputChannel(`GPU Rental: Instance #${i.id}`);
    channels.set(i.id, channel);
  }
  channel.replace(text || '(the log is empty)');
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
    void vscode.window.showErrorMessage(`GPU Rental: nothing was copied for ${instanceName(i)}. ${error.message}`);
    return undefined;
  }
  if (command === undefined) {
    void vscode.window.showWarningMessage(`GPU Rental: ${instanceName(i)} has no SSH address yet. Wait until it is running.`);
    return undefined;
  }
  await vscode.env.clipboard.writeText(command);
  void vscode.window.showInformationMessage(`GPU Rental: copied "${command}".`);
  return command;
}
