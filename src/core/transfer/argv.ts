/**
 * The command lines of a transfer: rsync over the instance's ssh alias, and the tar pipes used when
 * either side has no rsync. Pure functions, so each word can be checked in a test.
 */
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
    `${spec.localDir.replace(/\/+$/, '')}/`,
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
    `${intoDir}/`,
  ];
}

/**
 * Which tar this machine has: GNU tar (Linux), or bsdtar from libarchive (stock macOS, the BSDs,
 * Windows' tar.exe), whose options for the same job differ.
 */
export type TarFlavour = 'gnu' | 'bsd';

/** The flavour `tar --version` names: bsdtar says "bsdtar … libarchive"; anything else is taken for GNU tar. */
export function tarFlavourOf(versionText: string): TarFlavour {
  return /bsdtar|libarchive/i.test(versionText) ? 'bsd' : 'gnu';
}

/**
 * Local `tar` arguments that write the listed files (NUL-separated on stdin, chosen by GPU Rental
 * with the excludes and .gitignore applied) as an uncompressed stream on stdout, which GPU Rental
 * counts and compresses. Names are taken verbatim, so one starting with `-` is a name: GNU tar
 * needs `--verbatim-files-from` for that; bsdtar has no such option (it refuses it) and, with
 * `--null`, reads every line as a name anyway. GNU tar's `-n` is `--seek`, bsdtar's is "do not
 * recurse".
 */
export function tarCreateArgv(localDir: string, flavour: TarFlavour = 'gnu'): string[] {
  return flavour === 'bsd'
    ? ['-c', '-f', '-', '-C', localDir, '-n', '--null', '-T', '-']
    : ['-c', '-f', '-', '-C', localDir, '--null', '--no-recursion', '--verbatim-files-from', '-T', '-'];
}

/** The remote side of a tar upload: make the folder, unpack stdin into it. */
export function tarUnpackRemoteCommand(remoteDir: string, gzip: boolean): string {
  const dir = shellQuote(remoteDir);
  return `mkdir -p -- ${dir} && tar -x${gzip ? 'z' : ''}f - -C ${dir}`;
}

/**
 * The remote side of a tar download: `remotePath` packed from its parent folder, so it unpacks as
 * `<name>`. The data follows a line of its own (STREAM_MARK), so that whatever the remote shell's
 * start-up files print first is skipped rather than read as the archive.
 */
export function tarPackRemoteCommand(parent: string, name: string, gzip: boolean): string {
  return `cd -- ${shellQuote(parent)} && printf '%s\\n' ${STREAM_MARK} && tar -cf - -- ${shellQuote(name)}${gzip ? ' | gzip -c' : ''}`;
}
