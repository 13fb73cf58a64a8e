/**
 * The path a transfer takes when a side has no rsync: Node's tar (nodeTar.ts) here, the instance's
 * tar there, joined over `ssh -T` by runPipe (pipe.ts). An upload lists the remote folder first
 * and sends only what changed (quickCheck.ts); files of TransferOptions.resumableBytes and more go
 * over sftp, resumable (sftp.ts, largeFiles.ts). Progress is counted as the stream passes, and a
 * failed pipe says why.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runRemote, sshArgv, type SshTarget } from '../ssh/remote';
import { tarPackRemoteCommand, tarUnpackRemoteCommand } from './argv';
import { TransferError, type FailedRun } from './errors';
import { connectionOr, failure, stallError } from './failures';
import { uploadFileList } from './fileList';
import { fetchLarge, sendLarge, type LargeResult } from './largeFiles';
import { packInto, unpackSink, type Refusal } from './nodeTar';
import { DEFAULT_STALL_MS, sshTool, type TransferOptions } from './options';
import { ActivityMeter, MissingStreamMark, runPipe, skipToMark, spawnGroup, type PipeEnd } from './pipe';
import { RateMeter } from './progress';
import {
  changedEntries,
  INDEX_MAX_BYTES,
  localEntries,
  parseRemoteIndex,
  readIndex,
  remoteIndexCommand,
  type RemoteFile,
} from './quickCheck';
import { remoteBaseName, remoteParent, type RemoteProbe } from './remotePath';
import { DEFAULT_RESUMABLE_BYTES } from './sftp';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/** What a transfer without rsync did. */
export interface NodeTarResult {
  readonly filesSent: number;
  readonly bytesSent: number;
  /** Where each large file sftp resumed started from (bytes), by relative path. */
  readonly resumedFrom: ReadonlyMap<string, number>;
}

/** Counts the bytes of an uncompressed tar stream as they pass, for progress against a size measured first, and for the stall watchdog. */
function counter(total: () => number | undefined, options: TransferOptions, base = 0): ActivityMeter {
  const meter = new RateMeter(options.now);
  let last = 0;
  return new ActivityMeter(options.now, (n) => {
    const t = (options.now ?? Date.now)();
    if (t - last < 100) return;
    last = t;
    const bytes = base + n;
    const all = total();
    const percent = all ? Math.min(99, (bytes * 100) / all) : undefined;
    options.onProgress?.({ bytes, ...(all ? { total: all, percent } : {}), bytesPerSecond: meter.sample(bytes) });
  });
}

/** The size of a tar stream of these entries: a 512-byte header each, contents padded to 512, two closing blocks. */
function tarSize(entries: ReadonlyArray<{ kind: string; size: number }>): number {
  return 1024 + entries.reduce((n, e) => n + 512 + (e.kind === 'f' ? Math.ceil(e.size / 512) * 512 : 0), 0);
}

/** A short command on the instance; Cancel and a silent instance are the transfer's own errors. */
function remoteCall(target: SshTarget, command: string, options: TransferOptions, maxOutputBytes?: number) {
  return runRemote(target, command, {
    timeoutMs: 5 * 60_000,
    signal: options.signal,
    ...(maxOutputBytes ? { maxOutputBytes } : {}),
    ...sshTool(options),
  }).catch((error: unknown) => {
    if (options.signal?.aborted) throw new TransferError('cancelled', l10n.t('Cancelled before anything was sent.'));
    throw new TransferError(
      'connection',
      l10n.t(
        'The instance did not answer over ssh ({0}). Check that it is running, then try again.',
        error instanceof Error ? error.message : String(error),
      ),
    );
  });
}

/** The instance's files under `dir`, for the quick check; undefined when the listing did not arrive whole. */
export async function remoteIndex(target: SshTarget, dir: string, options: TransferOptions): Promise<Map<string, RemoteFile> | undefined> {
  const result = await remoteCall(target, remoteIndexCommand(dir), options, INDEX_MAX_BYTES);
  if (result.code !== 0) throw connectionOr(result.stderr, result.code, dir);
  return parseRemoteIndex(result.stdout);
}

/**
 * Uploads by Node's tar. One ssh session makes the folder, lists it (quickCheck.ts) and then
 * unpacks what this side sends: only what changed, while this machine lists its own files at the
 * same time. Large changed files then go over sftp, resumable.
 */
