import type { GpuRentalClient } from '../api/client';
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import type { SpendCheck } from '../instances/flows';
import { instanceName } from '../instances/names';
import { instancePhase, isBooting } from '../instances/phase';
import type { InstancePoller } from '../instances/poller';
import { startAddsPerHour } from '../instances/rates';
import { untilPhase } from '../instances/untilPhase';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import { SshConfigError } from './config';
import { NoSshKey, type ConnectVia, type PreparedHost, type SshConnector } from './connector';
import { waitForSshBanner } from './probe';
import { remoteFolderUri, type RemoteSshExtension } from './remoteSsh';

/**
 * Connect as a flow: the instance running (started only after the user agrees, waited for while
 * it boots), its SSH entry written, its sshd answering, then the handoff to Remote-SSH or what to
 * offer instead. `src/ui/commands/connect.ts` opens the windows, terminals and documents.
 */

/** How a connect ended, for the tests and the rent flow. */
export type ConnectOutcome = 'opened' | 'terminalOffered' | 'cancelled' | 'failed';

/** A button of a connect notice; `connectActionLabel` says its label. */
export type ConnectAction =
  'openInBrowser' | 'openTerminal' | 'install' | 'connect' | 'copyLines' | 'showLogs' | 'retry' | 'openSettings' | 'openSshConfig';

/** What the user is told when a connect stops short, with the buttons that take it further. */
export interface ConnectNotice extends Notice<ConnectAction> {
  readonly actions: readonly ConnectAction[];
  /** The Remote-SSH extension `install` installs. */
  install?: RemoteSshExtension;
  /** The user's SSH config line `openSshConfig` opens at. */
  configLine?: number;
}

export function connectActionLabel(action: ConnectAction, notice?: Pick<ConnectNotice, 'install'>): string {
  switch (action) {
    case 'openInBrowser':
      return l10n.t('Open in Browser');
    case 'openTerminal':
      return l10n.t('Open SSH Terminal');
    case 'install':
      return l10n.t('Install {0}', notice?.install?.name ?? 'Remote-SSH');
    case 'connect':
      return l10n.t('Connect');
    case 'copyLines':
      return l10n.t('Copy Lines');
    case 'showLogs':
      return l10n.t('Show Instance Logs');
    case 'retry':
      return l10n.t('Retry');
    case 'openSettings':
      return l10n.t('Open Settings');
    case 'openSshConfig':
      return l10n.t('Open SSH Config');
  }
}

/** What getting an instance ready for ssh uses. */
export interface ReadyDeps {
  readonly ask: Ask;
  readonly instances: Pick<GpuRentalClient['instances'], 'start'>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate' | 'refresh' | 'watch'>;
  readonly spend: SpendCheck;
  readonly boots: { track(id: number): void };
  readonly connector: Pick<SshConnector, 'prepare'>;
  readonly connectVia: ConnectVia;
  readonly sshReadyTimeoutSeconds: number;
  /** The waits' progress, whose Cancel stops waiting (UI: a notification). */
  readonly progress: Progress;
  readonly logger: Logger;
  /** The sshd probe; tests pass their own. */
  readonly waitForBanner?: typeof waitForSshBanner;
}

/** Ready: the running instance and its host. Otherwise why not: cancelled (nothing to say), a notice, or an error for the command's guard. */
export type Ready =
  | { kind: 'ready'; instance: Instance; host: PreparedHost }
  | { kind: 'cancelled' }
  | { kind: 'notice'; notice: ConnectNotice; instance: Instance }
  | { kind: 'error'; error: unknown };

/**
 * Everything before the handoff: the instance running (started after asking when stopped,
 * waited for when booting), its SSH entry written, and its sshd answering with a banner.
 */
export async function readyHost(s: ReadyDeps, instance: Instance): Promise<Ready> {
  try {
    const running = await untilRunning(s, instance);
    if (running.kind !== 'running') return running.kind === 'notice' ? { kind: 'notice', notice: running.notice, instance } : running;
    const host = await s.connector.prepare(running.instance, s.connectVia);
    const silent = await untilSshAnswers(s, running.instance, host);
    if (silent === 'cancelled') return { kind: 'cancelled' };
    if (silent) return { kind: 'notice', notice: silent, instance: running.instance };
    return { kind: 'ready', instance: running.instance, host };
  } catch (error) {
    if (error instanceof NoSshKey) {
      const text = l10n.t('GPU Rental: {0} Connect again to create one, or set gpuRental.ssh.identityFile.', error.message);
      return { kind: 'notice', instance, notice: { severity: 'warning', text, actions: ['openSettings'] } };
    }
    if (error instanceof SshConfigError) {
      s.logger.error(error.message);
      const notice: ConnectNotice = {
        severity: 'error',
        text: l10n.t('GPU Rental: {0}', error.message),
        actions: ['openSshConfig'],
        configLine: error.line,
      };
      return { kind: 'notice', instance, notice };
    }
    return { kind: 'error', error };
  }
}

type Running = { kind: 'running'; instance: Instance } | { kind: 'cancelled' } | { kind: 'notice'; notice: ConnectNotice };

