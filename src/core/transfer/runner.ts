/**
 * Runs uploads and downloads: rsync over the instance's ssh alias when both sides have it, else the
 * tar path (Node's tar here, the instance's there, only what changed, large files resumable over
 * sftp; no local tar or rsync needed), with progress events, Cancel through an AbortSignal, and
 * downloads written to a temporary name that is renamed only when everything arrived. Which path a
 * transfer takes is decided here (upload, download); the rsync run is in rsync.ts, the tar path in
 * tarPath.ts, and the error of a failed run in failures.ts.
 */
import { lstat, mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runRemote, type SshTarget } from '../ssh/remote';
import { rsyncDownloadArgv, rsyncUploadArgv } from './argv';
import { TransferError } from './errors';
import { connectionOr, failure, stallError } from './failures';
import { sshTool, type TransferOptions } from './options';
import { uploadFileList } from './fileList';
import { collect } from './pipe';
import { parseRsyncStats } from './progress';
import {
  checkRemotePath,
  listCommand,
  parseListing,
  parseProbe,
  probeCommand,
  remoteBaseName,
  sizeCommand,
  type RemoteListing,
  type RemoteProbe,
} from './remotePath';
import { rsyncExtra, runRsync } from './rsync';
import { tarDownload, tarUpload } from './tarPath';
import { l10n } from '../l10n';

export { DEFAULT_STALL_MS, type TransferOptions, type TransferTools } from './options';

/** How the files went: rsync, or tar (Node's here, the instance's there; large files by sftp) with the reason rsync could not be used. */
export type TransferMethod = 'rsync' | 'tar';

export interface UploadResult {
  readonly method: TransferMethod;
  /** The remote folder that now holds the files. */
  readonly remoteDir: string;
  /** Files actually sent (both paths leave out unchanged ones: same size and whole-second mtime). */
  readonly filesSent: number;
  readonly bytesSent: number;
  /** Why tar was used, when it was. */
  readonly notice?: string;
  /** On the tar path: where each large file sent by sftp started (bytes; more than 0 when resumed). */
  readonly resumedFrom?: ReadonlyMap<string, number>;
}

export interface DownloadResult {
  readonly method: TransferMethod;
  /** The local file or folder that now holds the download. */
  readonly localPath: string;
  readonly filesSent: number;
  readonly bytesSent: number;
  readonly notice?: string;
  /** On the tar path: where each large file fetched by sftp started (bytes; more than 0 when resumed). */
  readonly resumedFrom?: ReadonlyMap<string, number>;
}

/** The version rsync must have locally: `--info=progress2` came with 3.1.0. */
const RSYNC_MIN = [3, 1];

/** Local rsync: usable, or why not (missing, too old), with how to install it on this platform. */
export async function localRsync(
  rsync = 'rsync',
  platform: NodeJS.Platform = process.platform,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const install =
    platform === 'darwin'
      ? l10n.t('install it with `brew install rsync`')
      : platform === 'win32'
        ? l10n.t('install it (for example from MSYS2 or cwRsync; `winget search rsync` lists packages) and put it on PATH')
        : l10n.t("install it with `sudo apt install rsync` (or your distribution's package manager)");
  const run = await collect(rsync, ['--version']);
  if (run.spawnError) return { ok: false, why: l10n.t('rsync is not installed on this machine: {0}', install) };
  const m = /version\s+(\d+)\.(\d+)/.exec(run.stdout);
  const major = Number(m?.[1] ?? 0);
  const minor = Number(m?.[2] ?? 0);
  if (major < RSYNC_MIN[0]! || (major === RSYNC_MIN[0] && minor < RSYNC_MIN[1]!)) {
    return {
      ok: false,
      why: l10n.t("this machine's rsync ({0}) is older than 3.1: {1}", m ? `${major}.${minor}` : l10n.t('unknown version'), install),
    };
  }
  return { ok: true };
}

/** Whether rsync failed because the instance's shell found no rsync to run (missing, or not executable). */
export function remoteLacksRsync(stderr: string): boolean {
  return /\brsync: (command )?not found|\brsync: (Permission denied|cannot execute)|\brsync: No such file or directory/.test(stderr);
}

