import type { Instance } from '../api/instances';
import { bashCommand } from '../shell';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import type { Progress, ProgressTask } from '../progress';
import { forwardTo, type PortForward, type PortForwards } from '../ssh/forward';
import { lastErrorLine, runRemote, type RemoteResult, type RunRemoteOptions, type SshTarget } from '../ssh/remote';
import { parseChecksum, releaseFor, ReleaseError, releaseVersion, type Release, type ReleaseSettings } from './release';
import { installFailure, installScript, lastProgress, parseStart, startScript, stopScript, type InstallFailure } from './scripts';
import type { BrowserWorkspace, BrowserWorkspaces } from './sessions';
import type { LoginPages } from './loginPage';

/*
 * Open in Browser: a VS Code server on the instance (the one running, else the one installed, else
 * a pinned release the instance downloads and checks), forwarded to this machine's loopback, and a
 * one-time sign-in page that opens its folder. The ui command shows the notices and hands the page
 * to the browser; Close stops the server and the forward.
 */

export type RunRemote = (target: SshTarget, command: string, options: RunRemoteOptions) => Promise<RemoteResult>;

export interface OpenInBrowserDeps {
  /** The instance as it is now (the list may be a poll old). */
  show(id: number): Promise<Instance>;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  sshTarget(instance: Instance): Promise<SshTarget>;
  readonly progress: Progress;
  /** Reads a checksum URL on this machine (through the user's proxy); rejects on any failure. */
  fetchText(url: string, signal: AbortSignal): Promise<string>;
  /** The build settings, from the user's settings only. */
  readonly release: ReleaseSettings;
  /** The folder to open on the instance. */
  readonly folder: string;
  readonly forwards: Pick<PortForwards, 'find' | 'add'>;
  readonly workspaces: BrowserWorkspaces;
  readonly loginPages: Pick<LoginPages, 'add'>;
  readonly logger: Logger;
  /** runRemote unless a test gives another. */
  run?: RunRemote;
  /** Starts a forward (the real one unless a test gives another). */
  startForward?(instance: Instance, target: SshTarget, remotePort: number): Promise<PortForward>;
}

export type OpenInBrowserResult =
  | {
      readonly kind: 'opened';
      readonly instance: Instance;
      readonly name: string;
      /** The one-time sign-in page to open in the browser. */
      readonly loginUrl: string;
      /** The forwarded server, without any secret. */
      readonly serverUrl: string;
      readonly localPort: number;
      readonly remotePort: number;
      /** How the server came to run: already running, started from an install, or installed now. */
      readonly how: 'reused' | 'started' | 'installed';
    }
  | { readonly kind: 'failed'; readonly instanceId: number; readonly notice: Notice; readonly offerSettings?: boolean }
  | { readonly kind: 'cancelled' };

/** The session cookie's suffix for one instance: one browser signs in to several instances on 127.0.0.1. */
export const cookieSuffix = (instanceId: number): string => `gpu-rental-${instanceId}`;

export async function openInBrowser(deps: OpenInBrowserDeps, picked: Instance): Promise<OpenInBrowserResult> {
  const instance = await deps.show(picked.id).catch(() => picked);
  const name = instanceName(instance);
  const phase = instancePhase(instance);
  if (phase !== 'running') {
    const text = l10n.t('GPU Rental: {0} is {1}; start it, then Open in Browser again.', name, phase);
    return { kind: 'failed', instanceId: instance.id, notice: { severity: 'warning', text } };
  }
  const target = await deps.sshTarget(instance);
  let task: ProgressTask | undefined;
  try {
    return await deps.progress(l10n.t('Opening {0} in a browser', name), async (t) => {
      task = t;
      return await prepare(deps, instance, name, target, t);
    });
  } catch (error) {
    if (task?.signal.aborted) return { kind: 'cancelled' };
    if (error instanceof OpenFailure)
      return { kind: 'failed', instanceId: instance.id, notice: error.notice, offerSettings: error.offerSettings };
    throw error;
  }
}

class OpenFailure extends Error {
  constructor(
    readonly notice: Notice,
    readonly offerSettings = false,
  ) {
    super(notice.text);
  }
}

const fail = (text: string, offerSettings = false): OpenFailure => new OpenFailure({ severity: 'error', text }, offerSettings);

