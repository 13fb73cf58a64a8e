import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import {
  connectActionLabel,
  handoffFor,
  installedNotice,
  readyHost,
  type ConnectNotice,
  type ConnectOutcome,
  type ReadyDeps,
} from '../../core/ssh/connect';
import type { PreparedHost, SshConnector } from '../../core/ssh/connector';
import type { PortForward, PortForwards } from '../../core/ssh/forward';
import { forwardActionLabel, forwardNotice, forwardPortFlow, type PortPick } from '../../core/ssh/forwardFlow';
import type { SshConfigManager } from '../../core/ssh/manager';
import type { BootStatus } from '../status/bootStatus';
import { notify } from '../pickers/notify';
import { showProgress } from '../pickers/progress';
import { config } from '../host/config';
import { asker, type Prompts } from '../pickers/prompts';
import { editorsRemoteSsh, installedRemoteSsh, setRemotePlatform, type RemoteHandoff } from '../host/remote';
import type { SpendGuard } from '../guards/spendGuard';
import { sshArgsForHost } from '../host/ssh';
import { InstanceItem } from '../views/instancesView';
import type { ShowError } from './errors';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from '../registry';

export type { ConnectOutcome } from '../../core/ssh/connect';

/** What the connect commands use. */
export interface ConnectDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly boots: Pick<BootStatus, 'track'>;
  readonly spend: Pick<SpendGuard, 'allows'>;
  readonly connector: Pick<SshConnector, 'prepare'>;
  readonly forwards: PortForwards;
  /** SSH terminals opened here count as use for the idle guard. */
  readonly terminals: Map<vscode.Terminal, number>;
  readonly sshConfig: () => SshConfigManager;
  /** Getters: integration tests replace the prompts and the handoff at run time. */
  readonly prompts: () => Prompts;
  readonly handoff: () => RemoteHandoff;
  readonly logger: Logger;
  /** Shows a failure here, where the command resolves with an outcome rather than failing. */
  readonly showError: ShowError;
}

/**
 * Connect, the SSH terminal and port forwarding: each from the tree, a notification or the palette.
 * What each asks, waits for and offers is decided in core (core/ssh/connect.ts, forwardFlow.ts).
 */
export function connectCommands(s: ConnectDeps): CommandDefinition[] {
  const connecting = new Set<number>();
  return [
    command(COMMANDS.connect, async (t?: Target): Promise<ConnectOutcome> => {
      const picked = await pick(s, t, vscode.l10n.t('Connect to which instance?'));
      if (!picked) return 'cancelled';
      // The list may be a poll old: a stopped or restarted instance must be seen as it is now.
      const instance = await s.session.client.instances.show(picked.id).catch(() => picked);
      // A second click while the first connect still waits does nothing new.
      if (connecting.has(instance.id)) return 'cancelled';
      connecting.add(instance.id);
      try {
        return await connect(s, instance);
      } finally {
        connecting.delete(instance.id);
      }
    }),
    command(COMMANDS.openSshTerminal, async (t?: Target) => {
      const instance = await pick(s, t, vscode.l10n.t('Open an SSH terminal on which instance?'));
      const ready = instance && (await readyFor(s, instance));
      return ready ? openTerminal(s, ready.instance, ready.host) : undefined;
    }),
    command(COMMANDS.forwardPort, async (t?: Target, port?: unknown) => {
      const instance = await pick(s, t, vscode.l10n.t('Forward a port of which instance?'));
      return instance ? forwardPort(s, instance, port) : undefined;
    }),
  ];
}

async function pick(s: ConnectDeps, t: Target | undefined, title: string): Promise<Instance | undefined> {
  try {
    return await resolveTarget(s, t instanceof InstanceItem || typeof t === 'number' ? t : undefined, title, [
      'running',
      'stopped',
      'provisioning',
      'loading',
      'starting',
      'rebooting',
    ]);
  } catch (error) {
    s.showError(error);
    return undefined;
  }
}

/** The core flow's deps, built at each run: the prompts and the settings may have changed since. */
function readyDeps(s: ConnectDeps): ReadyDeps {
  return {
    ask: asker(s.prompts()),
    instances: s.session.client.instances,
    poller: s.poller,
    spend: (adds, what) => s.spend.allows(s.poller, adds, what),
    boots: s.boots,
    connector: s.connector,
    connectVia: config.sshConnectVia(),
    sshReadyTimeoutSeconds: config.sshReadyTimeoutSeconds(),
    progress: showProgress,
    logger: s.logger,
  };
}

/** The instance ready for ssh, or undefined after saying why not. */
async function readyFor(s: ConnectDeps, instance: Instance): Promise<{ instance: Instance; host: PreparedHost } | undefined> {
  const ready = await readyHost(readyDeps(s), instance);
  if (ready.kind === 'ready') return ready;
  if (ready.kind === 'notice') showNotice(s, ready.instance, ready.notice);
  if (ready.kind === 'error') s.showError(ready.error);
  return undefined;
}

