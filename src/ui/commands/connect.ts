import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { untilPhase } from '../../core/instances/untilPhase';
import { instancePhase, isBooting } from '../../core/instances/phase';
import { instanceName, startAddsPerHour } from '../../core/instances/present';
import { SshConfigError } from '../../core/ssh/config';
import { NoSshKey, type PreparedHost } from '../../core/ssh/connector';
import { freeLocalPort, startPortForward, type PortForward } from '../../core/ssh/forward';
import { waitForSshBanner } from '../../core/ssh/probe';
import { remoteFolderUri } from '../../core/ssh/remoteSsh';
import { config } from '../config';
import { editorsRemoteSsh, installedRemoteSsh, setRemotePlatform } from '../remote';
import { sshArgsForHost } from '../ssh';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { SshConnector } from '../../core/ssh/connector';
import type { PortForwards } from '../../core/ssh/forward';
import type { SshConfigManager } from '../../core/ssh/manager';
import type { BootStatus } from '../bootStatus';
import type { Prompts } from '../prompts';
import type { RemoteHandoff } from '../remote';
import type { SpendGuard } from '../spendGuard';
import type { ShowError } from './errors';
import { command, type CommandDefinition } from './registry';
import { InstanceItem } from '../views/instancesView';
import { resolveTarget, type Target } from './instances';
import { formatDollars } from '../../core/format';

/** How a connect ended, for the tests and the rent flow. */
export type ConnectOutcome = 'opened' | 'terminalOffered' | 'cancelled' | 'failed';

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

