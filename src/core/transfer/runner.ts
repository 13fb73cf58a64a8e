/**
 * Runs uploads and downloads: rsync over the instance's ssh alias when both sides have it, else a
 * tar pipe over ssh, with progress events, Cancel through an AbortSignal, and downloads written to
 * a temporary name that is renamed only when everything arrived.
 */
import { lstat, mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { runRemote, sshArgv, type SshTarget } from '../ssh/remote';
import {
  cleanPatterns,
  rsyncDownloadArgv,
  rsyncUploadArgv,
  tarCreateArgv,
  tarFlavourOf,
  tarPackRemoteCommand,
  tarUnpackRemoteCommand,
  type TarFlavour,
} from './argv';
import { classifyFailure, TransferError, withDiskFigures, type FailedRun } from './errors';
import { ignoreRules, isIgnoredWithFolders, keptFiles } from './ignore';
import { ActivityMeter, MissingStreamMark, runPipe, skipToMark, spawnGroup, stopGroups, tail, type PipeEnd } from './pipe';
import { parseRsyncProgress, parseRsyncStats, RateMeter, type TransferProgress } from './progress';
import {
  checkRemotePath,
  diskFreeCommand,
  listCommand,
  parseDiskFree,
  parseListing,
  parseProbe,
  probeCommand,
  remoteBaseName,
  remoteParent,
  sizeCommand,
  type RemoteListing,
  type RemoteProbe,
} from './remotePath';
import { l10n } from '../l10n';

/** The programs a transfer runs; tests and the benchmark point them elsewhere. */
export interface TransferTools {
  readonly rsync?: string;
  readonly ssh?: string;
  readonly tar?: string;
  readonly git?: string;
}

export interface TransferOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: TransferProgress) => void;
  /** Something the user should read while the transfer runs: "the instance has no rsync: sending everything with tar". */
  readonly onNotice?: (text: string) => void;
  readonly tools?: TransferTools;
  /** More rsync options (tests slow a transfer with --bwlimit). */
  readonly extraRsyncArgs?: readonly string[];
  /** Which platform's install words to use when local rsync is missing (default: this one). */
  readonly platform?: NodeJS.Platform;
  readonly now?: () => number;
  /**
   * A transfer through which nothing moved for this long is stopped and said to have stalled (a
   * connection that hangs without dropping). rsync gets the same as its `--timeout`. Default 60 s.
   */
  readonly stallMs?: number;
}

/** How long a transfer may move nothing before it is stopped as stalled. */
export const DEFAULT_STALL_MS = 60_000;

/** How the files went: rsync, or tar with the reason rsync could not be used. */
export type TransferMethod = 'rsync' | 'tar';

export interface UploadResult {
  readonly method: TransferMethod;
  /** The remote folder that now holds the files. */
  readonly remoteDir: string;
  /** Files actually sent (rsync leaves out unchanged ones; tar sends all). */
  readonly filesSent: number;
  readonly bytesSent: number;
  /** Why tar was used, when it was. */
  readonly notice?: string;
}

export interface DownloadResult {
  readonly method: TransferMethod;
  /** The local file or folder that now holds the download. */
  readonly localPath: string;
  readonly filesSent: number;
  readonly bytesSent: number;
  readonly notice?: string;
}

/** Free space under which a failed upload's disk counts as full. */
const DISK_FULL_BYTES = 1024 * 1024;

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
 * Sends the contents of `localDir` to `remoteDir` on the instance: only what changed (rsync), minus
 * the excludes and what `.gitignore` names; everything with tar when a side has no rsync.
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
  const probe = await probeRemote(target, undefined, false, options);
  const notice = !local.ok
    ? l10n.t('{0}. Sending everything with tar.', local.why)
    : l10n.t('The instance has no rsync: sending everything with tar.');
  options.onNotice?.(notice);
  const sent = await tarUpload(target, spec.localDir, remoteDir, spec.excludes, probe.gzip, options, partialWhere);
  return { method: 'tar', remoteDir, ...sent, notice };
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
    ? l10n.t('{0}. Sending everything with tar.', local.why)
    : !probe.rsync
      ? l10n.t('The instance has no rsync: sending everything with tar.')
      : undefined;
  const partialWhere = l10n.t('{0} (kept, so Retry resumes; delete it if you do not need it)', temp);
  let sent: { filesSent: number; bytesSent: number };
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