async function connect(s: ConnectDeps, instance: Instance): Promise<ConnectOutcome> {
  const ready = await readyFor(s, instance);
  if (!ready) return 'cancelled';
  const handoff = handoffFor(ready.instance, ready.host, {
    installed: installedRemoteSsh(s.handoff()),
    wanted: editorsRemoteSsh(),
    folder: config.remoteFolder(),
  });
  if (handoff.kind !== 'open') {
    // Not awaited: the terminal is offered at once, whatever the user does with the message.
    showNotice(s, ready.instance, handoff.notice, ready.host);
    return handoff.kind;
  }
  const { extension, alias } = handoff;
  await setRemotePlatform(extension, alias).catch((error: unknown) =>
    s.logger.warn(`Could not set ${extension.section}.remotePlatform: ${String(error)}`),
  );
  s.logger.info(`Opening ${alias} ${handoff.folder ? `at ${handoff.folder}` : '(empty window)'} with ${extension.id}.`);
  if (handoff.folderUri) await s.handoff().openFolder(vscode.Uri.parse(handoff.folderUri), { forceNewWindow: true });
  else await s.handoff().openEmptyWindow(handoff.authority);
  return 'opened';
}

/** Shows a connect notice and does what its button stands for; not awaited by the flow. */
function showNotice(s: ConnectDeps, instance: Instance, notice: ConnectNotice, host?: PreparedHost): void {
  void notify(notice, (a) => connectActionLabel(a, notice)).then(async (action) => {
    switch (action) {
      case 'openInBrowser':
        return void vscode.commands.executeCommand(COMMANDS.openInBrowser, instance.id);
      case 'openTerminal':
        if (host) openTerminal(s, instance, host);
        return;
      case 'copyLines':
        return void (await vscode.env.clipboard.writeText(host?.includeLines ?? ''));
      case 'install':
        await s.handoff().installExtension(notice.install!.id);
        return showNotice(s, instance, installedNotice(notice.install!));
      case 'connect':
      case 'retry':
        return void vscode.commands.executeCommand(COMMANDS.connect, instance.id);
      case 'showLogs':
        return void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, instance.id);
      case 'openSettings':
        return void vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.ssh.identityFile');
      case 'openSshConfig':
        return openConfigAt(s.sshConfig().paths.userConfig, notice.configLine);
      case undefined:
        return;
    }
  });
}

async function openConfigAt(path: string, line: number | undefined): Promise<void> {
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(path));
  if (line) editor.selection = new vscode.Selection(line - 1, 0, line - 1, 0);
}

/** The ssh arguments that reach the alias: the user's config when the Include is in it, else the host file alone. */
export function sshArgsFor(s: ConnectDeps, host: PreparedHost): string[] {
  return sshArgsForHost(host, s.handoff());
}

function openTerminal(s: ConnectDeps, instance: Instance, host: PreparedHost): vscode.Terminal {
  const terminal = vscode.window.createTerminal({
    name: vscode.l10n.t('GPU Rental: {0}', instance.label || `#${instance.id}`),
    shellPath: 'ssh',
    shellArgs: [...sshArgsFor(s, host), host.alias],
    iconPath: new vscode.ThemeIcon('remote'),
  });
  terminal.show();
  s.terminals.set(terminal, instance.id);
  s.logger.info(`Opened an SSH terminal: ssh ${[...sshArgsFor(s, host), host.alias].join(' ')}`);
  return terminal;
}

async function forwardPort(s: ConnectDeps, instance: Instance, given: unknown): Promise<PortForward | undefined> {
  const end = await forwardPortFlow(
    { ...readyDeps(s), pickPort, forwards: s.forwards, sshArgs: (host) => sshArgsFor(s, host) },
    instance,
    given,
  );
  switch (end.kind) {
    case 'forwarded':
      void announceForward(s, end.instance, end.forward);
      return end.forward;
    case 'refused':
      void vscode.window.showErrorMessage(end.message);
      return undefined;
    case 'notice':
      showNotice(s, end.instance, end.notice);
      return undefined;
    case 'error':
      s.showError(end.error);
      return undefined;
    case 'cancelled':
      return undefined;
  }
}

/** A quick pick of common ports that also takes any number typed. */
async function pickPort(p: PortPick): Promise<string | undefined> {
  const quick = vscode.window.createQuickPick();
  quick.title = p.title;
  quick.placeholder = p.placeholder;
  quick.items = p.items;
  const chosen = await new Promise<string | undefined>((resolve) => {
    quick.onDidAccept(() => resolve(quick.selectedItems[0]?.label ?? quick.value));
    quick.onDidHide(() => resolve(undefined));
    quick.show();
  });
  quick.dispose();
  return chosen;
}

async function announceForward(s: ConnectDeps, instance: Instance, forward: PortForward): Promise<void> {
  const choice = await notify(forwardNotice(instance, forward), forwardActionLabel);
  if (choice === 'openBrowser') await vscode.env.openExternal(vscode.Uri.parse(forward.url));
  if (choice === 'copyUrl') await vscode.env.clipboard.writeText(forward.url);
  if (choice === 'stopForwarding') s.forwards.stop(forward);
}