export async function tarUpload(
  target: SshTarget,
  localDir: string,
  remoteDir: string,
  excludes: readonly string[],
  options: TransferOptions,
  partialWhere: string,
): Promise<NodeTarResult> {
  const command = tarUnpackRemoteCommand(remoteDir, false, remoteIndexCommand(remoteDir));
  const ssh = spawnGroup(options.tools?.ssh ?? 'ssh', sshArgv(target, command, ['-T']), { stdio: ['pipe', 'pipe', 'pipe'] });
  let total = 0;
  const watch = counter(() => total, options);
  // What is sent is known once both listings are: until then the pipe waits on `gate`.
  const gate = new PassThrough();
  const listed = readIndex(ssh.stdout!, () => (watch.lastActivity = (options.now ?? Date.now)()));
  const piped = runPipe([{ child: ssh, label: 'ssh' }], [gate, watch, ssh.stdin!], watch, {
    signal: options.signal,
    stallMs: options.stallMs ?? DEFAULT_STALL_MS,
    now: options.now,
  });
  const local = await uploadFileList(localDir, excludes, 'tar', { git: options.tools?.git })
    .then((files) => localEntries(localDir, files))
    .catch((error: unknown) => {
      gate.destroy(error instanceof Error ? error : new Error(String(error)));
      return [];
    });
  const index = parseRemoteIndex((await listed) ?? '');
  const changed = changedEntries(local, index);
  const threshold = options.resumableBytes ?? DEFAULT_RESUMABLE_BYTES;
  // A name with a control character cannot be written in sftp's batch: tar sends it, not resumable.
  // eslint-disable-next-line no-control-regex
  const large = changed.filter((e) => e.kind === 'f' && e.size >= threshold && !/[\u0000-\u001f\u007f]/.test(e.path));
  const small = changed.filter((e) => !large.includes(e));
  total = tarSize(small) + large.reduce((n, e) => n + e.size, 0);
  if (!gate.destroyed) {
    // With nothing small to send, an empty archive: the folder is still made.
    if (small.length === 0) gate.end(Buffer.alloc(1024));
    else {
      packInto(localDir, small, gate);
    }
  }
  const error = await pipeFailure(target, 'upload', await piped, remoteDir, partialWhere, options);
  if (error) throw error;
  let sent: LargeResult = { resumedFrom: new Map() };
  if (large.length > 0) sent = await sendLarge(target, localDir, remoteDir, large, index, options, partialWhere, tarSize(small), total);
  options.onProgress?.({ bytes: total, total, percent: 100 });
  return { filesSent: changed.filter((e) => e.kind !== 'd').length, bytesSent: total, resumedFrom: sent.resumedFrom };
}

export async function tarDownload(
  target: SshTarget,
  remotePath: string,
  temp: string,
  probe: RemoteProbe,
  options: TransferOptions,
  partialWhere: string,
): Promise<NodeTarResult> {
  const name = remoteBaseName(remotePath);
  const threshold = options.resumableBytes ?? DEFAULT_RESUMABLE_BYTES;
  if (probe.kind === 'file' && (probe.size ?? 0) >= threshold) {
    const files = new Map<string, RemoteFile>([['', { kind: 'f', size: probe.size ?? 0, mtime: 0 }]]);
    const got = await fetchLarge(target, remotePath, join(temp, name), files, options, partialWhere, 0, probe.size);
    return { filesSent: 1, bytesSent: probe.size ?? 0, resumedFrom: got.resumedFrom };
  }
  const index = probe.kind === 'folder' ? await remoteIndex(target, remotePath, options) : undefined;
  const large = new Map([...(index ?? [])].filter(([, f]) => f.kind === 'f' && f.size >= threshold));
  const largeBytes = [...large.values()].reduce((n, f) => n + f.size, 0);
  const command = tarPackRemoteCommand(
    remoteParent(remotePath),
    name,
    false,
    [...large.keys()].map((p) => `${name}/${p}`),
  );
  const ssh = spawnGroup(options.tools?.ssh ?? 'ssh', sshArgv(target, command, ['-T']), { stdio: ['ignore', 'pipe', 'pipe'] });
  const unpack = unpackSink(temp);
  const total = probe.size;
  const watch = counter(() => total, options);
  const end = await runPipe([{ child: ssh, label: 'ssh' }], [ssh.stdout!, skipToMark(), watch, unpack.sink], watch, {
    signal: options.signal,
    stallMs: options.stallMs ?? DEFAULT_STALL_MS,
    now: options.now,
  });
  const error = await pipeFailure(target, 'download', end, remotePath, partialWhere, options, temp, unpack.refused());
  if (error) throw error;
  // Every regular file the listing named that did not arrive whole (the large ones, and any a
  // remote tar's unanchored exclude left out) is fetched by sftp.
  const missing = new Map<string, RemoteFile>();
  for (const [path, f] of index ?? []) {
    if (f.kind !== 'f') continue;
    const here = await lstat(join(temp, name, path)).catch(() => undefined);
    if (!here?.isFile() || here.size !== f.size) missing.set(path, f);
  }
  let resumedFrom: ReadonlyMap<string, number> = new Map();
  if (missing.size > 0) {
    ({ resumedFrom } = await fetchLarge(target, remotePath, join(temp, name), missing, options, partialWhere, watch.bytes, total));
  }
  options.onProgress?.({ bytes: total ?? watch.bytes + largeBytes, ...(total ? { total } : {}), percent: 100 });
  const filesSent = index ? [...index.values()].filter((f) => f.kind !== 'd').length : probe.kind === 'file' ? 1 : 0;
  return { filesSent, bytesSent: total ?? 0, resumedFrom };
}

