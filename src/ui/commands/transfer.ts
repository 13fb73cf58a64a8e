import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import { instanceName } from '../../core/instances/names';
import { shellQuote } from '../../core/instances/ssh';
import type { Logger } from '../../core/log';
import { findLocalKey } from '../../core/ssh/localKeys';
import { sshArgv, type SshTarget } from '../../core/ssh/remote';
import { TransferError } from '../../core/transfer/errors';
import { describeProgress, formatBytes, type TransferProgress } from '../../core/transfer/progress';
import { checkRemotePath, remoteJoin, remoteParent } from '../../core/transfer/remotePath';
import { download, listRemote, remoteSize, upload, type TransferOptions } from '../../core/transfer/runner';
import { config } from '../config';
import type { Prompts } from '../prompts';
import { resolveTarget, type Target, type TargetDeps } from './instances';
import { command, type CommandDefinition } from './registry';

/** What Upload and Download use. */
export interface TransferDeps extends TargetDeps {
  /** Writes the instance's managed SSH entry (as Connect does) and says how ssh reaches it. */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

/** Arguments automation may pass instead of answering the pickers. */
interface UploadArgs {
  localDir?: string;
  remoteDir?: string;
  /** No message at the end (another command, such as Run on Instance, goes on and says what happened). */
  quiet?: boolean;
}
interface DownloadArgs {
  remotePath?: string;
  localDir?: string;
}

/** Upload Folder to Instance and Download from Instance, from the palette or an instance's context menu. */
export function transferCommands(s: TransferDeps): CommandDefinition[] {
  return [
    command(COMMANDS.uploadFolder, async (t?: Target, args?: UploadArgs) => {
      const instance = await runningTarget(s, t, vscode.l10n.t('Upload to which instance?'));
      return instance ? await uploadTo(s, instance, args ?? {}) : undefined;
    }),
    command(COMMANDS.downloadFromInstance, async (t?: Target, args?: DownloadArgs) => {
      const instance = await runningTarget(s, t, vscode.l10n.t('Download from which instance?'));
      return instance ? await downloadFrom(s, instance, args ?? {}) : undefined;
    }),
  ];
}

/** The instance, when it is running; a stopped one has no address, and nothing here starts it (that bills). */
async function runningTarget(s: TransferDeps, t: Target, title: string): Promise<Instance | undefined> {
  const instance = await resolveTarget(s, t, title, ['running']);
  if (!instance) return undefined;
  if (instancePhase(instance) !== 'running') {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'GPU Rental: {0} is {1}, so files cannot move to or from it now. Start it yourself when you want it running (it bills while it runs), then try again.',
        instanceName(instance),
        instancePhase(instance),
      ),
    );
    return undefined;
  }
  return instance;
}

async function uploadTo(s: TransferDeps, instance: Instance, args: UploadArgs): Promise<string | undefined> {
  const localDir = args.localDir ?? (await pickLocalFolder());
  if (!localDir) return undefined;
  const suggested = remoteJoin(checkRemotePath(config.transferFolder()), path.basename(localDir) || 'upload');
  const remoteDir =
    args.remoteDir ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: Upload {0} to {1}', path.basename(localDir), instanceName(instance)),
      prompt: vscode.l10n.t('The folder on the instance that will hold the files (made when missing). Only what changed is sent.'),
      value: suggested,
      ignoreFocusOut: true,
      validateInput: (v) => validRemote(v),
    }));
  if (remoteDir === undefined) return undefined;
  const target = await s.sshTarget(instance);
  const excludes = config.syncExclude();
  const run = async (): Promise<string | undefined> => {
    const result = await withTransferProgress(
      vscode.l10n.t('uploading {0} to {1}', path.basename(localDir), instanceName(instance)),
      (options) => upload(target, { localDir, remoteDir, excludes }, options),
    ).catch((error: unknown) => failed(s, error, run));
    if (!result) return undefined;
    const bytes = formatBytes(result.bytesSent);
    const what = result.filesSent === 1 ? vscode.l10n.t('1 file, {0}', bytes) : vscode.l10n.t('{0} files, {1}', result.filesSent, bytes);
    const summary =
      result.method === 'tar'
        ? vscode.l10n.t('{0} with tar ({1})', what, result.notice ?? vscode.l10n.t('no rsync'))
        : result.filesSent === 0
          ? vscode.l10n.t('{0}, nothing had changed', what)
          : what;
    s.logger.info(
      `Uploaded ${localDir} to ${result.remoteDir} on #${instance.id}: ${result.filesSent} file(s), ${bytes} by ${result.method}${result.notice ? ` (${result.notice})` : ''}`,
    );
    if (args.quiet) return result.remoteDir;
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t(
          'GPU Rental: uploaded {0} to {1} on {2}: {3}.',
          path.basename(localDir),
          result.remoteDir,
          instanceName(instance),
          summary,
        ),
        vscode.l10n.t('Open Terminal in Folder'),
        vscode.l10n.t('Copy Path'),
      )
      .then((choice) => {
        if (choice === vscode.l10n.t('Copy Path')) void vscode.env.clipboard.writeText(result.remoteDir);
        if (choice === vscode.l10n.t('Open Terminal in Folder')) openTerminalIn(instance, target, result.remoteDir);
      });
    return result.remoteDir;
  };
  return run();
}