/** rsync's own I/O timeout (the stall watchdog's length), then what the caller added. */
function rsyncExtra(options: TransferOptions): string[] {
  return [`--timeout=${Math.max(1, Math.ceil((options.stallMs ?? DEFAULT_STALL_MS) / 1000))}`, ...(options.extraRsyncArgs ?? [])];
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sshTool(options: Pick<TransferOptions, 'tools'>): { ssh?: string } {
  return options.tools?.ssh ? { ssh: options.tools.ssh } : {};
}

/** Whether rsync failed because the instance's shell found no rsync to run (missing, or not executable). */
export function remoteLacksRsync(stderr: string): boolean {
  return /\brsync: (command )?not found|\brsync: (Permission denied|cannot execute)|\brsync: No such file or directory/.test(stderr);
}

/** A failed short ssh call: the path missing, or the connection. */
function connectionOr(stderr: string, code: number, path: string): TransferError {
  const { fault, message } = classifyFailure({ tool: 'ssh', direction: 'download', code, stderr, remotePath: path });
  if (fault === 'connection') {
    return new TransferError(
      'connection',
      l10n.t(
        'The instance did not answer over ssh ({0}). Check that it is running, then try again.',
        message.replace(/^The connection to the instance dropped \((.*?)\).*$/s, '$1'),
      ),
    );
  }
  return new TransferError(fault, message);
}

/** The error of a failed run, with the disk's figures when it is full, or the cancellation. */
async function failure(
  target: SshTarget,
  run: FailedRun,
  options: TransferOptions,
  cancelled: boolean,
  partialAt?: string,
): Promise<TransferError> {
  if (cancelled) {
    return new TransferError(
      'cancelled',
      l10n.t('Cancelled: the {0} is partial. What arrived so far is in {1}.', run.direction, run.partialWhere ?? l10n.t('its destination')),
      partialAt,
    );
  }
  let { fault, message } = classifyFailure(run);
  // A write error on an upload whose words were lost with the connection (rsync then says only its
  // exit code): the instance's disk is looked at, and a full one is said.
  const unexplained = fault === 'other' && run.direction === 'upload';
  if (fault !== 'remoteDiskFull' && !unexplained) return new TransferError(fault, message, partialAt);
  const df = await runRemote(target, diskFreeCommand(run.remotePath), { timeoutMs: 10_000, ...sshTool(options) }).catch(() => undefined);
  const disk = df && df.code === 0 ? parseDiskFree(df.stdout) : undefined;
  if (unexplained) {
    if (!disk || disk.free > DISK_FULL_BYTES) return new TransferError(fault, message, partialAt);
    ({ fault, message } = classifyFailure({ ...run, stderr: l10n.t('{0}\nNo space left on device', run.stderr) }));
  }
  return new TransferError(fault, withDiskFigures(message, disk), partialAt);
}

interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
  spawnError?: Error;
  cancelled: boolean;
}

/** Runs a program to the end, collecting its output (the last 256 kB of each stream); Cancel ends its whole process group. */
function collect(
  cmd: string,
  args: readonly string[],
  options: { signal?: AbortSignal; onStdout?: (chunk: string) => void; cwd?: string } = {},
): Promise<ProcessRun> {
  return new Promise((resolve) => {
    const child = spawnGroup(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd });
    const out = tail();
    const err = tail();
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      stopGroups([child]);
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out.add(chunk);
      options.onStdout?.(chunk);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => err.add(chunk));
    child.once('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code: null, stdout: '', stderr: error.message, spawnError: error, cancelled });
    });
    child.once('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code, stdout: out.text(), stderr: err.text(), cancelled });
    });
  });
}

/**
 * Runs rsync, turning its `--info=progress2` lines into progress events. Once bytes have started
 * to move, a run whose count stands still for `stallMs` is stopped (`stalled`): rsync's own
 * `--timeout` does not end a link that hangs with both processes alive.
 */