/** Connect, the SSH terminal and port forwarding: each from the tree, a notification or the palette. */
export function connectCommands(s: ConnectDeps): CommandDefinition[] {
  const connecting = new Set<number>();
  return [
    command(COMMANDS.connect, async (t?: Target) => {
      const picked = await pick(s, t, 'Connect to which instance?');
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
      const instance = await pick(s, t, 'Open an SSH terminal on which instance?');
      const ready = instance && (await readyHost(s, instance));
      return ready ? openTerminal(s, ready.instance, ready.host) : undefined;
    }),
    command(COMMANDS.forwardPort, async (t?: Target, port?: unknown) => {
      const instance = await pick(s, t, 'Forward a port of which instance?');
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

async function connect(s: ConnectDeps, instance: Instance): Promise<ConnectOutcome> {
  const ready = await readyHost(s, instance);
  if (!ready) return 'cancelled';
  const { host } = ready;
  const extension = installedRemoteSsh(s.handoff());
  if (!extension) {
    const wanted = editorsRemoteSsh();
    // Not awaited: the terminal is offered at once, whatever the user does with the message.
    void vscode.window
      .showInformationMessage(
        `GPU Rental: ${instanceName(ready.instance)} is ready, but no Remote-SSH extension is installed to open it as a workspace. Install ${wanted.name}, or open an SSH terminal now.`,
        'Open SSH Terminal',
        `Install ${wanted.name}`,
      )
      .then(async (choice) => {
        if (choice === 'Open SSH Terminal') openTerminal(s, ready.instance, host);
        if (choice?.startsWith('Install')) {
          await s.handoff().installExtension(wanted.id);
          const again = await vscode.window.showInformationMessage(`GPU Rental: ${wanted.name} is installed.`, 'Connect');
          if (again) await vscode.commands.executeCommand(COMMANDS.connect, ready.instance.id);
        }
      });
    return 'terminalOffered';
  }
  if (!host.includeInPlace) {
    showIncludeLines(s, ready.instance, host);
    return 'failed';
  }
  await setRemotePlatform(extension, host.alias).catch((error: unknown) =>
    s.logger.warn(`Could not set ${extension.section}.remotePlatform: ${String(error)}`),
  );
  const folder = config.remoteFolder();
  s.logger.info(`Opening ${host.alias} ${folder ? `at ${folder}` : '(empty window)'} with ${extension.id}.`);
  if (folder) await s.handoff().openFolder(vscode.Uri.parse(remoteFolderUri(host.alias, folder)), { forceNewWindow: true });
  else await s.handoff().openEmptyWindow(`ssh-remote+${host.alias}`);
  return 'opened';
}

/**
 * Everything before the handoff: the instance running (started after asking when stopped,
 * waited for when booting), its SSH entry written, and its sshd answering with a banner.
 */
async function readyHost(s: ConnectDeps, instance: Instance): Promise<{ instance: Instance; host: PreparedHost } | undefined> {
  try {
    const running = await untilRunning(s, instance);
    if (!running) return undefined;
    const host = await s.connector.prepare(running, config.sshConnectVia());
    const answered = await untilSshAnswers(s, running, host);
    return answered ? { instance: running, host } : undefined;
  } catch (error) {
    if (error instanceof NoSshKey) {
      void vscode.window
        .showWarningMessage(`GPU Rental: ${error.message} Connect again to create one, or set gpuRental.ssh.identityFile.`, 'Open Settings')
        .then((c) => {
          if (c) void vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.ssh.identityFile');
        });
    } else if (error instanceof SshConfigError) {
      s.logger.error(error.message);
      void vscode.window.showErrorMessage(`GPU Rental: ${error.message}`, 'Open SSH Config').then((c) => {
        if (c) void openConfigAt(s.sshConfig().paths.userConfig, error.line);
      });
    } else {
      s.showError(error);
    }
    return undefined;
  }
}

async function openConfigAt(path: string, line: number | undefined): Promise<void> {
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(path));
  if (line) editor.selection = new vscode.Selection(line - 1, 0, line - 1, 0);
}

/** Resolves with the running instance, or undefined when the user declined or cancelled. */
async function untilRunning(s: ConnectDeps, instance: Instance): Promise<Instance | undefined> {
  const phase = instancePhase(instance);
  if (phase === 'running') return instance;
  if (phase === 'stopped') {
    // Starting resumes GPU billing: only after the user says so, every time.
    const rate = instance.dph_total ? `${formatDollars(instance.dph_total)}/h` : 'its hourly price';
    const ok = await s
      .prompts()
      .confirm(
        `Start ${instanceName(instance)} to connect?`,
        `It is stopped. Starting it bills ${rate} while it runs.`,
        'Start and Connect',
      );
    if (!ok) return undefined;
    const adds = startAddsPerHour(instance);
    if (!(await s.spend.allows(s.poller, adds, `started: ${instanceName(instance)} adds ${formatDollars(adds)}/h`))) return undefined;
    await s.session.client.instances.start(instance.id);
    s.boots.track(instance.id);
  } else if (!isBooting(phase)) {
    void vscode.window.showWarningMessage(`GPU Rental: ${instanceName(instance)} is ${phase}; it cannot be connected to.`);
    return undefined;
  }
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `GPU Rental: waiting for ${instanceName(instance)} to run, then connecting`,
      cancellable: true,
    },
    async (progress, token) => {
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      const wait = await untilPhase(s.poller, instance.id, ['running'], {
        signal: abort.signal,
        onPhase: (phase) => progress.report({ message: phase }),
      }).finally(() => cancel.dispose());
      if (wait.outcome === 'reached') return wait.instance;
      if (wait.outcome === 'cancelled') {
        void vscode.window.showInformationMessage(
          `GPU Rental: stopped waiting. ${instanceName(instance)} keeps booting (and billing); connect again when it runs.`,
        );
      } else {
        const phase = wait.phase ?? 'unknown';
        void vscode.window
          .showErrorMessage(`GPU Rental: ${instanceName(instance)} did not reach running (it is ${phase}).`, 'Show Instance Logs')
          .then((c) => {
            if (c) void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, instance.id);
          });
      }
      return undefined;
    },
  );
}

/** Waits for an SSH banner, with a cancellable progress; on timeout says what to check. */
async function untilSshAnswers(s: ConnectDeps, instance: Instance, host: PreparedHost): Promise<boolean> {
  const timeoutMs = config.sshReadyTimeoutSeconds() * 1000;
  const { host: address, port } = host.endpoint;
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `GPU Rental: waiting for SSH on ${instanceName(instance)} (${address}:${port})`,
        cancellable: true,
      },
      (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return waitForSshBanner(address, port, { timeoutMs, signal: abort.signal });
      },
    );
    return true;
  } catch (error) {
    if ((error as Error).message.includes('cancelled')) return false;
    s.logger.warn((error as Error).message);
    void vscode.window
      .showErrorMessage(
        `GPU Rental: ${instanceName(instance)} is running, but SSH did not answer at ${address}:${port} within ${timeoutMs / 1000} s. The image may not run an SSH server (use an SSH launch mode), or it is still starting; check the instance's logs, then connect again.`,
        'Show Instance Logs',
        'Retry',
      )
      .then((c) => {
        if (c === 'Show Instance Logs') void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, instance.id);
        if (c === 'Retry') void vscode.commands.executeCommand(COMMANDS.connect, instance.id);
      });
    return false;
  }
}