/**
 * Why a tar pipe failed, undefined when it did not. The first cause wins: Cancel or a stall, then
 * ssh's own failure (the connection, or the remote tar), then a refused entry or damaged data,
 * then a local read or write that failed.
 */
async function pipeFailure(
  target: SshTarget,
  direction: FailedRun['direction'],
  end: PipeEnd,
  remotePath: string,
  partialWhere: string,
  options: TransferOptions,
  partialAt?: string,
  refused?: Refusal,
): Promise<TransferError | undefined> {
  const ssh = end.processes.find((p) => p.label === 'ssh')!;
  const localError = end.streamError && !isPipeClosed(end.streamError) ? end.streamError.message : '';
  const run = (code: number | null): FailedRun => ({
    tool: 'tar',
    direction,
    code,
    stderr: `${ssh.stderr}\n${localError}`,
    localStderr: localError,
    remotePath,
    partialWhere,
  });
  if (end.stopped === 'cancelled') return failure(target, run(null), options, true, partialAt);
  if (end.stopped === 'stalled') return stallError(direction, options, partialWhere, partialAt);
  if (ssh.spawnError) return new TransferError('other', l10n.t('ssh could not be started: {0}', ssh.spawnError.message));
  if (!ssh.killed && ssh.code !== 0) return failure(target, run(ssh.code), options, false, partialAt);
  if (refused) {
    return new TransferError(
      'other',
      l10n.t(
        'The instance sent {0} ({1}), which was not written; the download was stopped. What arrived so far is in {2}.',
        JSON.stringify(refused.path),
        refused.why,
        partialWhere,
      ),
      partialAt,
    );
  }
  if (end.streamError && direction === 'download' && !isPipeClosed(end.streamError)) {
    const what =
      end.streamError instanceof MissingStreamMark
        ? l10n.t("the instance's shell printed something other than the data: {0}", visibleStart(end.streamError.printed))
        : end.streamError.message;
    if (/ENOSPC|EACCES|EROFS|EPERM/.test((end.streamError as NodeJS.ErrnoException).code ?? '')) {
      return failure(target, run(1), options, false, partialAt);
    }
    return new TransferError(
      'other',
      l10n.t(
        'The data from the instance ended early or was damaged ({0}), so the download was stopped. What arrived so far is in {1}. Try again.',
        what,
        partialWhere,
      ),
      partialAt,
    );
  }
  if (end.streamError && direction === 'upload' && localError) {
    return new TransferError('other', l10n.t('The upload failed: {0}. What arrived so far is in {1}.', localError, partialWhere));
  }
  if (!ssh.killed && ssh.code === 0 && !end.streamError) return undefined;
  const why = end.streamError?.message ?? l10n.t('a part of it stopped');
  return new TransferError(
    'connection',
    l10n.t(
      'The {0} was cut short ({1}). What arrived so far is in {2}. Check that the instance is running, then Retry.',
      direction,
      why,
      partialWhere,
    ),
    partialAt,
  );
}

/** A write to a pipe the other end closed: a symptom of the part that failed, not a cause. */
function isPipeClosed(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ERR_STREAM_DESTROYED' || code === 'ECONNRESET';
}

/** The first line of what a remote shell printed, quoted, its hidden characters shown (visibleText) and cut to 80. */
function visibleStart(text: string): string {
  return JSON.stringify(visibleText(text.split('\n').find((l) => l.trim()) ?? '', 80));
}