async function downloadFrom(s: TransferDeps, instance: Instance, args: DownloadArgs): Promise<string | undefined> {
  const target = await s.sshTarget(instance);
  const remotePath = args.remotePath ?? (await browseRemote(target, instance, config.transferFolder()));
  if (remotePath === undefined) return undefined;
  return downloadPath(s, instance, target, remotePath, args.localDir);
}

/**
 * Downloads `remotePath` into a local folder (asked for when not given), asking before an
 * existing copy is replaced. Resolves the local path, or undefined when it did not complete.
 */
async function downloadPath(
  s: TransferDeps,
  instance: Instance,
  target: SshTarget,
  remotePath: string,
  localDir?: string,
): Promise<string | undefined> {
  const into = localDir ?? (await pickDownloadFolder());
  if (!into) return undefined;
  const run = async (replace: boolean): Promise<string | undefined> => {
    try {
      const result = await withTransferProgress(vscode.l10n.t('downloading {0} from {1}', remotePath, instanceName(instance)), (options) =>
        download(target, { remotePath, localDir: into, replace }, options),
      );
      s.logger.info(
        `Downloaded ${remotePath} from #${instance.id} to ${result.localPath} (${formatBytes(result.bytesSent)}, ${result.method})`,
      );
      void vscode.window
        .showInformationMessage(
          result.notice
            ? vscode.l10n.t(
                'GPU Rental: downloaded {0} from {1} to {2} ({3}).',
                remotePath,
                instanceName(instance),
                result.localPath,
                result.notice,
              )
            : vscode.l10n.t('GPU Rental: downloaded {0} from {1} to {2}.', remotePath, instanceName(instance), result.localPath),
          vscode.l10n.t('Reveal'),
        )
        .then((choice) => {
          if (choice) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(result.localPath));
        });
      return result.localPath;
    } catch (error) {
      if (error instanceof TransferError && error.fault === 'targetExists') {
        const ok = await s
          .prompts()
          .confirm(
            vscode.l10n.t('{0} exists already.', path.join(into, path.basename(remotePath))),
            vscode.l10n.t('Replace it with the download? The old copy is removed only once the new one has arrived completely.'),
            vscode.l10n.t('Replace'),
          );
        return ok ? run(true) : undefined;
      }
      return failed(s, error, () => run(replace));
    }
  };
  return run(false);
}

/**
 * Bytes in the instance's transfer folder, for the destroy confirmation: asked over ssh, given
 * up after `timeoutMs` so a silent instance never holds up a destroy. Undefined when it could not
 * be asked; `bytes` undefined when the folder does not exist.
 */