/** The ssh arguments that reach the alias: the user's config when the Include is in it, else the host file alone. */
export function sshArgsFor(s: ConnectDeps, host: PreparedHost): string[] {
  return sshArgsForHost(host, s.handoff());
}

function openTerminal(s: ConnectDeps, instance: Instance, host: PreparedHost): vscode.Terminal {
  const terminal = vscode.window.createTerminal({
    name: `GPU Rental: ${instance.label || `#${instance.id}`}`,
    shellPath: 'ssh',
    shellArgs: [...sshArgsFor(s, host), host.alias],
    iconPath: new vscode.ThemeIcon('remote'),
  });
  terminal.show();
  s.terminals.set(terminal, instance.id);
  s.logger.info(`Opened an SSH terminal: ssh ${[...sshArgsFor(s, host), host.alias].join(' ')}`);
  return terminal;
}

function showIncludeLines(s: ConnectDeps, instance: Instance, host: PreparedHost): void {
  const lines = host.includeLines ?? '';
  void vscode.window
    .showWarningMessage(
      `GPU Rental: ${host.userConfig} cannot be edited, so Remote-SSH will not find ${host.alias}. Add these lines at its top, then connect again:\n${lines}`,
      'Copy Lines',
      'Open SSH Terminal',
    )
    .then(async (c) => {
      if (c === 'Copy Lines') await vscode.env.clipboard.writeText(lines);
      if (c === 'Open SSH Terminal') openTerminal(s, instance, host);
    });
}

const COMMON_PORTS = [
  { label: '8888', description: 'Jupyter' },
  { label: '6006', description: 'TensorBoard' },
  { label: '7860', description: 'Gradio' },
  { label: '8080', description: 'web server' },
];

async function forwardPort(s: ConnectDeps, instance: Instance, given: unknown): Promise<PortForward | undefined> {
  let remotePort = typeof given === 'number' ? given : undefined;
  if (remotePort === undefined) {
    const quick = vscode.window.createQuickPick();
    quick.title = `GPU Rental: forward a port of ${instanceName(instance)} to this machine`;
    quick.placeholder = 'A port on the instance (type any number)';
    quick.items = COMMON_PORTS;
    const chosen = await new Promise<string | undefined>((resolve) => {
      quick.onDidAccept(() => resolve(quick.selectedItems[0]?.label ?? quick.value));
      quick.onDidHide(() => resolve(undefined));
      quick.show();
    });
    quick.dispose();
    if (chosen === undefined) return undefined;
    remotePort = Number(chosen.trim());
  }
  if (!Number.isInteger(remotePort) || remotePort < 1 || remotePort > 65535) {
    void vscode.window.showErrorMessage(`GPU Rental: "${String(remotePort)}" is not a port number (1 to 65535).`);
    return undefined;
  }
  const existing = s.forwards.find(instance.id, remotePort);
  if (existing) {
    void announceForward(s, instance, existing);
    return existing;
  }
  const ready = await readyHost(s, instance);
  if (!ready) return undefined;
  try {
    const localPort = await freeLocalPort(remotePort);
    const forward = await startPortForward({
      instanceId: instance.id,
      alias: ready.host.alias,
      remotePort,
      localPort,
      sshArgs: sshArgsFor(s, ready.host),
    });
    s.forwards.add(forward);
    s.logger.info(`Forwarding ${forward.url} to port ${remotePort} of instance #${instance.id}.`);
    void announceForward(s, ready.instance, forward);
    return forward;
  } catch (error) {
    s.showError(error);
    return undefined;
  }
}

async function announceForward(s: ConnectDeps, instance: Instance, forward: PortForward): Promise<void> {
  const choice = await vscode.window.showInformationMessage(
    `GPU Rental: port ${forward.remotePort} of ${instanceName(instance)} is at ${forward.url}`,
    'Open in Browser',
    'Copy URL',
    'Stop Forwarding',
  );
  if (choice === 'Open in Browser') await vscode.env.openExternal(vscode.Uri.parse(forward.url));
  if (choice === 'Copy URL') await vscode.env.clipboard.writeText(forward.url);
  if (choice === 'Stop Forwarding') s.forwards.stop(forward);
}