async function prepare(
  deps: OpenInBrowserDeps,
  instance: Instance,
  name: string,
  target: SshTarget,
  task: ProgressTask,
): Promise<OpenInBrowserResult> {
  const run = deps.run ?? runRemote;
  const remote = (script: string, timeoutMs: number, onStdout?: (text: string) => void) =>
    run(target, bashCommand(script), { timeoutMs, signal: task.signal, ...(onStdout ? { onStdout } : {}) });
  let version: string;
  try {
    version = releaseVersion(deps.release);
  } catch (error) {
    if (error instanceof ReleaseError) throw fail(l10n.t('GPU Rental: cannot open {0} in a browser. {1}', name, error.message), true);
    throw error;
  }
  const start = async () => {
    task.report({ message: l10n.t('starting VS Code on the instance') });
    return remote(startScript({ version, cookieSuffix: cookieSuffix(instance.id) }), 120_000);
  };
  let release: Release | undefined;
  let result = await start();
  let answer = result.code === 0 || result.code === 3 ? parseStart(result.stdout) : undefined;
  let how: 'reused' | 'started' | 'installed' = answer?.kind === 'server' && answer.reused ? 'reused' : 'started';
  if (answer?.kind === 'missing') {
    try {
      release = releaseFor(deps.release, answer.machine);
    } catch (error) {
      if (error instanceof ReleaseError) throw fail(l10n.t('GPU Rental: cannot open {0} in a browser. {1}', name, error.message), true);
      throw error;
    }
    await install(deps, release, name, task, remote);
    how = 'installed';
    result = await start();
    answer = result.code === 0 ? parseStart(result.stdout) : undefined;
  }
  if (answer?.kind !== 'server') {
    if (result.code === 255)
      throw fail(
        l10n.t(
          'GPU Rental: could not reach {0} over SSH: {1}. Check that it runs, then try again.',
          name,
          lastErrorLine(result.stderr) || 'ssh',
        ),
      );
    throw fail(
      l10n.t(
        'GPU Rental: VS Code did not start on {0}: {1}. Try again; if it keeps failing, check the server log ~/{2}/run/log on the instance.',
        name,
        lastErrorLine(result.stderr) || l10n.t('exit code {0}', result.code),
        '.local/share/gpu-rental/code-server',
      ),
    );
  }
  const forward = deps.forwards.find(instance.id, answer.port) ?? (await newForward(deps, instance, target, answer.port));
  // The server keeps an origin of its own (its forwarded port), never a path under the editor's
  // origin (a web editor's proxy): two VS Code workbenches on one origin share the browser's
  // storage, and the second signed the first out (seen in code-server).
  const serverUrl = `http://127.0.0.1:${forward.localPort}/`;
  const to = `/?folder=${encodeURIComponent(deps.folder || '/root')}`;
  const loginUrl = await deps.loginPages.add({
    action: `${serverUrl}login?to=${encodeURIComponent(to)}`,
    password: answer.password,
    title: l10n.t('Opening VS Code on {0}…', name),
  });
  const workspace: BrowserWorkspace = { instanceId: instance.id, name, remotePort: answer.port, forward, folder: deps.folder || '/root' };
  deps.workspaces.add(workspace);
  // The password stays out of the log: the ports and how it started only.
  deps.logger.info(`VS Code on instance #${instance.id} (${how}, port ${answer.port}) is forwarded to ${serverUrl}.`);
  return { kind: 'opened', instance, name, loginUrl, serverUrl, localPort: forward.localPort, remotePort: answer.port, how };
}

/** The checksum, then the instance's own download, check and unpack, with its progress in MB. */
async function install(
  deps: OpenInBrowserDeps,
  release: Release,
  name: string,
  task: ProgressTask,
  remote: (script: string, timeoutMs: number, onStdout?: (text: string) => void) => Promise<RemoteResult>,
): Promise<void> {
  const sha256 = release.pinnedSha256 ?? (await checksum(deps, release, task));
  let seen = '';
  const result = await remote(installScript({ url: release.url, sha256, folderName: release.folderName }), 30 * 60_000, (text) => {
    seen = (seen + text).slice(-4096);
    const bytes = lastProgress(seen);
    if (bytes !== undefined) {
      task.report({ message: l10n.t('the instance is downloading code-server {0}: {1} MB', release.version, (bytes / 1e6).toFixed(0)) });
    }
  });
  if (result.code === 0) return;
  if (result.code === 255)
    throw fail(
      l10n.t('GPU Rental: the connection to {0} dropped while it installed VS Code. Open in Browser again: it starts over cleanly.', name),
    );
  throw fail(installNotice(installFailure(result.code), name, release, lastErrorLine(result.stderr)), true);
}

