import * as vscode from 'vscode';
import type { CloudConnection, CloudDirection } from '../../core/api/copy';
import { isApiError } from '../../core/api/errors';
import type { Instance } from '../../core/api/instances';
import { formatDollars } from '../../core/format';
import { COMMANDS } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import type { InstancePoller } from '../../core/instances/poller';
import { currentRate, instanceLabel, instanceName } from '../../core/instances/present';
import { followTransfer, type TransferEnd } from '../../core/instances/copyProgress';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import { config } from '../config';
import { inputOf, type Prompts } from '../prompts';
import type { RemoteHandoff } from '../remote';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from './registry';

/** What the copy and cloud-sync commands use. */
export interface DataDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  /** Getters: integration tests replace the prompts and the handoff at run time. */
  readonly prompts: () => Prompts;
  readonly handoff: () => RemoteHandoff;
  readonly logger: Logger;
}

/** How a copy or sync ended, for the tests: what the service's status message said, or why it is not known. */
export type TransferOutcome = TransferEnd['outcome'] | 'unknown' | 'refused' | 'noConnection';

/** Given by automation and tests instead of asking; anything left out is asked for. */
export interface CopyArgs {
  srcPath?: string;
  dstId?: number;
  dstPath?: string;
}

export interface CloudSyncArgs {
  direction?: CloudDirection;
  connectionId?: number;
  src?: string;
  dst?: string;
}

/** A path on an instance: absolute, one line. It travels to the service, which runs the copy there. */
function checkRemotePath(value: string): string | undefined {
  const v = value.trim();
  if (!v.startsWith('/')) return 'Enter an absolute path on the instance, such as /workspace/data/.';
  if (/[\0\r\n]/.test(v)) return 'A path is one line.';
  return undefined;
}

function checkBucketPath(value: string): string | undefined {
  const v = value.trim();
  if (v === '') return 'Enter a path in the cloud storage, such as datasets/run1/.';
  if (/[\0\r\n]/.test(v)) return 'A path is one line.';
  return undefined;
}

/** Copy a folder between two of the account's instances, and sync an instance with cloud storage. */
export function dataCommands(s: DataDeps): CommandDefinition[] {
  return [
    command(COMMANDS.copyBetweenInstances, (t?: Target, args?: CopyArgs) => copyBetween(s, t, args ?? {})),
    command(COMMANDS.cloudSync, (t?: Target, args?: CloudSyncArgs) => cloudSync(s, t, args ?? {})),
  ];
}

async function copyBetween(s: DataDeps, t: Target, args: CopyArgs): Promise<TransferOutcome | undefined> {
  const src = await resolveTarget(s, t, 'Copy a folder from which instance?', ['running']);
  if (!src) return undefined;
  const input = inputOf(s.prompts());
  const srcPath =
    args.srcPath ??
    (await input({
      title: `GPU Rental: copy from ${instanceName(src)}`,
      prompt: 'The folder (or file) to copy. Ending in / copies what the folder holds; without it, the folder itself.',
      value: config.remoteFolder() || '/workspace/',
      validate: checkRemotePath,
    }));
  if (srcPath === undefined || checkRemotePath(srcPath)) return undefined;
  const dst = args.dstId !== undefined ? await resolveTarget(s, args.dstId, '', undefined) : await pickDestination(s, src);
  if (!dst) return undefined;
  if (dst.id === src.id)
    throw new Error(`Pick another instance to copy to than ${instanceName(src)}: a copy goes from one instance to another.`);
  const dstPath =
    args.dstPath ??
    (await input({
      title: `GPU Rental: copy ${srcPath.trim()} to ${instanceName(dst)}`,
      prompt: `Where on ${instanceName(dst)} to put it.`,
      value: config.remoteFolder() || '/workspace/',
      validate: checkRemotePath,
    }));
  if (dstPath === undefined || checkRemotePath(dstPath)) return undefined;

  const before = await statusBefore(s, dst);
  const what = `the copy of ${srcPath.trim()} from ${instanceName(src)} to ${dstPath.trim()} on ${instanceName(dst)}`;
  try {
    await s.session.client.copy.copyBetweenInstances({ srcId: src.id, dstId: dst.id, srcPath: srcPath.trim(), dstPath: dstPath.trim() });
  } catch (error) {
    if (isApiError(error) && error.outcomeUnknown) return unknownStart(s, what, dst, error);
    throw error;
  }
  s.logger.info(`Started ${what}.`);
  return follow(s, {
    title: `GPU Rental: copying ${srcPath.trim()} to ${instanceName(dst)}`,
    what,
    dst,
    before,
    cancel: () => s.session.client.copy.cancelCopy(dst.id),
  });
}

