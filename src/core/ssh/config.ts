/**
 * The user's SSH config gets one managed block at the top: an Include of the extension's own
 * folder of per-instance files, between two marker lines. Everything outside the markers is kept
 * byte for byte (line endings, comments, a missing final newline); malformed or duplicated
 * markers are refused, never guessed at.
 */

export const BEGIN_MARKER = '# >>> gpu-rental: managed by the GPU Rental extension; do not edit between these lines >>>';
export const END_MARKER = '# <<< gpu-rental <<<';

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

interface Block {
  /** Offsets of the block in the text: from the start of the begin line to after the end line's newline. */
  start: number;
  end: number;
}

/** Where the managed block is, or undefined; throws on unbalanced or repeated markers. */
function findBlock(text: string): Block | undefined {
  const begins: number[] = [];
  const ends: number[] = [];
  let offset = 0;
  let lineNo = 0;
  const lines: Array<{ start: number; end: number; no: number }> = [];
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const stop = nl === -1 ? text.length : nl + 1;
    lineNo++;
    const content = text.slice(offset, stop).replace(/\r?\n$/, '').trim();
    if (content === BEGIN_MARKER) begins.push(lines.length);
    if (content === END_MARKER) ends.push(lines.length);
    // A byte-order mark belongs to the file, not to its first line.
    const bom = offset === 0 && text.startsWith('\uFEFF') ? 1 : 0;
    lines.push({ start: offset + bom, end: stop, no: lineNo });
    offset = stop;
  }
  if (begins.length === 0 && ends.length === 0) return undefined;
  if (begins.length !== 1 || ends.length !== 1) {
    const extra = begins.length > 1 ? lines[begins[1]!]! : ends.length > 1 ? lines[ends[1]!]! : lines[(begins[0] ?? ends[0])!]!;
    throw new SshConfigError(
      `The SSH config has ${begins.length} start and ${ends.length} end markers of the GPU Rental block; there must be exactly one of each. Fix or remove them by hand (line ${extra.no}), then connect again.`,
      extra.no,
    );
  }
  if (ends[0]! < begins[0]!) {
    throw new SshConfigError(`The end marker of the GPU Rental block comes before its start (line ${lines[ends[0]!]!.no}). Fix or remove the markers by hand, then connect again.`, lines[ends[0]!]!.no);
  }
  return { start: lines[begins[0]!]!.start, end: lines[ends[0]!]!.end };
}

/** The line ending the file already uses (CRLF when most of its lines end so), else LF. */
export function lineEnding(text: string): '\r\n' | '\n' {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/\n/g) ?? []).length;
  return crlf > 0 && crlf * 2 >= lf ? '\r\n' : '\n';
}

/** Quotes a path for ssh_config when it has spaces or quotes. */
export function quoteSshValue(value: string): string {
  if (/[\r\n]/.test(value)) throw new SshConfigError('A path in the SSH config cannot contain a line break.');
  return /[\s"#]/.test(value) ? `"${value.replace(/(["\\])/g, '\\$1')}"` : value;
}

function blockText(includePattern: string, eol: string): string {
  return [BEGIN_MARKER, `Include ${quoteSshValue(includePattern)}`, END_MARKER, ''].join(eol);
}

/**
 * Puts the managed Include block at the top of `text` (ssh reads Include before any Host or Match
 * block applies), or rewrites the block in place. Returns the new text and whether it changed.
 */
export function withInclude(text: string, includePattern: string): { text: string; changed: boolean } {
  const block = findBlock(text);
  const eol = lineEnding(text);
  const wanted = blockText(includePattern, eol);
  if (block) {
    const current = text.slice(block.start, block.end);
    // The end line may be the file's last line, without a newline; keep that shape.
    const replacement = text.slice(block.end - 1, block.end) === '\n' ? wanted : wanted.slice(0, -eol.length);
    if (current === replacement) return { text, changed: false };
    return { text: text.slice(0, block.start) + replacement + text.slice(block.end), changed: true };
  }
  // A byte-order mark stays the first thing in the file.
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  return { text: bom + wanted + text.slice(bom.length), changed: true };
}

/** Removes the managed block and nothing else. */
export function withoutInclude(text: string): { text: string; changed: boolean } {
  const block = findBlock(text);
  if (!block) return { text, changed: false };
  return { text: text.slice(0, block.start) + text.slice(block.end), changed: true };
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
}

/** The lowercase alias of an instance; a profile keeps aliases of different accounts apart. */
export function hostAlias(instanceId: number, profile?: string): string {
  const p = profile ? `${profile.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}-` : '';
  return `gpu-rental-${p}${instanceId}`;
}

/** The instance id and profile behind one of hostAlias's aliases; undefined for any other name. */
export function parseHostAlias(alias: string | undefined): { instanceId: number; profile?: string } | undefined {
  const m = /^gpu-rental-(?:([a-z0-9]+(?:-[a-z0-9]+)*)-)?(\d+)$/.exec(alias ?? '');
  if (!m) return undefined;
  return m[1] === undefined ? { instanceId: Number(m[2]) } : { instanceId: Number(m[2]), profile: m[1] };
}

/** One instance's file in the managed folder. */
export function hostEntryText(entry: HostEntry): string {
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(entry.alias)) throw new SshConfigError(`"${entry.alias}" is not a usable SSH alias.`);
  if (!/^[A-Za-z0-9.:-]+$/.test(entry.hostName)) throw new SshConfigError(`"${entry.hostName}" is not a host name or address.`);
  if (!Number.isInteger(entry.port) || entry.port < 1 || entry.port > 65535) throw new SshConfigError(`${entry.port} is not a port.`);
  const lines = [
    ...(entry.comment ? [`# ${entry.comment.replace(/[\r\n]+/g, ' ')}`] : []),
    `Host ${entry.alias}`,
    `  HostName ${entry.hostName}`,
    `  Port ${entry.port}`,
    `  User ${entry.user ?? 'root'}`,
    `  IdentityFile ${quoteSshValue(entry.identityFile)}`,
    '  IdentitiesOnly yes',
    // Marketplace hosts reuse addresses and ports: each instance keeps its own known hosts.
    `  UserKnownHostsFile ${quoteSshValue(entry.knownHostsFile)}`,
    '  StrictHostKeyChecking accept-new',
    '  ServerAliveInterval 30',
    '  ServerAliveCountMax 4',
    '',
  ];
  return lines.join('\n');
}
