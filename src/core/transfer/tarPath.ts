/**
 * The tar path of a transfer, taken when a side has no rsync: a local tar and the instance's tar
 * joined over ssh by runPipe (pipe.ts), with the files from git or the ignore rules, progress
 * counted as the stream passes, and why a pipe failed when it did.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { sshArgv, type SshTarget } from '../ssh/remote';
import { tarCreateArgv, tarFlavourOf, tarPackRemoteCommand, tarUnpackRemoteCommand, type TarFlavour } from './argv';
import { TransferError, type FailedRun } from './errors';
import { failure, stallError } from './failures';
import { uploadFileList } from './fileList';
import { DEFAULT_STALL_MS, type TransferOptions } from './options';
import { ActivityMeter, collect, MissingStreamMark, runPipe, skipToMark, spawnGroup, type PipeEnd } from './pipe';
import { RateMeter } from './progress';
import { remoteBaseName, remoteParent, type RemoteProbe } from './remotePath';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/** Counts the bytes of an uncompressed tar stream as they pass, for progress against a size measured first, and for the stall watchdog. */
function counter(total: number | undefined, options: TransferOptions): ActivityMeter {
  const meter = new RateMeter(options.now);
  let last = 0;
  return new ActivityMeter(options.now, (bytes) => {
    const t = (options.now ?? Date.now)();
    if (t - last < 100) return;
    last = t;
    const percent = total ? Math.min(99, (bytes * 100) / total) : undefined;
    options.onProgress?.({ bytes, ...(total ? { total, percent } : {}), bytesPerSecond: meter.sample(bytes) });
  });
}

const tarFlavours = new Map<string, Promise<TarFlavour>>();
/** GNU tar or bsdtar, asked once per program (`tar --version`); one that does not answer is taken for GNU tar. */
function localTarFlavour(tar: string): Promise<TarFlavour> {
  let flavour = tarFlavours.get(tar);
  if (!flavour) {
    flavour = collect(tar, ['--version']).then((run) => tarFlavourOf(run.stdout));
    tarFlavours.set(tar, flavour);
  }
  return flavour;
}

/** The size of a tar stream of these files: a 512-byte header each, contents padded to 512, two closing blocks. */
async function tarSize(dir: string, files: readonly string[]): Promise<{ size: number; count: number }> {
  let size = 1024;
  let count = 0;
  for (const f of files) {
    const s = await lstat(join(dir, f)).catch(() => undefined);
    if (!s) continue;
    count += s.isFile() ? 1 : 0;
    size += 512 + (s.isFile() ? Math.ceil(s.size / 512) * 512 : 0);
  }
  return { size, count };
}