/** The account's other running instances, each with its label and price. */
async function pickDestination(s: DataDeps, src: Instance): Promise<Instance | undefined> {
  await s.poller.refresh();
  const others = (s.poller.snapshot?.instances ?? []).filter((i) => i.id !== src.id && instancePhase(i) === 'running');
  if (others.length === 0) {
    void vscode.window.showInformationMessage(
      `GPU Rental: no other running instance to copy to. Start or rent one, then copy from ${instanceName(src)} again.`,
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    others.map((instance) => {
      const rate = currentRate(instance);
      return {
        label: instanceLabel(instance),
        description: [`#${instance.id}`, rate !== undefined ? `${formatDollars(rate)}/h` : undefined].filter(Boolean).join(' · '),
        instance,
      };
    }),
    { title: `GPU Rental: copy from ${instanceName(src)} to which instance?`, placeHolder: 'The instance to copy to' },
  );
  return picked?.instance;
}

async function cloudSync(s: DataDeps, t: Target, args: CloudSyncArgs): Promise<TransferOutcome | undefined> {
  const instance = await resolveTarget(s, t, 'Sync which instance with cloud storage?', ['running']);
  if (!instance) return undefined;
  const direction = args.direction ?? (await pickDirection(instance));
  if (!direction) return undefined;
  const connections = await s.session.client.copy.cloudConnections();
  if (connections.length === 0) {
    noConnection(s);
    return 'noConnection';
  }
  const connection =
    args.connectionId !== undefined ? connections.find((c) => c.id === args.connectionId) : await pickConnection(connections);
  if (!connection) {
    if (args.connectionId !== undefined)
      throw new Error(`The account has no cloud connection ${args.connectionId}; pick one of its connections.`);
    return undefined;
  }
  const bucket = connectionName(connection);
  const toCloud = direction === 'Instance To Cloud';
  const input = inputOf(s.prompts());
  const askInstance = (prompt: string) =>
    input({ title: `GPU Rental: sync with ${bucket}`, prompt, value: config.remoteFolder() || '/workspace/', validate: checkRemotePath });
  const askBucket = (prompt: string) =>
    input({ title: `GPU Rental: sync with ${bucket}`, prompt, placeholder: 'folder/in/storage/', validate: checkBucketPath });
  const src =
    args.src ??
    (await (toCloud ? askInstance(`The folder on ${instanceName(instance)} to send.`) : askBucket(`The folder in ${bucket} to fetch.`)));
  if (src === undefined || (toCloud ? checkRemotePath(src) : checkBucketPath(src))) return undefined;
  const dst =
    args.dst ??
    (await (toCloud ? askBucket(`Where in ${bucket} to put it.`) : askInstance(`Where on ${instanceName(instance)} to put it.`)));
  if (dst === undefined || (toCloud ? checkBucketPath(dst) : checkRemotePath(dst))) return undefined;

  const before = await statusBefore(s, instance);
  const what = toCloud
    ? `the sync of ${src.trim()} on ${instanceName(instance)} to ${dst.trim()} in ${bucket}`
    : `the sync of ${src.trim()} in ${bucket} to ${dst.trim()} on ${instanceName(instance)}`;
  try {
    await s.session.client.copy.cloudSync({
      instanceId: instance.id,
      connectionId: connection.id,
      direction,
      src: src.trim(),
      dst: dst.trim(),
    });
  } catch (error) {
    if (isApiError(error) && error.outcomeUnknown) return unknownStart(s, what, instance, error);
    throw error;
  }
  s.logger.info(`Started ${what}.`);
  return follow(s, {
    title: toCloud ? `GPU Rental: sending ${src.trim()} to ${bucket}` : `GPU Rental: fetching ${src.trim()} from ${bucket}`,
    what,
    dst: instance,
    before,
    cancel: () => s.session.client.copy.cancelCloudSync(instance.id),
  });
}

async function pickDirection(instance: Instance): Promise<CloudDirection | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: 'Instance → Cloud',
        description: `send a folder of ${instanceName(instance)} to cloud storage`,
        value: 'Instance To Cloud' as const,
      },
      {
        label: 'Cloud → Instance',
        description: `fetch a folder from cloud storage onto ${instanceName(instance)}`,
        value: 'Cloud To Instance' as const,
      },
    ],
    { title: 'GPU Rental: sync with cloud storage', placeHolder: 'Which way' },
  );
  return picked?.value;
}

function connectionName(c: CloudConnection): string {
  return c.name?.trim() || `cloud connection ${c.id}`;
}

async function pickConnection(connections: readonly CloudConnection[]): Promise<CloudConnection | undefined> {
  if (connections.length === 1) return connections[0];
  const picked = await vscode.window.showQuickPick(
    connections.map((c) => ({ label: connectionName(c), description: [c.cloud_type, `#${c.id}`].filter(Boolean).join(' · '), c })),
    { title: 'GPU Rental: sync with which cloud connection?', placeHolder: "The account's cloud connections" },
  );
  return picked?.c;
}

