/**
 * Upload Folder to Instance, decided: which local folder, which remote folder (checked), the run
 * under progress (Cancel stops it), and what the end says. How the files go (rsync, else tar) is decided by
 * runner.ts's `upload`; this flow only asks and tells. The UI hands in the folder picker and the
 * progress notification, and shows the outcome.
 */
import { basename as baseName } from 'node:path';
import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import type { SshTarget } from '../ssh/remote';
import { failedTransfer, type TransferFailed, type TransferNotice } from './notices';
import { formatBytes, reportTransfer } from './progress';
import { checkRemotePath, remoteJoin } from './remotePath';
import { upload, type UploadResult } from './runner';

/** What Upload asks through and runs with. */
export interface UploadFlowDeps {
  readonly ask: Ask;
  readonly logger: Logger;
  /** The local folder when none is given: the workspace's, a pick among several, or a folder dialog (UI). */
  pickLocalFolder(): Promise<string | undefined>;
  /** Writes the instance's managed SSH entry (as Connect does) and says how ssh reaches it. */
  sshTarget(instance: Instance): Promise<SshTarget>;
  /** The transfer's progress, whose Cancel stops it (UI: a notification). */
  readonly progress: Progress;
  /** The folder uploads go into (the setting), and the patterns left out. */
  readonly transferFolder: string;
  readonly excludes: readonly string[];
  /** runner.ts's upload; a test hands a fake. */
  readonly upload?: typeof upload;
}

/** Given by automation instead of asking. */
export interface UploadArgs {
  localDir?: string;
  remoteDir?: string;
  /** No message at the end (another command, such as Run on Instance, goes on and says what happened). */
  quiet?: boolean;
}

export type UploadOutcome =
  | {
      readonly kind: 'uploaded';
      readonly remoteDir: string;
      /** How ssh reaches the instance, for Open Terminal in Folder. */
      readonly target: SshTarget;
      /** Undefined when quiet. */
      readonly notice: TransferNotice<'openTerminal' | 'copyPath'> | undefined;
    }
  | TransferFailed<UploadOutcome>;

/** The remote folder a local folder goes to unless the user says otherwise: <transfer folder>/<its name>. */
export function suggestedRemoteDir(transferFolder: string, localDir: string): string {
  return remoteJoin(checkRemotePath(transferFolder), baseName(localDir) || 'upload');
}

/** Why a typed remote path is refused, or undefined when it is fine. */
export function remotePathProblem(value: string): string | undefined {
  try {
    checkRemotePath(value);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Asks what is missing of `args` and uploads to the running `instance`. Undefined when the user
 * dismissed a question (nothing happened); otherwise what to show.
 */
export async function uploadFlow(d: UploadFlowDeps, instance: Instance, args: UploadArgs): Promise<UploadOutcome | undefined> {
  const localDir = args.localDir ?? (await d.pickLocalFolder());
  if (!localDir) return undefined;
  const remoteDir =
    args.remoteDir ??
    (await d.ask.input({
      title: l10n.t('GPU Rental: Upload {0} to {1}', baseName(localDir), instanceName(instance)),
      prompt: l10n.t('The folder on the instance that will hold the files (made when missing). Only what changed is sent.'),
      value: suggestedRemoteDir(d.transferFolder, localDir),
      validate: remotePathProblem,
    }));
  if (remoteDir === undefined) return undefined;
  const target = await d.sshTarget(instance);
  const run = async (): Promise<UploadOutcome> => {
    try {
      const result = await d.progress(l10n.t('uploading {0} to {1}', baseName(localDir), instanceName(instance)), (task) =>
        (d.upload ?? upload)(target, { localDir, remoteDir, excludes: d.excludes }, reportTransfer(task)),
      );
      return uploaded(d, instance, { localDir, target, quiet: args.quiet ?? false }, result);
    } catch (error) {
      return failedTransfer(d.logger, error, run);
    }
  };
  return run();
}

function uploaded(
  d: UploadFlowDeps,
  instance: Instance,
  how: { localDir: string; target: SshTarget; quiet: boolean },
  result: UploadResult,
): UploadOutcome {
  const bytes = formatBytes(result.bytesSent);
  d.logger.info(
    `Uploaded ${how.localDir} to ${result.remoteDir} on #${instance.id}: ${result.filesSent} file(s), ${bytes} by ${result.method}${result.notice ? ` (${result.notice})` : ''}`,
  );
  const notice = how.quiet
    ? undefined
    : {
        severity: 'info' as const,
        text: l10n.t(
          'GPU Rental: uploaded {0} to {1} on {2}: {3}.',
          baseName(how.localDir),
          result.remoteDir,
          instanceName(instance),
          uploadSummary(result),
        ),
        actions: ['openTerminal', 'copyPath'] as const,
      };
  return { kind: 'uploaded', remoteDir: result.remoteDir, target: how.target, notice };
}

/** "3 files, 1.2 MB", and how: with tar (and why), or that nothing had changed. */
export function uploadSummary(result: Pick<UploadResult, 'filesSent' | 'bytesSent' | 'method' | 'notice'>): string {
  const bytes = formatBytes(result.bytesSent);
  const what = result.filesSent === 1 ? l10n.t('1 file, {0}', bytes) : l10n.t('{0} files, {1}', result.filesSent, bytes);
  if (result.method === 'tar') return l10n.t('{0} with tar ({1})', what, result.notice ?? l10n.t('no rsync'));
  return result.filesSent === 0 ? l10n.t('{0}, nothing had changed', what) : what;
}
