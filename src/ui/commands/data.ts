import * as vscode from 'vscode';
import type { CloudConnection, CloudDirection } from '../../core/api/copy';
import { isApiError } from '../../core/api/errors';
import type { Instance } from '../../core/api/instances';
import { formatDollars } from '../../core/format';
import { COMMANDS } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import type { InstancePoller } from '../../core/instances/poller';
import { instanceLabel, instanceName } from '../../core/instances/names';
import { currentRate } from '../../core/instances/rates';
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
  if (!v.startsWith('/')) return vscode.l10n.t('Enter an absolute path on the instance, such as /workspace/data/.');
  if (/[\0\r\n]/.test(v)) return vscode.l10n.t('A path is one line.');
  return undefined;
}

function checkBucketPath(value: string): string | undefined {
  const v = value.trim();
  if (v === '') return vscode.l10n.t('Enter a path in the cloud storage, such as datasets/run1/.');
  if (/[\0\r\n]/.test(v)) return vscode.l10n.t('A path is one line.');
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
  const src = await resolveTarget(s, t, vscode.l10n.t('Copy a folder from which instance?'), ['running']);
  if (!src) return undefined;
  const input = inputOf(s.prompts());
  const srcPath =
    args.srcPath ??
    (await input({
      title: vscode.l10n.t('GPU Rental: copy from {0}', instanceName(src)),
      prompt: vscode.l10n.t('The folder (or file) to copy. Ending in / copies what the folder holds; without it, the folder itself.'),
      value: config.remoteFolder() || '/workspace/',
      validate: checkRemotePath,
    }));
  if (srcPath === undefined || checkRemotePath(srcPath)) return undefined;
  const dst = args.dstId !== undefined ? await resolveTarget(s, args.dstId, '', undefined) : await pickDestination(s, src);
  if (!dst) return undefined;
  if (dst.id === src.id)
    throw new Error(
      vscode.l10n.t('Pick another instance to copy to than {0}: a copy goes from one instance to another.', instanceName(src)),
    );
  const dstPath =
    args.dstPath ??
    (await input({
      title: vscode.l10n.t('GPU Rental: copy {0} to {1}', srcPath.trim(), instanceName(dst)),
      prompt: vscode.l10n.t('Where on {0} to put it.', instanceName(dst)),
      value: config.remoteFolder() || '/workspace/',
      validate: checkRemotePath,
    }));
  if (dstPath === undefined || checkRemotePath(dstPath)) return undefined;

  const before = await statusBefore(s, dst);
  const what = vscode.l10n.t(
    'the copy of {0} from {1} to {2} on {3}',
    srcPath.trim(),
    instanceName(src),
    dstPath.trim(),
    instanceName(dst),
  );
  try {
    await s.session.client.copy.copyBetweenInstances({ srcId: src.id, dstId: dst.id, srcPath: srcPath.trim(), dstPath: dstPath.trim() });
  } catch (error) {
    if (isApiError(error) && error.outcomeUnknown) return unknownStart(s, what, dst, error);
    throw error;
  }
  s.logger.info(`Started ${what}.`);
  return follow(s, {
    title: vscode.l10n.t('GPU Rental: copying {0} to {1}', srcPath.trim(), instanceName(dst)),
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
      vscode.l10n.t('GPU Rental: no other running instance to copy to. Start or rent one, then copy from {0} again.', instanceName(src)),
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
    {
      title: vscode.l10n.t('GPU Rental: copy from {0} to which instance?', instanceName(src)),
      placeHolder: vscode.l10n.t('The instance to copy to'),
    },
  );
  return picked?.instance;
}

async function cloudSync(s: DataDeps, t: Target, args: CloudSyncArgs): Promise<TransferOutcome | undefined> {
  const instance = await resolveTarget(s, t, vscode.l10n.t('Sync which instance with cloud storage?'), ['running']);
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
      throw new Error(vscode.l10n.t('The account has no cloud connection {0}; pick one of its connections.', args.connectionId));
    return undefined;
  }
  const bucket = connectionName(connection);
  const toCloud = direction === 'Instance To Cloud';
  const input = inputOf(s.prompts());
  const askInstance = (prompt: string) =>
    input({
      title: vscode.l10n.t('GPU Rental: sync with {0}', bucket),
      prompt,
      value: config.remoteFolder() || '/workspace/',
      validate: checkRemotePath,
    });
  const askBucket = (prompt: string) =>
    input({
      title: vscode.l10n.t('GPU Rental: sync with {0}', bucket),
      prompt,
      placeholder: 'folder/in/storage/',
      validate: checkBucketPath,
    });
  const src =
    args.src ??
    (await (toCloud
      ? askInstance(vscode.l10n.t('The folder on {0} to send.', instanceName(instance)))
      : askBucket(vscode.l10n.t('The folder in {0} to fetch.', bucket))));
  if (src === undefined || (toCloud ? checkRemotePath(src) : checkBucketPath(src))) return undefined;
  const dst =
    args.dst ??
    (await (toCloud
      ? askBucket(vscode.l10n.t('Where in {0} to put it.', bucket))
      : askInstance(vscode.l10n.t('Where on {0} to put it.', instanceName(instance)))));
  if (dst === undefined || (toCloud ? checkBucketPath(dst) : checkRemotePath(dst))) return undefined;

  const before = await statusBefore(s, instance);
  const what = toCloud
    ? vscode.l10n.t('the sync of {0} on {1} to {2} in {3}', src.trim(), instanceName(instance), dst.trim(), bucket)
    : vscode.l10n.t('the sync of {0} in {1} to {2} on {3}', src.trim(), bucket, dst.trim(), instanceName(instance));
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
    title: toCloud
      ? vscode.l10n.t('GPU Rental: sending {0} to {1}', src.trim(), bucket)
      : vscode.l10n.t('GPU Rental: fetching {0} from {1}', src.trim(), bucket),
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
        label: vscode.l10n.t('Instance → Cloud'),
        description: vscode.l10n.t('send a folder of {0} to cloud storage', instanceName(instance)),
        value: 'Instance To Cloud' as const,
      },
      {
        label: vscode.l10n.t('Cloud → Instance'),
        description: vscode.l10n.t('fetch a folder from cloud storage onto {0}', instanceName(instance)),
        value: 'Cloud To Instance' as const,
      },
    ],
    { title: vscode.l10n.t('GPU Rental: sync with cloud storage'), placeHolder: vscode.l10n.t('Which way') },
  );
  return picked?.value;
}

