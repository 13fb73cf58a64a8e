import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { instanceName } from '../../core/instances/names';
import { shellQuote } from '../../core/shell';
import type { Logger } from '../../core/log';
import { findLocalKey } from '../../core/ssh/localKeys';
import { sshArgv, type SshTarget } from '../../core/ssh/remote';
import {
  downloadBeforeDestroy as downloadFirst,
  downloadFlow,
  measureBeforeDestroy,
  type BrowsePick,
  type DownloadArgs,
  type DownloadFlowDeps,
  type DownloadOutcome,
} from '../../core/transfer/download';
import { notRunning, transferActionLabel, type TransferFailed } from '../../core/transfer/notices';
import { remoteJoin, type RemoteListing } from '../../core/transfer/remotePath';
import { uploadFlow, type UploadArgs, type UploadFlowDeps, type UploadOutcome } from '../../core/transfer/upload';
import { notify } from '../pickers/notify';
import { showProgress } from '../pickers/progress';
import { config } from '../host/config';
import { asker, type Prompts } from '../pickers/prompts';
import { resolveTarget, type Target, type TargetDeps } from './instances';
import { command, type CommandDefinition } from '../registry';

/** What Upload and Download use. */
export interface TransferDeps extends TargetDeps {
  /** Writes the instance's managed SSH entry (as Connect does) and says how ssh reaches it. */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

/**
 * Upload Folder to Instance and Download from Instance, from the palette or an instance's context
 * menu. What they ask and say is decided in core/transfer/upload.ts and download.ts; which tool
 * moves the files (rsync, else tar) in core/transfer/runner.ts.
 */
export function transferCommands(s: TransferDeps): CommandDefinition[] {
  return [
    command(COMMANDS.uploadFolder, (t?: Target, args?: UploadArgs) => uploadToTarget(s, t, args ?? {})),
    command(COMMANDS.downloadFromInstance, (t?: Target, args?: DownloadArgs) => downloadFromTarget(s, t, args ?? {})),
  ];
}

/**
 * Downloads from instance `instanceId` as Download from Instance does (asking for what `args`
 * leaves out), for another command such as Download Job Outputs. Resolves the local path, or
 * undefined when it did not complete (what happened is shown).
 */
export function downloadFromInstance(s: TransferDeps, instanceId: number, args: DownloadArgs): Promise<string | undefined> {
  return downloadFromTarget(s, instanceId, args);
}

async function downloadFromTarget(s: TransferDeps, t: Target, args: DownloadArgs): Promise<string | undefined> {
  const instance = await runningTarget(s, t, vscode.l10n.t('Download from which instance?'));
  return instance ? showDownload(await downloadFlow(downloadDeps(s), instance, args)) : undefined;
}

/**
 * Uploads a folder to instance `instanceId` as Upload Folder does (asking for what `args` leaves
 * out), for another command such as Run on Instance. Resolves the remote folder that holds the
 * files, or undefined when it did not complete (what happened is shown).
 */
export function uploadFolder(
  s: TransferDeps,
  instanceId: number,
  args: { localDir?: string; remoteDir?: string; quiet?: boolean },
): Promise<string | undefined> {
  return uploadToTarget(s, instanceId, args);
}

async function uploadToTarget(s: TransferDeps, t: Target, args: UploadArgs): Promise<string | undefined> {
  const instance = await runningTarget(s, t, vscode.l10n.t('Upload to which instance?'));
  return instance ? showUpload(instance, await uploadFlow(uploadDeps(s), instance, args)) : undefined;
}

/** The instance, when it is running; otherwise why files cannot move now is shown. */
async function runningTarget(s: TransferDeps, t: Target, title: string): Promise<Instance | undefined> {
  const instance = await resolveTarget(s, t, title, ['running']);
  if (!instance) return undefined;
  const refusal = notRunning(instance);
  if (!refusal) return instance;
  void notify(refusal, transferActionLabel);
  return undefined;
}

function uploadDeps(s: TransferDeps): UploadFlowDeps {
  return {
    ask: asker(s.prompts()),
    logger: s.logger,
    pickLocalFolder,
    sshTarget: s.sshTarget,
    progress: showProgress,
    transferFolder: config.transferFolder(),
    excludes: config.syncExclude(),
  };
}

function downloadDeps(s: TransferDeps): DownloadFlowDeps {
  return {
    ask: asker(s.prompts()),
    logger: s.logger,
    sshTarget: s.sshTarget,
    progress: showProgress,
    pickDownloadFolder,
    pickRemote,
    notify: (notice) => void notify(notice, transferActionLabel),
    transferFolder: config.transferFolder(),
  };
}

/** Shows how an upload ended; resolves the remote folder when it completed. */
function showUpload(instance: Instance, outcome: UploadOutcome | undefined): string | undefined {
  if (outcome?.kind === 'failed') return showFailure(outcome, (again) => showUpload(instance, again));
  if (!outcome) return undefined;
  if (outcome.notice)
    void notify(outcome.notice, transferActionLabel).then((choice) => {
      if (choice === 'copyPath') void vscode.env.clipboard.writeText(outcome.remoteDir);
      if (choice === 'openTerminal') openTerminalIn(instance, outcome.target, outcome.remoteDir);
    });
  return outcome.remoteDir;
}

/** Shows how a download ended; resolves the local path when it completed. */
function showDownload(outcome: DownloadOutcome | undefined): string | undefined {
  if (outcome?.kind === 'failed') return showFailure(outcome, showDownload);
  if (!outcome) return undefined;
  void notify(outcome.notice, transferActionLabel).then((choice) => {
    if (choice === 'reveal') void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(outcome.localPath));
  });
  return outcome.localPath;
}

