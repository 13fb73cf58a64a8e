/**
 * The command lines of a transfer: rsync over the instance's ssh alias, and the tar pipes used when
 * either side has no rsync. Pure functions, so each word can be checked in a test.
 */
import nodePath, { type PlatformPath } from 'node:path';
import { shellQuote } from '../shell';
import { sshArgv, type SshTarget } from '../ssh/remote';
import { STREAM_MARK } from './pipe';

/**
 * One word for rsync's `-e` parser, which splits on spaces and honours single and double quotes
 * but not backslashes; a quote is doubled inside quotes of its kind.
 */
export function rsyncShellWord(word: string): string {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, "''")}'`;
}

/** The `-e` value: ssh with the target's arguments and the batch options, every word quoted for rsync; the alias comes from the path. */
export function rsyncRemoteShell(target: SshTarget, ssh = 'ssh'): string {
  return [ssh, ...sshArgv(target).slice(0, -1)].map(rsyncShellWord).join(' ');
}

/** rsync patterns from the setting, each one an `--exclude`; blank entries and ones with control characters are dropped. */
export function excludeArgs(patterns: readonly string[]): string[] {
  return cleanPatterns(patterns).map((p) => `--exclude=${p}`);
}

/** The usable exclude patterns, trimmed. */
export function cleanPatterns(patterns: readonly string[]): string[] {
  // eslint-disable-next-line no-control-regex
  return patterns.map((p) => p.trim()).filter((p) => p && !/[\u0000-\u001f\u007f]/.test(p));
}

/**
 * What every rsync run shares: archive, resumable, one overall percent, a summary at the end. No
 * `--compress`: what goes to a GPU is mostly weights and data that do not compress, and on a fast
 * link compressing costs more than it saves (measured in test/bench/transfer.bench.ts).
 */
export const RSYNC_FLAGS: readonly string[] = [
  '--archive',
  '--partial',
  '--info=progress2',
  '--no-inc-recursive',
  '--stats',
  // Paths go over the protocol as they are, never through the remote shell.
  '--protect-args',
];

export interface UploadSpec {
  /** The local folder whose contents are sent. */
  readonly localDir: string;
  /** The checked remote folder they go into (created when missing). */
  readonly remoteDir: string;
  /** rsync patterns from gpuRental.sync.exclude. */
  readonly excludes: readonly string[];
}

/**
 * A local path as an argument that rsync (or any tool that reads `host:path`) takes for a local
 * one: absolute, so it never starts with a name and a colon. On Windows (`api` is path.win32) a
 * drive letter would be read as a host (`D:\data` is host `D`), so it becomes the Cygwin form
 * that Windows builds of rsync (cwRsync, Cygwin's) read, `/cygdrive/d/data`, and a UNC path
 * `//server/share/x`.
 */
export function localPathArg(path: string, api: PlatformPath = nodePath): string {
  const abs = api.resolve(path);
  if (api.sep !== '\\') return abs;
  const drive = /^([A-Za-z]):[\\/]*(.*)$/.exec(abs);
  if (drive) return `/cygdrive/${drive[1]!.toLowerCase()}/${drive[2]!.replace(/\\/g, '/')}`.replace(/\/+$/, '') || '/';
  return abs.replace(/\\/g, '/');
}

/**
 * `rsync` arguments that make `remoteDir` hold what `localDir` holds, minus the excludes and what
 * each folder's `.gitignore` names. The remote rsync is started after `mkdir -p`, so a new
 * destination folder and its parents are made.
 */
export function rsyncUploadArgv(target: SshTarget, spec: UploadSpec, options: { ssh?: string; extra?: readonly string[] } = {}): string[] {
  return [
    ...RSYNC_FLAGS,
    ...(options.extra ?? []),
    '-e',
    rsyncRemoteShell(target, options.ssh),
    `--rsync-path=mkdir -p -- ${shellQuote(spec.remoteDir)} && rsync`,
    ...excludeArgs(spec.excludes),
    '--filter=:- .gitignore',
    '--',
    `${localPathArg(spec.localDir).replace(/\/+$/, '')}/`,
    `${target.alias}:${spec.remoteDir}/`,
  ];
}

/** `rsync` arguments that copy the remote file or folder `remotePath` into the local folder `intoDir` (as `intoDir/<name>`). */
export function rsyncDownloadArgv(
  target: SshTarget,
  remotePath: string,
  intoDir: string,
  options: { ssh?: string; extra?: readonly string[] } = {},
): string[] {
  return [
    ...RSYNC_FLAGS,
    ...(options.extra ?? []),
    '-e',
    rsyncRemoteShell(target, options.ssh),
    '--',
    `${target.alias}:${remotePath}`,
    `${localPathArg(intoDir).replace(/\/+$/, '')}/`,
  ];
}

/**
 * The remote side of a tar upload: make the folder, run `first` in a subshell (the listing that
 * the quick check reads, in the same session), then unpack stdin into the folder.
 */
export function tarUnpackRemoteCommand(remoteDir: string, gzip: boolean, first?: string): string {
  const dir = shellQuote(remoteDir);
  return `mkdir -p -- ${dir} && ${first ? `(${first}) && ` : ''}tar -x${gzip ? 'z' : ''}f - -C ${dir}`;
}

/**
 * The remote side of a tar download: `remotePath` packed from its parent folder, so it unpacks as
 * `<name>`. The data follows a line of its own (STREAM_MARK), so that whatever the remote shell's
 * start-up files print first is skipped rather than read as the archive. `exclude`: members left
 * out (the large files sftp fetches), matched literally (wildcards escaped).
 */
export function tarPackRemoteCommand(parent: string, name: string, gzip: boolean, exclude: readonly string[] = []): string {
  const excludes = exclude.map((m) => ` ${shellQuote(`--exclude=${m.replace(/[\\*?[]/g, '\\$&')}`)}`).join('');
  return `cd -- ${shellQuote(parent)} && printf '%s\\n' ${STREAM_MARK} && tar -cf -${excludes} -- ${shellQuote(name)}${gzip ? ' | gzip -c' : ''}`;
}