/** Asks the instance what `path` is, its size when asked, and whether it has rsync and gzip. */
export async function probeRemote(
  target: SshTarget,
  path: string | undefined,
  withSize: boolean,
  options: TransferOptions = {},
): Promise<RemoteProbe> {
  const result = await runRemote(target, probeCommand(path, withSize), {
    timeoutMs: 60_000,
    signal: options.signal,
    ...sshTool(options),
  }).catch((error: unknown) => {
    // Cancel or a silent instance during the first look: the transfer's own errors, so a caller sees one kind.
    if (options.signal?.aborted) throw new TransferError('cancelled', l10n.t('Cancelled before anything was sent.'));
    throw new TransferError(
      'connection',
      l10n.t('The instance did not answer over ssh ({0}). Check that it is running, then try again.', errorText(error)),
    );
  });
  if (result.code !== 0) throw connectionOr(result.stderr, result.code, path ?? '');
  return parseProbe(result.stdout);
}

/** Lists a remote folder for the browser. */
export async function listRemote(
  target: SshTarget,
  path: string,
  options: Pick<TransferOptions, 'signal' | 'tools'> = {},
): Promise<RemoteListing> {
  const checked = checkRemotePath(path);
  const result = await runRemote(target, listCommand(checked), { timeoutMs: 30_000, signal: options.signal, ...sshTool(options) });
  if (result.code !== 0) {
    if (/Not a directory/.test(result.stderr)) throw new TransferError('other', l10n.t('{0} is a file, not a folder.', checked));
    throw connectionOr(result.stderr, result.code, checked);
  }
  return parseListing(result.stdout);
}

/**
 * Bytes in a remote folder (`du -sb`), undefined when it does not exist. Throws when ssh does not
 * answer within `timeoutMs`.
 */
export async function remoteSize(
  target: SshTarget,
  path: string,
  timeoutMs: number,
  options: Pick<TransferOptions, 'signal' | 'tools'> = {},
): Promise<number | undefined> {
  const result = await runRemote(target, sizeCommand(checkRemotePath(path)), { timeoutMs, signal: options.signal, ...sshTool(options) });
  if (result.code !== 0) throw connectionOr(result.stderr, result.code, path);
  const n = Number(result.stdout.trim());
  return result.stdout.trim() && Number.isFinite(n) ? n : undefined;
}

/**
 * Sends the contents of `localDir` to `remoteDir` on the instance: only what changed, minus the
 * excludes and what `.gitignore` names; by rsync, or (when a side has none) by Node's tar into the
 * instance's after a listing of the remote folder, large files by sftp.
 */
export async function upload(
  target: SshTarget,
  spec: { localDir: string; remoteDir: string; excludes: readonly string[] },
  options: TransferOptions = {},
): Promise<UploadResult> {
  const remoteDir = checkRemotePath(spec.remoteDir);
  const folder = await stat(spec.localDir).catch(() => undefined);
  if (!folder?.isDirectory())
    throw new TransferError('localMissing', l10n.t('{0} is not a folder on this machine. Pick a folder to upload.', spec.localDir));
  const local = await localRsync(options.tools?.rsync, options.platform);
  const partialWhere = l10n.t('{0} on the instance (upload again to finish: only what is missing is sent)', remoteDir);
  if (local.ok) {
    // rsync straight away: one ssh connection, as plain rsync has. Whether the instance has rsync
    // is learnt from this run; only when it has none is the instance asked what else it has.
    const argv = rsyncUploadArgv(target, { ...spec, remoteDir }, { ssh: options.tools?.ssh, extra: rsyncExtra(options) });
    const run = await runRsync(argv, options);
    if (run.stalled) throw stallError('upload', options, partialWhere);
    if (run.code === 0) {
      const stats = parseRsyncStats(run.stdout);
      return { method: 'rsync', remoteDir, filesSent: stats.filesTransferred, bytesSent: stats.bytesTransferred };
    }
    if (run.cancelled || !remoteLacksRsync(run.stderr)) {
      throw await failure(
        target,
        { tool: 'rsync', direction: 'upload', code: run.code, stderr: run.stderr, remotePath: remoteDir, partialWhere },
        options,
        run.cancelled,
      );
    }
  }
  const notice = !local.ok
    ? l10n.t('{0}. Sending what changed with tar (large files resumable).', local.why)
    : l10n.t('The instance has no rsync: sending what changed with tar (large files resumable).');
  options.onNotice?.(notice);
  const sent = await tarUpload(target, spec.localDir, remoteDir, spec.excludes, options, partialWhere);
  return { method: 'tar', remoteDir, ...sent, notice };
}