async function checksum(deps: OpenInBrowserDeps, release: Release, task: ProgressTask): Promise<string> {
  task.report({ message: l10n.t('reading the checksum of code-server {0}', release.version) });
  let body: string;
  try {
    body = await deps.fetchText(release.checksumUrl, task.signal);
  } catch (error) {
    if (task.signal.aborted) throw error;
    throw fail(
      l10n.t(
        'GPU Rental: could not read the sha256 of {0} from {1}: {2}. Check your connection or proxy, or pin it in gpuRental.browserWorkspace.sha256.',
        release.fileName,
        release.checksumUrl,
        (error as Error).message,
      ),
      true,
    );
  }
  const sha = parseChecksum(body, release.fileName);
  if (!sha) {
    throw fail(
      l10n.t(
        'GPU Rental: {0} names no sha256 for {1}. Set gpuRental.browserWorkspace.checksumUrl to where its checksum is, or pin it in gpuRental.browserWorkspace.sha256.',
        release.checksumUrl,
        release.fileName,
      ),
      true,
    );
  }
  return sha;
}

function installNotice(why: InstallFailure, name: string, release: Release, detail: string): string {
  switch (why) {
    case 'noFetcher':
      return l10n.t(
        'GPU Rental: {0} has neither curl nor wget to download VS Code. Install one on it (apt-get install curl), then Open in Browser again.',
        name,
      );
    case 'download':
      return l10n.t(
        'GPU Rental: {0} could not download {1}: {2}. Check that the instance reaches it, or set gpuRental.browserWorkspace.downloadUrl to a mirror.',
        name,
        release.url,
        detail,
      );
    case 'checksum':
      return l10n.t(
        'GPU Rental: the VS Code that {0} downloaded from {1} does not have the expected sha256, so it was deleted, not installed ({2}). The download or the mirror is not the release: try again, or use another mirror.',
        name,
        release.url,
        detail,
      );
    case 'noSpace':
      return l10n.t(
        "GPU Rental: {0} has no space left for VS Code (about 1 GB once unpacked): {1}. Free space in the instance's home folder, then Open in Browser again.",
        name,
        detail,
      );
    case 'notAServer':
      return l10n.t(
        'GPU Rental: {0} is not a VS Code server release (no bin/code-server in it), so nothing was installed. Check gpuRental.browserWorkspace.downloadUrl.',
        release.url,
      );
    case 'noShaTool':
      return l10n.t(
        'GPU Rental: {0} has no sha256sum, shasum or openssl to check the download, so nothing was installed. Install coreutils on it, then Open in Browser again.',
        name,
      );
    case 'busy':
      return l10n.t(
        'GPU Rental: VS Code is already being installed on {0} (from another window). Wait a minute, then Open in Browser again.',
        name,
      );
    default:
      return l10n.t('GPU Rental: VS Code could not be installed on {0}: {1}.', name, detail || l10n.t('unknown error'));
  }
}

async function newForward(deps: OpenInBrowserDeps, instance: Instance, target: SshTarget, remotePort: number): Promise<PortForward> {
  const forward = deps.startForward ? await deps.startForward(instance, target, remotePort) : await forwardTo(target, remotePort);
  deps.forwards.add(forward);
  return forward;
}

/** What Close needs: the open workspaces and a way to run the stop script. */
export interface CloseDeps {
  readonly workspaces: BrowserWorkspaces;
  sshTarget(instanceId: number): Promise<SshTarget | undefined>;
  run?: RunRemote;
  readonly logger: Logger;
}

/** Ends the forward, then stops the server on the instance; says what happened. */
export async function closeBrowserWorkspace(deps: CloseDeps, instanceId: number): Promise<Notice> {
  const workspace = deps.workspaces.close(instanceId);
  const name = workspace?.name ?? `#${instanceId}`;
  const target = await deps.sshTarget(instanceId).catch(() => undefined);
  if (!target) return { severity: 'info', text: l10n.t('GPU Rental: the browser workspace on {0} is closed.', name) };
  const result = await (deps.run ?? runRemote)(target, bashCommand(stopScript()), { timeoutMs: 30_000 }).catch((error: Error) => {
    deps.logger.warn(`Stopping VS Code on instance #${instanceId}: ${error.message}`);
    return undefined;
  });
  if (result?.code === 0)
    return { severity: 'info', text: l10n.t('GPU Rental: the browser workspace on {0} is closed, and its VS Code server stopped.', name) };
  return {
    severity: 'warning',
    text: l10n.t(
      'GPU Rental: the browser workspace on {0} is closed here, but its VS Code server on the instance could not be stopped ({1}). It listens only on the instance itself; Close again once the instance answers.',
      name,
      result ? lastErrorLine(result.stderr) || l10n.t('exit code {0}', result.code) : l10n.t('no answer'),
    ),
  };
}
