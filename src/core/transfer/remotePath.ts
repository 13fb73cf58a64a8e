/**
 * Remote paths as they reach ssh: checked (no control characters, no option look-alikes), and the
 * listing a folder browser reads, parsed from `ls -Apb` so that any name survives the trip.
 */
import { shellQuote } from '../shell';
import { l10n } from '../l10n';

/** A remote path the user or the service gave that GPU Rental will not send to a shell. */
export class UnusableRemotePath extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnusableRemotePath';
  }
}

/**
 * The path to use on the instance: trimmed of surrounding blanks, `~/x` made relative (ssh starts
 * in the home folder, and rsync's protected arguments expand no `~`), a leading `-` made `./-x` so
 * no tool reads it as an option, trailing slashes dropped. Throws on an empty path, and on control
 * characters (a newline would split a command or a listing).
 */
export function checkRemotePath(input: string): string {
  let path = input.trim();
  if (!path) throw new UnusableRemotePath(l10n.t('The remote path is empty. Type a folder such as /root/data.'));
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    throw new UnusableRemotePath(
      l10n.t('The remote path contains a newline or another control character. Rename it on the instance first.'),
    );
  }
  if (path === '~') return '.';
  if (path.startsWith('~/')) path = path.slice(2) || '.';
  // A leading `-` would be read as an option, and a leading `:` makes rsync's `alias::path` its daemon syntax.
  if (path.startsWith('-') || path.startsWith(':')) path = `./${path}`;
  if (path.length > 1) path = path.replace(/\/+$/, '') || '/';
  return path;
}

/** The folder part of a checked path, as `dirname` has it. */
export function remoteParent(path: string): string {
  const at = path.lastIndexOf('/');
  if (at < 0) return '.';
  if (at === 0) return '/';
  return path.slice(0, at);
}

/** The last part of a checked path; the root folder is called `instance-root` locally. */
export function remoteBaseName(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name === '' || name === '.' || name === '..' ? 'instance-root' : name;
}

/** `child` inside the checked folder `dir`. */
export function remoteJoin(dir: string, child: string): string {
  if (dir === '/') return `/${child}`;
  return `${dir}/${child}`;
}

/** One row of a remote folder. */
export interface RemoteEntry {
  readonly name: string;
  readonly folder: boolean;
}

/** A listed folder: its absolute path, what can be picked, and how many names could not be shown. */
export interface RemoteListing {
  readonly path: string;
  readonly entries: RemoteEntry[];
  /** Names with a newline or another control character, or bytes that are not UTF-8: left out. */
  readonly refused: number;
}

/** Marks the line after which the listing starts, so a login banner printed by a shell rc cannot be taken for a name. */
const MARK = '--gpu-rental-listing--';

/**
 * The command that lists `path`: its absolute form, then one name per line as `ls -Apb` writes
 * them in the C locale (a folder ends in `/`; spaces, backslashes, control characters and every
 * non-ASCII byte escaped, so each name is one line whatever it holds).
 */
export function listCommand(path: string): string {
  return `cd -- ${shellQuote(path)} && printf '%s\\n' ${shellQuote(MARK)} && pwd && LC_ALL=C ls -Apb`;
}

/** Parses what listCommand printed. */
export function parseListing(stdout: string): RemoteListing {
  const lines = stdout.split('\n');
  const start = lines.indexOf(MARK);
  const body = start >= 0 ? lines.slice(start + 1) : lines;
  const path = body.shift() ?? '';
  const entries: RemoteEntry[] = [];
  let refused = 0;
  for (const line of body) {
    if (!line) continue;
    const folder = line.endsWith('/');
    const name = decodeLsName(folder ? line.slice(0, -1) : line);
    if (name === undefined) refused++;
    else entries.push({ name, folder });
  }
  entries.sort((a, b) => (a.folder === b.folder ? a.name.localeCompare(b.name) : a.folder ? -1 : 1));
  return { path, entries, refused };
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13 };

/**
 * A name as `ls -b` escaped it, decoded to text; undefined when it holds a control character
 * (newlines included) or is not UTF-8: such a name cannot be shown or passed on safely.
 */
export function decodeLsName(escaped: string): string | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < escaped.length; i++) {
    const c = escaped[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = escaped[i + 1];
    if (next === undefined) return undefined;
    const octal = /^[0-7]{3}/.exec(escaped.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else if (next in SIMPLE_ESCAPES) {
      bytes.push(SIMPLE_ESCAPES[next]!);
      i++;
    } else {
      bytes.push(...Buffer.from(next, 'utf8'));
      i++;
    }
  }
  if (bytes.some((b) => b < 0x20 || b === 0x7f)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/**
 * One round trip before a transfer: whether `path` is a folder, a file or missing, its size in
 * bytes (`du -sb`, when asked), and whether the instance has rsync and gzip.
 */
export function probeCommand(path: string | undefined, withSize: boolean): string {
  const parts = [`printf '%s\\n' ${shellQuote(MARK)}`];
  if (path !== undefined) {
    const p = shellQuote(path);
    parts.push(`if [ -d ${p} ]; then echo kind=folder; elif [ -e ${p} ]; then echo kind=file; else echo kind=missing; fi`);
    if (withSize) parts.push(`echo "size=$(du -sb -- ${p} 2>/dev/null | cut -f1)"`);
  }
  // Found and executable: a shell's `command -v` can name a file that cannot run.
  for (const tool of ['rsync', 'gzip']) parts.push(`t=$(command -v ${tool}) && [ -x "$t" ] && echo has=${tool}`);
  parts.push('true');
  return parts.join('; ');
}

/** What probeCommand found. */
export interface RemoteProbe {
  readonly kind?: 'folder' | 'file' | 'missing';
  readonly size?: number;
  readonly rsync: boolean;
  readonly gzip: boolean;
}

export function parseProbe(stdout: string): RemoteProbe {
  const lines = stdout.split('\n');
  const start = lines.indexOf(MARK);
  const body = start >= 0 ? lines.slice(start + 1) : lines;
  const value = (key: string) => body.find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1);
  const kind = value('kind');
  const size = Number(value('size'));
  return {
    ...(kind === 'folder' || kind === 'file' || kind === 'missing' ? { kind } : {}),
    ...(value('size') && Number.isFinite(size) ? { size } : {}),
    rsync: body.includes('has=rsync'),
    gzip: body.includes('has=gzip'),
  };
}

/** `du -sb` of a folder, for the destroy confirmation; prints only the number, or nothing when it is missing. */
export function sizeCommand(path: string): string {
  return `du -sb -- ${shellQuote(path)} 2>/dev/null | cut -f1`;
}

/** `df` of the disk holding `path` (or its nearest existing parent), in 1024-byte blocks: size, used, free. */
export function diskFreeCommand(path: string): string {
  return `p=${shellQuote(path)}; while [ ! -e "$p" ] && [ "$p" != / ] && [ "$p" != . ]; do p=$(dirname -- "$p"); done; df -Pk -- "$p" | tail -n 1`;
}

/** Parses one `df -Pk` row: total, used and free bytes; undefined when it is not one. */
export function parseDiskFree(stdout: string): { total: number; used: number; free: number } | undefined {
  const m = /^\S+\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+%/m.exec(stdout.trim());
  return m ? { total: Number(m[1]) * 1024, used: Number(m[2]) * 1024, free: Number(m[3]) * 1024 } : undefined;
}