export async function tarUpload(
  target: SshTarget,
  localDir: string,
  remoteDir: string,
  excludes: readonly string[],
  gzip: boolean,
  options: TransferOptions,
  partialWhere: string,
): Promise<{ filesSent: number; bytesSent: number }> {
  const files = await uploadFileList(localDir, excludes, 'tar', { git: options.tools?.git });
  const { size, count } = await tarSize(localDir, files);
  const tarTool = options.tools?.tar ?? 'tar';
  const flavour = await localTarFlavour(tarTool);
  const tar = spawnGroup(tarTool, tarCreateArgv(localDir, flavour), { stdio: ['pipe', 'pipe', 'pipe'] });
  const ssh = spawnGroup(options.tools?.ssh ?? 'ssh', sshArgv(target, tarUnpackRemoteCommand(remoteDir, gzip)), {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  tar.stdin!.on('error', () => {});
  tar.stdin!.end(files.map((f) => `${f}\0`).join(''));
  const watch = counter(size, options);
  const end = await runPipe(
    [
      { child: tar, label: 'tar' },
      { child: ssh, label: 'ssh' },
    ],
    [tar.stdout!, watch, ...(gzip ? [createGzip({ level: 3 })] : []), ssh.stdin!],
    watch,
    { signal: options.signal, stallMs: options.stallMs ?? DEFAULT_STALL_MS, now: options.now },
  );
  // GNU tar says 1 when a file changed while it was read: what was read was still sent. bsdtar's 1 is a failure.
  const error = await pipeFailure(target, 'upload', end, remoteDir, partialWhere, options, undefined, flavour === 'gnu' ? [0, 1] : [0]);
  if (error) throw error;
  options.onProgress?.({ bytes: size, total: size, percent: 100 });
  return { filesSent: count, bytesSent: size };
}

export async function tarDownload(
  target: SshTarget,
  remotePath: string,
  temp: string,
  probe: RemoteProbe,
  options: TransferOptions,
  partialWhere: string,
): Promise<{ filesSent: number; bytesSent: number }> {
  const command = tarPackRemoteCommand(remoteParent(remotePath), remoteBaseName(remotePath), probe.gzip);
  const ssh = spawnGroup(options.tools?.ssh ?? 'ssh', sshArgv(target, command), { stdio: ['ignore', 'pipe', 'pipe'] });
  const tar = spawnGroup(options.tools?.tar ?? 'tar', ['-x', '-f', '-', '-C', temp], { stdio: ['pipe', 'ignore', 'pipe'] });
  const watch = counter(probe.size, options);
  const end = await runPipe(
    [
      { child: ssh, label: 'ssh' },
      { child: tar, label: 'tar' },
    ],
    [ssh.stdout!, skipToMark(), ...(probe.gzip ? [createGunzip()] : []), watch, tar.stdin!],
    watch,
    { signal: options.signal, stallMs: options.stallMs ?? DEFAULT_STALL_MS, now: options.now },
  );
  const error = await pipeFailure(target, 'download', end, remotePath, partialWhere, options, temp);
  if (error) throw error;
  options.onProgress?.({ bytes: probe.size ?? 0, ...(probe.size ? { total: probe.size } : {}), percent: 100 });
  return { filesSent: 0, bytesSent: probe.size ?? 0 };
}

/**
 * Why a tar pipe failed, undefined when it did not. The first cause wins: Cancel or a stall, then
 * ssh's own failure (the connection, or the remote side), then damaged data, then the local tar's
 * own failure; what GPU Rental stopped because another part failed is not a cause.
 */
async function pipeFailure(
  target: SshTarget,
  direction: FailedRun['direction'],
  end: PipeEnd,
  remotePath: string,
  partialWhere: string,
  options: TransferOptions,
  partialAt?: string,
  /** The local tar's exit codes that mean its side went well. */
  tarCodesOk: readonly number[] = [0],
): Promise<TransferError | undefined> {
  const ssh = end.processes.find((p) => p.label === 'ssh')!;
  const tar = end.processes.find((p) => p.label === 'tar')!;
  const run = (code: number | null): FailedRun => ({
    tool: 'tar',
    direction,
    code,
    stderr: `${ssh.stderr}\n${tar.stderr}`,
    localStderr: tar.stderr,
    remotePath,
    partialWhere,
  });
  if (end.stopped === 'cancelled') return failure(target, run(null), options, true, partialAt);
  if (end.stopped === 'stalled') return stallError(direction, options, partialWhere, partialAt);
  if (ssh.spawnError) return new TransferError('other', l10n.t('ssh could not be started: {0}', ssh.spawnError.message));
  if (tar.spawnError) return new TransferError('other', l10n.t('tar could not be started: {0}', tar.spawnError.message));
  if (!ssh.killed && ssh.code !== 0) return failure(target, run(ssh.code), options, false, partialAt);
  const damaged = end.streamError && isDataError(end.streamError) ? end.streamError : undefined;
  if (damaged) {
    const what =
      damaged instanceof MissingStreamMark
        ? l10n.t("the instance's shell printed something other than the data: {0}", visibleStart(damaged.printed))
        : damaged.message;
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
  const tarOk = tar.code !== null && tarCodesOk.includes(tar.code);
  if (!tar.killed && !tarOk) return failure(target, run(tar.code), options, false, partialAt);
  // The end that unpacks is the judge: a tar that read a whole archive and exited 0 on its own got
  // everything, whatever the pipe said after (a writer told "closed" once the reader had the end).
  const unpacked = direction === 'upload' ? !ssh.killed && ssh.code === 0 : !tar.killed && tar.code === 0;
  if (unpacked) return undefined;
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

/** Errors that say the data itself was wrong (gzip's, a missing marker), not that a pipe closed. */
function isDataError(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return (
    error instanceof MissingStreamMark || code.startsWith('Z_') || /unexpected end of file|incorrect header check/i.test(error.message)
  );
}

/** The first line of what a remote shell printed, quoted, its hidden characters shown (visibleText) and cut to 80. */
function visibleStart(text: string): string {
  return JSON.stringify(visibleText(text.split('\n').find((l) => l.trim()) ?? '', 80));
}
