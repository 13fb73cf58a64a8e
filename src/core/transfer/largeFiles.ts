/**
 * The large files of a transfer without rsync, one at a time over sftp (sftp.ts): resumed from
 * what the other side already holds, then checked by size and sha256 (where the instance has
 * sha256sum) before they count as sent. A resumed file whose check fails (it changed since the
 * part was sent) is sent once more from the start. On a download, a file is written only inside
 * the destination: never through a link, never by a path the instance made up.
 */
import { lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { SshTarget } from '../ssh/remote';
import { TransferError } from './errors';
import { failure, stallError } from './failures';
import { refusedEntry } from './nodeTar';
import type { TransferOptions } from './options';
import type { LocalEntry, RemoteFile } from './quickCheck';
import { remoteJoin } from './remotePath';
import { localSha256, remoteDigest, sftpTransfer, type LargeFile, type SftpRun } from './sftp';
import { l10n } from '../l10n';

export interface LargeResult {
  /** Where each resumed file started from (bytes), by relative path; 0 for one sent whole. */
  readonly resumedFrom: ReadonlyMap<string, number>;
}

/** Whether both sides hold the same bytes: the size, and the sha256 when the instance can say it. */
async function same(
  target: SshTarget,
  direction: 'upload' | 'download',
  file: LargeFile,
  options: TransferOptions,
  partialWhere: string,
  partialAt?: string,
): Promise<boolean> {
  const here = await lstat(file.local).catch(() => undefined);
  const there = await remoteDigest(target, file.remote, options).catch((error: unknown) => {
    // Cancel, or the connection lost while the instance reads the file back.
    const stderr = error instanceof Error ? error.message : String(error);
    const run = { tool: 'ssh' as const, direction, code: 255, stderr, remotePath: file.remote, partialWhere };
    return failure(target, run, options, options.signal?.aborted ?? false, partialAt).then((e) => {
      throw e;
    });
  });
  if (!here || !there || here.size !== there.size) return false;
  return there.sha256 === undefined || there.sha256 === (await localSha256(file.local));
}

/** The TransferError of an sftp run that did not complete. */
async function sftpError(
  target: SshTarget,
  direction: 'upload' | 'download',
  run: SftpRun,
  file: LargeFile,
  options: TransferOptions,
  partialWhere: string,
  partialAt?: string,
): Promise<TransferError> {
  if (run.stalled) return stallError(direction, options, partialWhere, partialAt);
  if (run.spawnError) return new TransferError('other', l10n.t('sftp could not be started: {0}', run.spawnError.message));
  // sftp says 255 for ssh's failure, 1 for a failed command; a dropped link reads as a connection.
  const dropped = /Connection (closed|reset)|client_loop|Broken pipe|Couldn't read packet|lost connection/i.test(run.stderr);
  const code = dropped ? 255 : run.code;
  return failure(
    target,
    { tool: 'ssh', direction, code, stderr: run.stderr, remotePath: file.remote, partialWhere },
    options,
    run.cancelled,
    partialAt,
  );
}

/** Runs one file over sftp, resumed from `haveBytes`, and checks it; once more whole when a resumed copy differs. */
async function moveOne(
  target: SshTarget,
  direction: 'upload' | 'download',
  file: LargeFile,
  haveBytes: number,
  options: TransferOptions,
  partialWhere: string,
  report: (bytes: number) => void,
  partialAt?: string,
): Promise<number> {
  let run = await sftpTransfer(target, direction, file, haveBytes, options, report);
  if (run.code !== 0 || run.cancelled) throw await sftpError(target, direction, run, file, options, partialWhere, partialAt);
  const resumedFrom = run.resumedFrom;
  if (await same(target, direction, file, options, partialWhere, partialAt)) return resumedFrom;
  if (resumedFrom === 0) {
    throw new TransferError(
      'other',
      l10n.t(
        '{0} arrived with another size or checksum than it has at its source. Try again.',
        direction === 'upload' ? file.remote : file.local,
      ),
      partialAt,
    );
  }
  if (direction === 'download') await rm(file.local, { force: true });
  run = await sftpTransfer(target, direction, file, 0, options, report);
  if (run.code !== 0 || run.cancelled) throw await sftpError(target, direction, run, file, options, partialWhere, partialAt);
  if (!(await same(target, direction, file, options, partialWhere, partialAt))) {
    throw new TransferError(
      'other',
      l10n.t('{0} arrived with another size or checksum than it has at its source. Try again.', file.remote),
    );
  }
  return 0;
}

/** Sends each large entry of `localDir` into `remoteDir`, resuming from the size the instance holds (`index`). */
export async function sendLarge(
  target: SshTarget,
  localDir: string,
  remoteDir: string,
  large: readonly LocalEntry[],
  index: ReadonlyMap<string, RemoteFile> | undefined,
  options: TransferOptions,
  partialWhere: string,
  base: number,
  total: number,
): Promise<LargeResult> {
  const resumedFrom = new Map<string, number>();
  let done = base;
  for (const e of large) {
    const file: LargeFile = { local: resolve(localDir, e.path), remote: remoteJoin(remoteDir, e.path), size: e.size };
    const there = index?.get(e.path);
    const have = there?.kind === 'f' ? there.size : 0;
    const report = (bytes: number) =>
      options.onProgress?.({ bytes: done + bytes, total, percent: Math.min(99, ((done + bytes) * 100) / total) });
    resumedFrom.set(e.path, await moveOne(target, 'upload', file, have, options, partialWhere, report));
    done += e.size;
    options.onProgress?.({ bytes: done, total, percent: Math.min(99, (done * 100) / total) });
  }
  return { resumedFrom };
}

/**
 * Fetches each listed file of the remote folder (or file) `remotePath` into `localRoot`, resuming
 * from the size already there. A path the instance made up (absolute, `..`) is refused, and so is
 * one whose folder here is reached through a link.
 */
export async function fetchLarge(
  target: SshTarget,
  remotePath: string,
  localRoot: string,
  files: ReadonlyMap<string, RemoteFile>,
  options: TransferOptions,
  partialWhere: string,
  base: number,
  total: number | undefined,
): Promise<LargeResult> {
  const partialAt = dirname(localRoot);
  const resumedFrom = new Map<string, number>();
  let done = base;
  for (const [path, f] of files) {
    const why = path ? refusedEntry(path, 'File') : undefined;
    const local = path ? join(localRoot, path) : localRoot;
    if (why || !(await insideFolder(partialAt, local))) {
      throw new TransferError(
        'other',
        l10n.t(
          'The instance sent {0} ({1}), which was not written; the download was stopped. What arrived so far is in {2}.',
          JSON.stringify(path),
          why ?? l10n.t('a path that leads outside the destination'),
          partialWhere,
        ),
        partialAt,
      );
    }
    const here = await lstat(local).catch(() => undefined);
    let have = here?.isFile() ? here.size : 0;
    if (have > f.size) {
      await rm(local, { force: true });
      have = 0;
    }
    const report = (bytes: number) =>
      options.onProgress?.({ bytes: done + bytes, ...(total ? { total, percent: Math.min(99, ((done + bytes) * 100) / total) } : {}) });
    const file: LargeFile = { local, remote: path ? remoteJoin(remotePath, path) : remotePath, size: f.size };
    resumedFrom.set(path, await moveOne(target, 'download', file, have, options, partialWhere, report, partialAt));
    done += f.size;
  }
  return { resumedFrom };
}

/** Whether `file` lies inside `root` once every link on the way is followed; its folder is made when missing. */
async function insideFolder(root: string, file: string): Promise<boolean> {
  const parent = dirname(file);
  await mkdir(parent, { recursive: true });
  const [realRoot, realParent] = await Promise.all([realpath(root), realpath(parent)]);
  const rel = relative(realRoot, realParent);
  if (rel.startsWith('..') || resolve(realRoot, rel) !== realParent || rel.split(sep).includes('..')) return false;
  const here = await lstat(file).catch(() => undefined);
  return !here?.isSymbolicLink();
}
