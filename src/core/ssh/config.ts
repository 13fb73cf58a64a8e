import { isSshHost } from '../instances/ssh';
import { l10n } from '../l10n';

/**
 * The user's SSH config gets one managed block at the top: an Include of the extension's own
 * folder of per-instance files, between two marker lines. The config is handled as bytes, never
 * decoded: everything outside the markers is kept byte for byte (invalid UTF-8 such as a Latin-1
 * comment, mixed line endings, a byte-order mark, a missing final newline). ssh applies an Include
 * only outside Host and Match sections, so a block that has a Host or Match line above it is moved
 * back to the top. Malformed or duplicated markers are refused, never guessed at.
 */

export const BEGIN_MARKER = '# >>> gpu-rental: managed by the GPU Rental extension; do not edit between these lines >>>';
export const END_MARKER = '# <<< gpu-rental <<<';

const BEGIN_BYTES = Buffer.from(BEGIN_MARKER, 'latin1');
const END_BYTES = Buffer.from(END_MARKER, 'latin1');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF = 0x0a;
const CR = 0x0d;

export class SshConfigError extends Error {
  constructor(
    message: string,
    /** 1-based line of the problem, when there is one. */
    readonly line?: number,
  ) {
    super(message);
    this.name = 'SshConfigError';
  }
}

interface Line {
  /** Offset of the line's first byte (after a byte-order mark on the first line). */
  start: number;
  /** Offset after the line's own bytes, before its CR LF or LF. */
  contentEnd: number;
  /** Offset after its newline (or the end of the file). */
  end: number;
  no: number;
}

interface Block {
  /** Offsets of the block: from the start of the begin line to after the end line's newline. */
  start: number;
  end: number;
  /** Indexes of the begin and end lines in the file's lines. */
  beginLine: number;
  endLine: number;
}

function hasBom(bytes: Buffer): boolean {
  return bytes.subarray(0, 3).equals(BOM);
}

function splitLines(bytes: Buffer): Line[] {
  const lines: Line[] = [];
  // A byte-order mark belongs to the file, not to its first line.
  let offset = hasBom(bytes) ? 3 : 0;
  while (offset < bytes.length) {
    const nl = bytes.indexOf(LF, offset);
    const end = nl === -1 ? bytes.length : nl + 1;
    const contentEnd = nl === -1 ? end : nl > offset && bytes[nl - 1] === CR ? nl - 1 : nl;
    lines.push({ start: offset, contentEnd, end, no: lines.length + 1 });
    offset = end;
  }
  return lines;
}

const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a || b === 0x0b || b === 0x0c;

/** The line's bytes without surrounding ASCII whitespace. */
function trimmed(bytes: Buffer, line: Line): Buffer {
  let s = line.start;
  let e = line.contentEnd;
  while (s < e && isSpace(bytes[s])) s++;
  while (e > s && isSpace(bytes[e - 1])) e--;
  return bytes.subarray(s, e);
}

/**
 * Whether ssh reads this line as the start of a Host or Match section. ssh skips leading blanks
 * (and one `=`), ends the keyword at a blank, a quote or `=`, drops quotes inside it, compares it
 * without case, and stops reading a line at a NUL byte. A line only close to that counts too:
 * moving the block to the top once too often is harmless, missing a section is not.
 */
export function isSectionLine(line: Buffer): boolean {
  const nul = line.indexOf(0);
  const text = line.subarray(0, nul === -1 ? line.length : nul).toString('latin1');
  const keyword = text.replace(/^[ \t\r\n=]*/, '').replace(/"/g, '');
  return /^(?:host|match)(?:[ \t\r\n=]|$)/i.test(keyword);
}

/**
 * Whether ssh reads anything from this line: not blank, not a comment. ssh keeps the first value it
 * obtains for each option, so a global `Port` or `User` above the block would override the managed
 * entries as surely as a Host section hides them; only comments and blank lines may stand above it.
 */
function isDirectiveLine(line: Buffer): boolean {
  const nul = line.indexOf(0);
  // A byte-order mark (read as Latin-1) is not a directive; ssh stops reading a line at a NUL.
  const text = line
    .subarray(0, nul === -1 ? line.length : nul)
    .toString('latin1')
    .replace(/^\xEF\xBB\xBF/, '');
  const start = text.replace(/^[ \t\r\n\v\f]*/, '');
  return start !== '' && !start.startsWith('#');
}

/** Where the managed block is, or undefined; throws on unbalanced or repeated markers. */
function findBlock(bytes: Buffer, lines: Line[]): Block | undefined {
  const begins: number[] = [];
  const ends: number[] = [];
  lines.forEach((line, i) => {
    const t = trimmed(bytes, line);
    if (t.equals(BEGIN_BYTES)) begins.push(i);
    else if (t.equals(END_BYTES)) ends.push(i);
  });
  if (begins.length === 0 && ends.length === 0) return undefined;
  if (begins.length !== 1 || ends.length !== 1) {
    const extra = begins.length > 1 ? lines[begins[1]!]! : ends.length > 1 ? lines[ends[1]!]! : lines[(begins[0] ?? ends[0])!]!;
    throw new SshConfigError(
      l10n.t(
        'The SSH config has {0} start and {1} end markers of the GPU Rental block; there must be exactly one of each. Fix or remove them by hand (line {2}), then connect again.',
        begins.length,
        ends.length,
        extra.no,
      ),
      extra.no,
    );
  }
  if (ends[0]! < begins[0]!) {
    const no = lines[ends[0]!]!.no;
    throw new SshConfigError(
      l10n.t(
        'The end marker of the GPU Rental block comes before its start (line {0}). Fix or remove the markers by hand, then connect again.',
        no,
      ),
      no,
    );
  }
  return { start: lines[begins[0]!]!.start, end: lines[ends[0]!]!.end, beginLine: begins[0]!, endLine: ends[0]! };
}

function countLineEndings(bytes: Buffer): { crlf: number; lf: number } {
  let crlf = 0;
  let lf = 0;
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) {
    lf++;
    if (i > 0 && bytes[i - 1] === CR) crlf++;
  }
  return { crlf, lf };
}