async function runRsync(argv: string[], options: TransferOptions): Promise<ProcessRun & { stalled: boolean }> {
  const meter = new RateMeter(options.now);
  const now = options.now ?? Date.now;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (options.signal?.aborted) stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let lastBytes = -1;
  let lastMove = 0;
  let stalled = false;
  const watchdog = setInterval(
    () => {
      if (lastBytes >= 0 && now() - lastMove >= stallMs && !stop.signal.aborted) {
        stalled = true;
        stop.abort();
      }
    },
    Math.min(1_000, Math.max(50, stallMs / 4)),
  );
  let pending = '';
  const run = await collect(options.tools?.rsync ?? 'rsync', argv, {
    signal: stop.signal,
    onStdout: (chunk) => {
      const lines = (pending + chunk).split(/[\r\n]/);
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const p = parseRsyncProgress(line);
        if (!p) continue;
        if (p.bytes !== lastBytes) {
          lastBytes = p.bytes;
          lastMove = now();
        }
        const total = p.percent > 0 ? Math.round((p.bytes * 100) / p.percent) : undefined;
        options.onProgress?.({
          bytes: p.bytes,
          percent: p.percent,
          ...(total !== undefined ? { total } : {}),
          bytesPerSecond: meter.sample(p.bytes),
        });
      }
    },
  }).finally(() => {
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', onAbort);
  });
  if (run.spawnError) throw new TransferError('other', l10n.t('rsync could not be started: {0}', run.spawnError.message));
  return { ...run, cancelled: run.cancelled && !stalled, stalled };
}

/** A transfer stopped because nothing moved for `stallMs`: the connection hangs without dropping. */
function stallError(direction: FailedRun['direction'], options: TransferOptions, partialWhere: string, partialAt?: string): TransferError {
  const seconds = Math.round((options.stallMs ?? DEFAULT_STALL_MS) / 1000);
  return new TransferError(
    'connection',
    direction === 'upload'
      ? l10n.t(
          'Nothing reached the instance for {0} s: the connection stalled, so the upload was stopped. What arrived so far is in {1}. Check that the instance is running, then Retry.',
          seconds,
          partialWhere,
        )
      : l10n.t(
          'Nothing arrived from the instance for {0} s: the connection stalled, so the download was stopped. What arrived so far is in {1}. Check that the instance is running, then Retry.',
          seconds,
          partialWhere,
        ),
    partialAt,
  );
}

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

/** The files a tar upload sends when the folder is in a git work tree: git's own reading of every ignore file; else undefined. */
async function gitFileList(dir: string, git = 'git'): Promise<string[] | undefined> {
  const inside = await collect(git, ['-C', dir, 'rev-parse', '--is-inside-work-tree']);
  if (inside.code !== 0 || inside.stdout.trim() !== 'true') return undefined;
  const listed = await collect(git, ['-C', dir, 'ls-files', '-co', '--exclude-standard', '-z']);
  if (listed.code !== 0) return undefined;
  return listed.stdout.split('\0').filter(Boolean);
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

async function tarUpload(
  target: SshTarget,
  localDir: string,
  remoteDir: string,
  excludes: readonly string[],
  gzip: boolean,
  options: TransferOptions,
  partialWhere: string,
): Promise<{ filesSent: number; bytesSent: number }> {
  const rules = ignoreRules(cleanPatterns(excludes));
  const listed = await gitFileList(localDir, options.tools?.git);
  const files = listed ? listed.filter((f) => !isIgnoredWithFolders(f, rules)) : await keptFiles(localDir, rules);
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

async function tarDownload(
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

/** The first line of what a remote shell printed, shortened, with control characters shown as \uXXXX. */
function visibleStart(text: string): string {
  const first = text.split('\n').find((l) => l.trim()) ?? '';
  const cut = first.length > 80 ? `${first.slice(0, 80)}…` : first;
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(cut.replace(/[\u0000-\u001f\u007f-\u009f\p{Cf}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