/** No connection yet: they are added in the service's console, whose address is the session's base URL. */
function noConnection(s: DataDeps): void {
  const url = consoleAccountUrl(s.session.normalizedBaseUrl);
  void vscode.window
    .showInformationMessage(
      'GPU Rental: the account has no cloud connection. Add one in the web console under Account → Cloud Connections, then sync again.',
      'Open Console',
    )
    .then((choice) => {
      if (!choice || !url) return;
      const handoff = s.handoff();
      const uri = vscode.Uri.parse(url);
      void (handoff.openExternal ? handoff.openExternal(uri) : vscode.env.openExternal(uri));
    });
}

/** The console's account page (Cloud Connections are there), on the host the session talks to. */
function consoleAccountUrl(baseUrl: string | undefined): string | undefined {
  return baseUrl && URL.canParse(baseUrl) ? new URL('/account/', baseUrl).toString() : undefined;
}

/** The destination's status message now, to tell this transfer's news from an older one's. */
async function statusBefore(s: DataDeps, instance: Instance): Promise<string | null | undefined> {
  const fresh = await s.session.client.instances.show(instance.id).catch(() => instance);
  return fresh.status_msg;
}

/** The start's answer was lost: it may be running. Never "nothing happened". */
function unknownStart(s: DataDeps, what: string, dst: Instance, error: Error): TransferOutcome {
  s.logger.warn(`${what}: the answer to the start was not seen (${error.message})`);
  void vscode.window
    .showWarningMessage(
      `GPU Rental: ${what} may have started: the service's answer was lost. Check ${instanceName(dst)}'s status and logs before starting it again.`,
      'Show Instance Logs',
    )
    .then((choice) => {
      if (choice) void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, dst.id);
    });
  return 'unknown';
}

interface Follow {
  title: string;
  what: string;
  dst: Instance;
  before: string | null | undefined;
  cancel: () => Promise<void>;
}

/** A progress notification that follows the destination's status message, with Cancel that cancels the transfer itself. */
async function follow(s: DataDeps, f: Follow): Promise<TransferOutcome> {
  const end = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: f.title, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      let shown = 0;
      progress.report({ message: 'started; the service reports progress with some delay' });
      try {
        return await followTransfer(s.poller, f.dst.id, {
          before: f.before,
          signal: abort.signal,
          onProgress: (r) => {
            const percent = r.kind === 'progress' ? r.percent : undefined;
            const increment = percent !== undefined && percent > shown ? percent - shown : undefined;
            if (increment !== undefined) shown = percent!;
            progress.report({ message: r.message, ...(increment !== undefined ? { increment } : {}) });
          },
        });
      } finally {
        cancel.dispose();
      }
    },
  );
  const name = instanceName(f.dst);
  const logs = (choice: string | undefined) => {
    if (choice === 'Show Instance Logs') void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, f.dst.id);
  };
  switch (end.outcome) {
    case 'done':
      s.logger.info(`${f.what}: ${end.message}`);
      void vscode.window.showInformationMessage(`GPU Rental: ${f.what} finished (${end.message}).`);
      break;
    case 'failed':
      s.logger.warn(`${f.what}: ${end.message}`);
      void vscode.window
        .showErrorMessage(
          `GPU Rental: ${f.what} failed: ${end.message}. Check the paths and ${name}'s logs, then try again.`,
          'Show Instance Logs',
        )
        .then(logs);
      break;
    case 'interrupted':
      void vscode.window
        .showWarningMessage(
          `GPU Rental: ${name} is ${end.phase} and ${f.what} did not say it finished. Check the files once ${name} runs again.`,
          'Show Instance Logs',
        )
        .then(logs);
      break;
    case 'quiet':
      void vscode.window
        .showWarningMessage(
          `GPU Rental: no news of ${f.what} for 10 minutes${end.lastMessage ? ` (last: ${end.lastMessage})` : ''}; whether it finished is not known. Check ${name}'s status and logs.`,
          'Show Instance Logs',
        )
        .then(logs);
      break;
    case 'cancelled':
      await cancelTransfer(s, f);
      break;
  }
  return end.outcome;
}

async function cancelTransfer(s: DataDeps, f: Follow): Promise<void> {
  try {
    await f.cancel();
    s.logger.info(`Cancelled ${f.what}.`);
    void vscode.window.showInformationMessage(
      `GPU Rental: cancelled ${f.what}. What was copied so far stays on ${instanceName(f.dst)}; check it before using it.`,
    );
  } catch (error) {
    const unknown = isApiError(error) && error.outcomeUnknown;
    s.logger.warn(`Cancelling ${f.what}: ${(error as Error).message}`);
    void vscode.window.showWarningMessage(
      unknown
        ? `GPU Rental: the cancel of ${f.what} got no answer; it may still be running. Check ${instanceName(f.dst)}'s status, and cancel again if it is.`
        : `GPU Rental: could not cancel ${f.what}: ${(error as Error).message}. It may still be running; check ${instanceName(f.dst)}'s status.`,
    );
  }
}