/** The line ending the file already uses (CRLF when most of its lines end so), else LF. */
export function lineEnding(content: string | Buffer): '\r\n' | '\n' {
  const { crlf, lf } = countLineEndings(typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  return crlf > 0 && crlf * 2 >= lf ? '\r\n' : '\n';
}

/** Quotes a path for ssh_config when it has spaces or quotes. */
export function quoteSshValue(value: string): string {
  if (/[\r\n]/.test(value)) throw new SshConfigError(l10n.t('A path in the SSH config cannot contain a line break.'));
  return /[\s"#]/.test(value) ? `"${value.replace(/(["\\])/g, '\\$1')}"` : value;
}

/**
 * A file path for IdentityFile or UserKnownHostsFile, which ssh reads for `%` tokens: a `%` in it
 * is doubled. A Windows path (`C:\\Users\\me\\.ssh\\id`, `\\\\server\\share`) is written with forward
 * slashes, which Windows' OpenSSH reads the same and which no quoting turns into an escape.
 */
export function sshFilePath(path: string): string {
  const windows = /^([A-Za-z]:[\\/]|\\\\)/.test(path);
  return (windows ? path.replace(/\\/g, '/') : path).replace(/%/g, '%%');
}

function blockText(includePattern: string, eol: string): string {
  return [BEGIN_MARKER, `Include ${quoteSshValue(includePattern)}`, END_MARKER, ''].join(eol);
}

/**
 * Whether the block already says what `wanted` says, line for line, whatever its line endings and
 * surrounding blanks: lines pasted by hand with another line ending are left alone.
 */
function sameLines(bytes: Buffer, blockLines: Line[], wanted: Buffer): boolean {
  const want = splitLines(wanted);
  return blockLines.length === want.length && blockLines.every((line, i) => trimmed(bytes, line).equals(trimmed(wanted, want[i]!)));
}

export interface ConfigEdit<T extends string | Buffer> {
  text: T;
  changed: boolean;
}

function withIncludeBytes(bytes: Buffer, includePattern: string): ConfigEdit<Buffer> {
  const lines = splitLines(bytes);
  const block = findBlock(bytes, lines);
  const bomLength = hasBom(bytes) ? 3 : 0;
  // The user's bytes decide the line ending, not the block's own.
  const rest = block ? Buffer.concat([bytes.subarray(0, block.start), bytes.subarray(block.end)]) : bytes;
  const wanted = Buffer.from(blockText(includePattern, lineEnding(rest)), 'utf8');
  if (block && !lines.slice(0, block.beginLine).some((line) => isDirectiveLine(bytes.subarray(line.start, line.contentEnd)))) {
    // Where ssh reads it: rewrite only the inside. An end line that is the file's last, without a
    // newline, keeps that shape.
    if (sameLines(bytes, lines.slice(block.beginLine, block.endLine + 1), wanted)) return { text: bytes, changed: false };
    const replacement = bytes[block.end - 1] === LF ? wanted : wanted.subarray(0, wanted.lastIndexOf(END_BYTES) + END_BYTES.length);
    return { text: Buffer.concat([bytes.subarray(0, block.start), replacement, bytes.subarray(block.end)]), changed: true };
  }
  // Missing, or inside a Host or Match section where ssh skips it for other hosts: put it first
  // (after a byte-order mark, which stays the first thing in the file), the rest as it was.
  return { text: Buffer.concat([rest.subarray(0, bomLength), wanted, rest.subarray(bomLength)]), changed: true };
}

function withoutIncludeBytes(bytes: Buffer): ConfigEdit<Buffer> {
  const block = findBlock(bytes, splitLines(bytes));
  if (!block) return { text: bytes, changed: false };
  return { text: Buffer.concat([bytes.subarray(0, block.start), bytes.subarray(block.end)]), changed: true };
}

/** Runs a byte edit on text too (tests and callers that hold a string); bytes stay bytes. */
function onContent<T extends string | Buffer>(content: T, edit: (bytes: Buffer) => ConfigEdit<Buffer>): ConfigEdit<T> {
  if (typeof content !== 'string') return edit(content) as ConfigEdit<T>;
  const result = edit(Buffer.from(content, 'utf8'));
  return { text: (result.changed ? result.text.toString('utf8') : content) as T, changed: result.changed };
}

/**
 * Puts the managed Include block at the top of the config (ssh reads Include before any Host or
 * Match section applies), or rewrites the block in place while nothing but global lines stand
 * above it. Returns the new content and whether it changed.
 */
export function withInclude<T extends string | Buffer>(content: T, includePattern: string): ConfigEdit<T> {
  return onContent(content, (bytes) => withIncludeBytes(bytes, includePattern));
}

/** Removes the managed block and nothing else. */
export function withoutInclude<T extends string | Buffer>(content: T): ConfigEdit<T> {
  return onContent(content, withoutIncludeBytes);
}

/** What the user must add by hand when the config cannot be written. */
export function includeInstructions(includePattern: string): string {
  return blockText(includePattern, '\n');
}

export interface HostEntry {
  alias: string;
  hostName: string;
  port: number;
  user?: string;
  identityFile: string;
  knownHostsFile: string;
  /** A comment line naming the instance, for a person reading the file. */
  comment?: string;
  /**
   * A second name on the Host line (a cluster node's `gpu-rental-train-node1`); never one that
   * parseHostAlias reads as an instance id, so only `alias` identifies the instance.
   */
  friendlyAlias?: string;
}

/** `gpu-rental-` and the profile's part (`work-`, none for the default profile): how every managed name starts. */
export function aliasPrefix(profile?: string): string {
  const p = profile
    ? `${profile
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')}-`
    : '';
  return `gpu-rental-${p}`;
}

/** The lowercase alias of an instance; a profile keeps aliases of different accounts apart. */
export function hostAlias(instanceId: number, profile?: string): string {
  return `${aliasPrefix(profile)}${instanceId}`;
}

/** The instance id and profile behind one of hostAlias's aliases; undefined for any other name. */
export function parseHostAlias(alias: string | undefined): { instanceId: number; profile?: string } | undefined {
  const m = /^gpu-rental-(?:([a-z0-9]+(?:-[a-z0-9]+)*)-)?(\d+)$/.exec(alias ?? '');
  if (!m) return undefined;
  return m[1] === undefined ? { instanceId: Number(m[2]) } : { instanceId: Number(m[2]), profile: m[1] };
}

/** The value for a message: quoted, escaped, short. */
function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** One instance's file in the managed folder. */
export function hostEntryText(entry: HostEntry): string {
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(entry.alias))
    throw new SshConfigError(l10n.t('The SSH alias (Host) {0} is not usable; nothing was written.', shown(entry.alias)));
  const friendly = entry.friendlyAlias;
  if (friendly !== undefined && (!/^[a-z0-9][a-z0-9.-]*$/.test(friendly) || friendly === entry.alias || parseHostAlias(friendly)))
    throw new SshConfigError(l10n.t('The SSH alias (Host) {0} is not usable; nothing was written.', shown(friendly)));
  if (!isSshHost(entry.hostName)) {
    throw new SshConfigError(
      l10n.t(
        "The instance's SSH address (HostName) {0} is not a host name or IP address; nothing was written. Refresh the instance and connect again once it reports a plain address.",
        shown(entry.hostName),
      ),
    );
  }
  if (!Number.isInteger(entry.port) || entry.port < 1 || entry.port > 65535)
    throw new SshConfigError(l10n.t("The instance's SSH port (Port) {0} is not a port from 1 to 65535; nothing was written.", entry.port));
  const user = entry.user ?? 'root';
  if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(user))
    throw new SshConfigError(l10n.t('The SSH user (User) {0} is not a plain user name; nothing was written.', shown(user)));
  const lines = [
    ...(entry.comment ? [`# ${entry.comment.replace(/[\r\n]+/g, ' ')}`] : []),
    ['Host', entry.alias, ...(friendly === undefined ? [] : [friendly])].join(' '),
    `  HostName ${entry.hostName}`,
    `  Port ${entry.port}`,
    `  User ${user}`,
    `  IdentityFile ${quoteSshValue(sshFilePath(entry.identityFile))}`,
    '  IdentitiesOnly yes',
    // Marketplace hosts reuse addresses and ports: each instance keeps its own known hosts.
    `  UserKnownHostsFile ${quoteSshValue(sshFilePath(entry.knownHostsFile))}`,
    '  StrictHostKeyChecking accept-new',
    '  ServerAliveInterval 30',
    '  ServerAliveCountMax 4',
    '',
  ];
  return lines.join('\n');
}