function connectionName(c: CloudConnection): string {
  return c.name?.trim() || vscode.l10n.t('cloud connection {0}', c.id);
}

async function pickConnection(connections: readonly CloudConnection[]): Promise<CloudConnection | undefined> {
  if (connections.length === 1) return connections[0];
  const picked = await vscode.window.showQuickPick(
    connections.map((c) => ({ label: connectionName(c), description: [c.cloud_type, `#${c.id}`].filter(Boolean).join(' · '), c })),
    {
      title: vscode.l10n.t('GPU Rental: sync with which cloud connection?'),
      placeHolder: vscode.l10n.t("The account's cloud connections"),
    },
  );
  return picked?.c;
}

/** No connection yet: they are added in the service's console, whose address is the session's base URL. */
function noConnection(s: DataDeps): void {
  const url = consoleAccountUrl(s.session.normalizedBaseUrl);
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t(
        'GPU Rental: the account has no cloud connection. Add one in the web console under Account → Cloud Connections, then sync again.',
      ),
      vscode.l10n.t('Open Console'),
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
      vscode.l10n.t(
        "GPU Rental: {0} may have started: the service's answer was lost. Check {1}'s status and logs before starting it again.",
        what,
        instanceName(dst),
      ),
      vscode.l10n.t('Show Instance Logs'),
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
      progress.report({ message: vscode.l10n.t('started; the service reports progress with some delay') });
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
    if (choice === vscode.l10n.t('Show Instance Logs')) void vscode.commands.executeCommand(COMMANDS.showInstanceLogs, f.dst.id);
  };
  switch (end.outcome) {
    case 'done':
      s.logger.info(`${f.what}: ${end.message}`);
      void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: {0} finished ({1}).', f.what, end.message));
      break;
    case 'failed':
      s.logger.warn(`${f.what}: ${end.message}`);
      void vscode.window
        .showErrorMessage(
          vscode.l10n.t("GPU Rental: {0} failed: {1}. Check the paths and {2}'s logs, then try again.", f.what, end.message, name),
          vscode.l10n.t('Show Instance Logs'),
        )
        .then(logs);
      break;
    case 'interrupted':
      void vscode.window
        .showWarningMessage(
          vscode.l10n.t(
            'GPU Rental: {0} is {1} and {2} did not say it finished. Check the files once {3} runs again.',
            name,
            end.phase,
            f.what,
            name,
          ),
          vscode.l10n.t('Show Instance Logs'),
        )
        .then(logs);
      break;
    case 'quiet':
      void vscode.window
        .showWarningMessage(
          end.lastMessage
            ? vscode.l10n.t(
                "GPU Rental: no news of {0} for 10 minutes (last: {1}); whether it finished is not known. Check {2}'s status and logs.",
                f.what,
                end.lastMessage,
                name,
              )
            : vscode.l10n.t(
                "GPU Rental: no news of {0} for 10 minutes; whether it finished is not known. Check {1}'s status and logs.",
                f.what,
                name,
              ),
          vscode.l10n.t('Show Instance Logs'),
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
      vscode.l10n.t(
        'GPU Rental: cancelled {0}. What was copied so far stays on {1}; check it before using it.',
        f.what,
        instanceName(f.dst),
      ),
    );
  } catch (error) {
    const unknown = isApiError(error) && error.outcomeUnknown;
    s.logger.warn(`Cancelling ${f.what}: ${(error as Error).message}`);
    void vscode.window.showWarningMessage(
      unknown
        ? vscode.l10n.t(
            "GPU Rental: the cancel of {0} got no answer; it may still be running. Check {1}'s status, and cancel again if it is.",
            f.what,
            instanceName(f.dst),
          )
        : vscode.l10n.t(
            "GPU Rental: could not cancel {0}: {1}. It may still be running; check {2}'s status.",
            f.what,
            (error as Error).message,
            instanceName(f.dst),
          ),
    );
  }
}