/**
 * The files `upload` sends from `localDir` to an instance that has rsync, relative to it: read as
 * rsync reads the excludes and `.gitignore` when this machine has a usable rsync, else as tar's
 * list (git's in a work tree). Run on Cluster's other nodes copy exactly these from rank 0.
 */
export async function uploadedFiles(
  localDir: string,
  excludes: readonly string[],
  options: Pick<TransferOptions, 'tools' | 'platform'> = {},
): Promise<string[]> {
  const local = await localRsync(options.tools?.rsync, options.platform);
  return uploadFileList(localDir, excludes, local.ok ? 'rsync' : 'tar', { git: options.tools?.git });
}

/**
 * Copies the remote file or folder `remotePath` into the local folder `localDir`, as
 * `localDir/<name>`. It arrives in `localDir/.<name>.gpu-rental-partial` and is moved into place
 * only when complete; after a failure the partial folder stays (a retry resumes from it) and the
 * error says where it is. An existing `<name>` is replaced only with `replace`, and only once the
 * new copy is complete.
 */
export async function download(
  target: SshTarget,
  spec: { remotePath: string; localDir: string; replace?: boolean },
  options: TransferOptions = {},
): Promise<DownloadResult> {
  const remotePath = checkRemotePath(spec.remotePath);
  const name = remoteBaseName(remotePath);
  const finalPath = join(spec.localDir, name);
  const temp = join(spec.localDir, `.${name}.gpu-rental-partial`);
  if (!spec.replace && (await lstat(finalPath).catch(() => undefined))) {
    throw new TransferError('targetExists', l10n.t('{0} exists already. Replace it, or pick another folder.', finalPath));
  }
  const [probe, local] = await Promise.all([
    probeRemote(target, remotePath, true, options),
    localRsync(options.tools?.rsync, options.platform),
  ]);
  if (probe.kind === 'missing') {
    throw new TransferError(
      'remoteMissing',
      l10n.t('{0} does not exist on the instance. Browse to the folder or check the path, then try again.', remotePath),
    );
  }
  await makeLocalFolder(temp);
  const notice = !local.ok
    ? l10n.t('{0}. Sending everything with tar (large files resumable).', local.why)
    : !probe.rsync
      ? l10n.t('The instance has no rsync: sending everything with tar (large files resumable).')
      : undefined;
  const partialWhere = l10n.t('{0} (kept, so Retry resumes; delete it if you do not need it)', temp);
  let sent: { filesSent: number; bytesSent: number; resumedFrom?: ReadonlyMap<string, number> };
  if (!notice) {
    const argv = rsyncDownloadArgv(target, remotePath, temp, { ssh: options.tools?.ssh, extra: rsyncExtra(options) });
    const run = await runRsync(argv, options);
    if (run.stalled) throw stallError('download', options, partialWhere, temp);
    if (run.code !== 0) {
      throw await failure(
        target,
        { tool: 'rsync', direction: 'download', code: run.code, stderr: run.stderr, remotePath, partialWhere },
        options,
        run.cancelled,
        temp,
      );
    }
    const stats = parseRsyncStats(run.stdout);
    sent = { filesSent: stats.filesTransferred, bytesSent: stats.bytesTransferred };
  } else {
    options.onNotice?.(notice);
    sent = await tarDownload(target, remotePath, temp, probe, options, partialWhere);
  }
  if (spec.replace) await rm(finalPath, { recursive: true, force: true });
  await rename(join(temp, name), finalPath);
  await rm(temp, { recursive: true, force: true });
  return { method: notice ? 'tar' : 'rsync', localPath: finalPath, ...sent, ...(notice ? { notice } : {}) };
}

async function makeLocalFolder(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC')
      throw new TransferError('localDiskFull', l10n.t("This machine's disk is full. Free some space or pick a folder on another disk."));
    throw new TransferError(
      'localNotWritable',
      l10n.t('The local folder cannot be written ({0}: {1}). Pick a folder you can write to.', code ?? String(error), path),
    );
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
