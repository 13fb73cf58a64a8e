import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { untilPhase } from '../../core/instances/untilPhase';
import { instancePhase, isBooting } from '../../core/instances/phase';
import { instanceName } from '../../core/instances/names';
import { startAddsPerHour } from '../../core/instances/rates';
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
import { checkInBox, portBox, readBox } from '../../core/numbers';

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
      const ready = instance && (await readyHost(s, instance));
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
        vscode.l10n.t(
          'GPU Rental: {0} is ready, but no Remote-SSH extension is installed to open it as a workspace. Install {1}, or open an SSH terminal now.',
          instanceName(ready.instance),
          wanted.name,
        ),
        vscode.l10n.t('Open SSH Terminal'),
        vscode.l10n.t('Install {0}', wanted.name),
      )
      .then(async (choice) => {
        if (choice === vscode.l10n.t('Open SSH Terminal')) openTerminal(s, ready.instance, host);
        if (choice?.startsWith('Install')) {
          await s.handoff().installExtension(wanted.id);
          const again = await vscode.window.showInformationMessage(
            vscode.l10n.t('GPU Rental: {0} is installed.', wanted.name),
            vscode.l10n.t('Connect'),
          );
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
        .showWarningMessage(
          vscode.l10n.t('GPU Rental: {0} Connect again to create one, or set gpuRental.ssh.identityFile.', error.message),
          vscode.l10n.t('Open Settings'),
        )
        .then((c) => {
          if (c) void vscode.commands.executeCommand('workbench.action.openSettings', 'gpuRental.ssh.identityFile');
        });
    } else if (error instanceof SshConfigError) {
      s.logger.error(error.message);
      void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: {0}', error.message), vscode.l10n.t('Open SSH Config')).then((c) => {
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
    const rate = instance.dph_total ? `${formatDollars(instance.dph_total)}/h` : vscode.l10n.t('its hourly price');
    const ok = await s
      .prompts()
      .confirm(
        vscode.l10n.t('Start {0} to connect?', instanceName(instance)),
        vscode.l10n.t('It is stopped. Starting it bills {0} while it runs.', rate),
        vscode.l10n.t('Start and Connect'),
      );
    if (!ok) return undefined;
    const adds = startAddsPerHour(instance);
    if (!(await s.spend.allows(s.poller, adds, vscode.l10n.t('started: {0} adds {1}/h', instanceName(instance), formatDollars(adds)))))
      return undefined;
    await s.session.client.instances.start(instance.id);
    s.boots.track(instance.id);
  } else if (!isBooting(phase)) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('GPU Rental: {0} is {1}; it cannot be connected to.', instanceName(instance), phase),
    );
    return undefined;
  }
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('GPU Rental: waiting for {0} to run, then connecting', instanceName(instance)),
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
          vscode.l10n.t(
            'GPU Rental: stopped waiting. {0} keeps booting (and billing); connect again when it runs.',
            instanceName(instance),
          ),
        );
      } else {
        const phase = wait.phase ?? 'unknown';
        void vscode.window
          .showErrorMessage(
            vscode.l10n.t('GPU Rental: {0} did not reach running (it is {1}).', instanceName(instance), phase),
            vscode.l10n.t('Show Instance Logs'),
          )
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
        title: vscode.l10n.t('GPU Rental: waiting for SSH on {0} ({1}:{2})', instanceName(instance), address, port),
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
        vscode.l10n.t(
          "GPU Rental: {0} is running, but SSH did not answer at {1}:{2} within {3} s. The image may not run an SSH server (use an SSH launch mode), or it is still starting; check the instance's logs, then connect again.",
          instanceName(instance),
          address,
          port,
          timeoutMs / 1000,
        ),
        vscode.l10n.t('Show Instance Logs'),
        vscode.l10n.t('Retry'),
      )
      .then((c) => {
        if (c === vscode.l10n.t('Show Instance Logs')) void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, instance.id);
        if (c === vscode.l10n.t('Retry')) void vscode.commands.executeCommand(COMMANDS.connect, instance.id);
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

function showIncludeLines(s: ConnectDeps, instance: Instance, host: PreparedHost): void {
  const lines = host.includeLines ?? '';
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t(
        'GPU Rental: {0} cannot be edited, so Remote-SSH will not find {1}. Add these lines at its top, then connect again:\n{2}',
        host.userConfig,
        host.alias,
        lines,
      ),
      vscode.l10n.t('Copy Lines'),
      vscode.l10n.t('Open SSH Terminal'),
    )
    .then(async (c) => {
      if (c === vscode.l10n.t('Copy Lines')) await vscode.env.clipboard.writeText(lines);
      if (c === vscode.l10n.t('Open SSH Terminal')) openTerminal(s, instance, host);
    });
}

const COMMON_PORTS = [
  { label: '8888', description: vscode.l10n.t('Jupyter') },
  { label: '6006', description: 'TensorBoard' },
  { label: '7860', description: vscode.l10n.t('Gradio') },
  { label: '8080', description: vscode.l10n.t('web server') },
];

async function forwardPort(s: ConnectDeps, instance: Instance, given: unknown): Promise<PortForward | undefined> {
  let remotePort = typeof given === 'number' ? given : undefined;
  let typed = String(remotePort);
  if (remotePort === undefined) {
    const quick = vscode.window.createQuickPick();
    quick.title = vscode.l10n.t('GPU Rental: forward a port of {0} to this machine', instanceName(instance));
    quick.placeholder = vscode.l10n.t('A port on the instance (type any number)');
    quick.items = COMMON_PORTS;
    const chosen = await new Promise<string | undefined>((resolve) => {
      quick.onDidAccept(() => resolve(quick.selectedItems[0]?.label ?? quick.value));
      quick.onDidHide(() => resolve(undefined));
      quick.show();
    });
    quick.dispose();
    if (chosen === undefined) return undefined;
    typed = chosen.trim().slice(0, 40);
    remotePort = readBox(chosen, portBox()).value;
  }
  if (remotePort === undefined || checkInBox(remotePort, portBox()).problem !== undefined) {
    void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: "{0}" is not a port number (1 to 65535).', typed));
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
    vscode.l10n.t('GPU Rental: port {0} of {1} is at {2}', forward.remotePort, instanceName(instance), forward.url),
    vscode.l10n.t('Open in Browser'),
    vscode.l10n.t('Copy URL'),
    vscode.l10n.t('Stop Forwarding'),
  );
  if (choice === vscode.l10n.t('Open in Browser')) await vscode.env.openExternal(vscode.Uri.parse(forward.url));
  if (choice === vscode.l10n.t('Copy URL')) await vscode.env.clipboard.writeText(forward.url);
  if (choice === vscode.l10n.t('Stop Forwarding')) s.forwards.stop(forward);
}