/** The running instance; a stopped one starts only after the user says so, every time (starting resumes GPU billing). */
async function untilRunning(s: ReadyDeps, instance: Instance): Promise<Running> {
  const phase = instancePhase(instance);
  const name = instanceName(instance);
  if (phase === 'running') return { kind: 'running', instance };
  if (phase === 'stopped') {
    const rate = instance.dph_total ? `${formatDollars(instance.dph_total)}/h` : l10n.t('its hourly price');
    const ok = await s.ask.confirm(
      l10n.t('Start {0} to connect?', name),
      l10n.t('It is stopped. Starting it bills {0} while it runs.', rate),
      l10n.t('Start and Connect'),
    );
    if (!ok) return { kind: 'cancelled' };
    const adds = startAddsPerHour(instance);
    if (!(await s.spend(adds, l10n.t('started: {0} adds {1}/h', name, formatDollars(adds))))) return { kind: 'cancelled' };
    await s.instances.start(instance.id);
    s.boots.track(instance.id);
  } else if (!isBooting(phase)) {
    const text = l10n.t('GPU Rental: {0} is {1}; it cannot be connected to.', name, phase);
    return { kind: 'notice', notice: { severity: 'warning', text, actions: [] } };
  }
  const wait = await s.progress(l10n.t('waiting for {0} to run, then connecting', name), (task) =>
    untilPhase(s.poller, instance.id, ['running'], { signal: task.signal, onPhase: (p) => task.report({ message: p }) }),
  );
  if (wait.outcome === 'reached') return { kind: 'running', instance: wait.instance };
  if (wait.outcome === 'cancelled') {
    const text = l10n.t('GPU Rental: stopped waiting. {0} keeps booting (and billing); connect again when it runs.', name);
    return { kind: 'notice', notice: { severity: 'info', text, actions: [] } };
  }
  const text = l10n.t('GPU Rental: {0} did not reach running (it is {1}).', name, wait.phase ?? 'unknown');
  return { kind: 'notice', notice: { severity: 'error', text, actions: ['showLogs'] } };
}

/** Waits for an SSH banner under a cancellable progress: undefined when it answered, else cancelled or what to check. */
async function untilSshAnswers(s: ReadyDeps, instance: Instance, host: PreparedHost): Promise<ConnectNotice | 'cancelled' | undefined> {
  const timeoutMs = s.sshReadyTimeoutSeconds * 1000;
  const { host: address, port } = host.endpoint;
  const probe = s.waitForBanner ?? waitForSshBanner;
  let waited: AbortSignal | undefined;
  try {
    await s.progress(l10n.t('waiting for SSH on {0} ({1}:{2})', instanceName(instance), address, port), (task) => {
      waited = task.signal;
      return probe(address, port, { timeoutMs, signal: task.signal });
    });
    return undefined;
  } catch (error) {
    // Told by the signal, not by the probe's (translated) message.
    if (waited?.aborted) return 'cancelled';
    s.logger.warn((error as Error).message);
    const text = l10n.t(
      "GPU Rental: {0} is running, but SSH did not answer at {1}:{2} within {3} s. The image may not run an SSH server (use an SSH launch mode), or it is still starting; check the instance's logs, then connect again.",
      instanceName(instance),
      address,
      port,
      timeoutMs / 1000,
    );
    return { severity: 'error', text, actions: ['showLogs', 'retry'] };
  }
}

/** What the editor has: the Remote-SSH extension installed (if any), the one it would install, and the folder to open. */
export interface EditorSide {
  readonly installed: RemoteSshExtension | undefined;
  readonly wanted: RemoteSshExtension;
  /** `gpuRental.remoteFolder`; empty opens an empty window. */
  readonly folder: string;
}

/** What the handoff does once the host is ready: open a window, or say what stands in the way and offer the rest. */
export type Handoff =
  | { kind: 'open'; extension: RemoteSshExtension; alias: string; folderUri: string | undefined; authority: string; folder: string }
  | { kind: 'terminalOffered' | 'failed'; notice: ConnectNotice };

export function handoffFor(instance: Instance, host: PreparedHost, editor: EditorSide): Handoff {
  if (!editor.installed) {
    const text = l10n.t(
      'GPU Rental: {0} is ready, but no Remote-SSH extension is installed to open it as a workspace here. Open it in a browser (a VS Code served by the instance), install {1}, or open an SSH terminal.',
      instanceName(instance),
      editor.wanted.name,
    );
    return {
      kind: 'terminalOffered',
      notice: { severity: 'info', text, actions: ['openInBrowser', 'install', 'openTerminal'], install: editor.wanted },
    };
  }
  if (!host.includeInPlace) {
    const text = l10n.t(
      'GPU Rental: {0} cannot be edited, so Remote-SSH will not find {1}. Add these lines at its top, then connect again:\n{2}',
      host.userConfig,
      host.alias,
      host.includeLines ?? '',
    );
    return { kind: 'failed', notice: { severity: 'warning', text, actions: ['copyLines', 'openTerminal'] } };
  }
  const { folder } = editor;
  return {
    kind: 'open',
    extension: editor.installed,
    alias: host.alias,
    folder,
    folderUri: folder ? remoteFolderUri(host.alias, folder) : undefined,
    authority: `ssh-remote+${host.alias}`,
  };
}

/** After Install: the notice that offers to connect again. */
export function installedNotice(extension: RemoteSshExtension): ConnectNotice {
  return { severity: 'info', text: l10n.t('GPU Rental: {0} is installed.', extension.name), actions: ['connect'] };
}