/**
 * Shows a failed transfer, with Retry when trying again can help. It does not wait for the user:
 * the command ends, and Retry runs the transfer again and shows how that ended.
 */
function showFailure<T>(failed: TransferFailed<T>, show: (outcome: T | undefined) => unknown): undefined {
  void notify(failed.notice, transferActionLabel).then((choice) => {
    if (choice !== 'retry') return;
    // Outside the command now, so the guard does not see a second failure: show it here.
    failed.retry().then(show, (again: unknown) => {
      void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: {0}', again instanceof Error ? again.message : String(again)));
    });
  });
  return undefined;
}

/**
 * Bytes in the instance's transfer folder, for the destroy confirmation (core/transfer/download.ts
 * decides); undefined when it could not be asked within `timeoutMs`.
 */
export function measureForDestroy(
  s: Pick<TransferDeps, 'sshTarget' | 'logger'>,
  instance: Instance,
  timeoutMs = 5_000,
): Promise<{ folder: string; bytes: number | undefined } | undefined> {
  const hasLocalKey = async () => (await findLocalKey(config.sshIdentityFile())) !== undefined;
  return measureBeforeDestroy({ ...s, hasLocalKey, transferFolder: config.transferFolder() }, instance, timeoutMs);
}

/** Downloads the instance's folder before a destroy; true when it arrived completely. */
export async function downloadBeforeDestroy(s: TransferDeps, instance: Instance, folder: string): Promise<boolean> {
  return showDownload(await downloadFirst(downloadDeps(s), instance, folder)) !== undefined;
}

/** The workspace folder, a pick among several, or a folder dialog ("Choose another folder…"). */
async function pickLocalFolder(): Promise<string | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 1) return folders[0]!.uri.fsPath;
  if (folders.length > 1) {
    const other = { label: vscode.l10n.t('$(folder-opened) Choose another folder…'), path: undefined as string | undefined };
    const picked = await vscode.window.showQuickPick(
      [...folders.map((f) => ({ label: f.name, description: f.uri.fsPath, path: f.uri.fsPath })), other],
      {
        title: vscode.l10n.t('GPU Rental: Upload which folder?'),
      },
    );
    if (!picked) return undefined;
    if (picked.path) return picked.path;
  }
  const chosen = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Upload'),
  });
  return chosen?.[0]?.fsPath;
}

async function pickDownloadFolder(): Promise<string | undefined> {
  const workspace = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri;
  const chosen = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Download Here'),
    title: vscode.l10n.t('GPU Rental: Download into which folder?'),
    ...(workspace ? { defaultUri: workspace } : {}),
  });
  return chosen?.[0]?.fsPath;
}

/** The remote browser's quick pick over one folder's listing (core/transfer/download.ts walks the folders). */
async function pickRemote(view: {
  dir: string;
  parent: string | undefined;
  listing: RemoteListing;
  instance: Instance;
}): Promise<BrowsePick | undefined> {
  const { dir, parent, listing } = view;
  const items: Array<vscode.QuickPickItem & { pick: BrowsePick }> = [
    { label: vscode.l10n.t('$(cloud-download) Download this folder'), description: dir, pick: { action: 'here', path: dir } },
    ...(parent !== undefined ? [{ label: '$(arrow-up) ..', description: parent, pick: { action: 'open' as const, path: parent } }] : []),
    { label: vscode.l10n.t('$(edit) Type a path…'), pick: { action: 'type' } },
    ...listing.entries.map((e) => ({
      label: `$(${e.folder ? 'folder' : 'file'}) ${e.name}`,
      pick: { action: e.folder ? ('open' as const) : ('file' as const), path: remoteJoin(dir, e.name) },
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('GPU Rental: Download from {0}: {1}', instanceName(view.instance), dir),
    placeHolder: listing.refused
      ? vscode.l10n.t('{0} name(s) with control characters are not shown', listing.refused)
      : vscode.l10n.t('Pick a file, or open a folder'),
    matchOnDescription: true,
  });
  return picked?.pick;
}

/** An ssh terminal that starts in `dir` on the instance. */
function openTerminalIn(instance: Instance, target: SshTarget, dir: string): void {
  const terminal = vscode.window.createTerminal({
    name: vscode.l10n.t('GPU Rental: {0}', instance.label || `#${instance.id}`),
    shellPath: 'ssh',
    shellArgs: sshArgv(target, `cd -- ${shellQuote(dir)} && exec "\${SHELL:-/bin/sh}" -l`, ['-t']),
    iconPath: new vscode.ThemeIcon('remote'),
  });
  terminal.show();
}