export async function measureForDestroy(
  s: Pick<TransferDeps, 'sshTarget' | 'logger'>,
  instance: Instance,
  timeoutMs = 5_000,
): Promise<{ folder: string; bytes: number | undefined } | undefined> {
  const folder = checkRemotePath(config.transferFolder());
  // Without a local key, preparing the SSH entry would offer to create one: not a question for a destroy.
  if (!(await findLocalKey(config.sshIdentityFile()))) return undefined;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const asked = (async () => {
      const target = await s.sshTarget(instance);
      return { folder, bytes: await remoteSize(target, folder, timeoutMs, { signal: abort.signal }) };
    })();
    const gaveUp = new Promise<undefined>((resolve) => abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    return await Promise.race([asked, gaveUp]);
  } catch (error) {
    s.logger.warn(
      `Could not measure ${folder} on #${instance.id} before destroying: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Downloads the instance's folder before a destroy; true when it arrived completely. */
export async function downloadBeforeDestroy(s: TransferDeps, instance: Instance, folder: string): Promise<boolean> {
  const target = await s.sshTarget(instance);
  return (await downloadPath(s, instance, target, folder)) !== undefined;
}

/** Runs a transfer under a cancellable notification: percent, bytes and rate, and what the fallback is. */
function withTransferProgress<T>(title: string, run: (options: TransferOptions) => Promise<T>): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental: {0}', title), cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const cancel = token.onCancellationRequested(() => abort.abort());
        let notice = '';
        let shown = 0;
        let lastAt = 0;
        const report = (p: TransferProgress) => {
          const now = Date.now();
          if (now - lastAt < 250 && p.percent !== 100) return;
          lastAt = now;
          const percent = p.percent ?? shown;
          progress.report({ message: `${notice}${describeProgress(p)}`, increment: Math.max(0, percent - shown) });
          shown = Math.max(shown, percent);
        };
        try {
          return await run({
            signal: abort.signal,
            onProgress: report,
            onNotice: (text) => {
              notice = `${text} `;
              progress.report({ message: text });
            },
          });
        } finally {
          cancel.dispose();
        }
      },
    ),
  );
}

/**
 * Shows a failed transfer: what happened, where partial data is, and Retry when trying again can
 * help. It does not wait for the user: the command ends, and Retry runs the transfer again.
 */
function failed(s: TransferDeps, error: unknown, retry: () => Promise<string | undefined>): undefined {
  if (!(error instanceof TransferError)) throw error;
  s.logger.warn(`Transfer failed (${error.fault}): ${error.message}`);
  const show = error.fault === 'cancelled' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
  void show(vscode.l10n.t('GPU Rental: {0}', error.message), ...(error.retryable ? [vscode.l10n.t('Retry')] : [])).then((choice) => {
    if (choice === undefined) return;
    // Outside the command now, so the guard does not see a second failure: show it here.
    retry().catch(
      (again: unknown) =>
        void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: {0}', again instanceof Error ? again.message : String(again))),
    );
  });
  return undefined;
}

function validRemote(value: string): string | undefined {
  try {
    checkRemotePath(value);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
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
    openLabel: 'Upload',
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

type BrowseItem = vscode.QuickPickItem & { action: 'here' | 'up' | 'type' | 'open' | 'file'; path?: string };

/**
 * A folder browser over ssh: lists with `ls -Apb`, ".." goes up, a folder opens, a file is
 * picked, "Download this folder" picks the folder shown, "Type a path…" asks for one.
 */
async function browseRemote(target: SshTarget, instance: Instance, start: string): Promise<string | undefined> {
  let dir = checkRemotePath(start);
  for (;;) {
    let listing;
    try {
      listing = await listRemote(target, dir);
    } catch (error) {
      if (error instanceof TransferError && error.fault === 'remoteMissing' && dir !== '.') {
        void vscode.window.showWarningMessage(
          vscode.l10n.t('GPU Rental: {0} does not exist on {1}; showing its home folder.', dir, instanceName(instance)),
        );
        dir = '.';
        continue;
      }
      throw error;
    }
    dir = listing.path || dir;
    const items: BrowseItem[] = [
      { label: vscode.l10n.t('$(cloud-download) Download this folder'), description: dir, action: 'here', path: dir },
      ...(dir !== '/' ? [{ label: '$(arrow-up) ..', description: remoteParent(dir), action: 'up' as const, path: remoteParent(dir) }] : []),
      { label: vscode.l10n.t('$(edit) Type a path…'), action: 'type' },
      ...listing.entries.map((e): BrowseItem => ({
        label: `$(${e.folder ? 'folder' : 'file'}) ${e.name}`,
        action: e.folder ? 'open' : 'file',
        path: remoteJoin(dir, e.name),
      })),
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('GPU Rental: Download from {0}: {1}', instanceName(instance), dir),
      placeHolder: listing.refused
        ? vscode.l10n.t('{0} name(s) with control characters are not shown', listing.refused)
        : vscode.l10n.t('Pick a file, or open a folder'),
      matchOnDescription: true,
    });
    if (!picked) return undefined;
    if (picked.action === 'here' || picked.action === 'file') return picked.path;
    if (picked.action === 'type') {
      return vscode.window.showInputBox({
        title: vscode.l10n.t('GPU Rental: Download from {0}', instanceName(instance)),
        prompt: vscode.l10n.t('A file or folder on the instance'),
        value: dir,
        ignoreFocusOut: true,
        validateInput: validRemote,
      });
    }
    dir = picked.path!;
  }
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
