// The managed SSH config block's generators and independent expectations, shared by the in-process
// property (configProperty.test.ts) and the one judged by real `ssh -G` (configPropertySsh.sim.test.ts).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BEGIN_MARKER, END_MARKER } from '../../../src/core/ssh/config';
/*
 * The managed block against arbitrary bytes. The expectations are computed here, independently of
 * config.ts: a file is read as Latin-1 (one character per byte), its lines are split on LF, a
 * marker is a line equal to the marker once blanks are trimmed, and "the file minus the block" is
 * the file with the begin line through the end line (and its newline) cut out. ssh itself is the
 * judge of where an Include is read, in the second run.
 */

export const INCLUDE = '/home/me/.ssh/gpu-rental/*.conf';
export const OTHER_INCLUDE = '/home/me/other place/*.conf';
export const CASES = 10_000;
/**
 * ssh -G is a process per case: about 18 ms alone and 45 ms a case with the real file writes on
 * this 2-core machine under load, so 10,000 cases would take 3 to 8 minutes. The default is a
 * sample of 1,000 (under a minute); set GPU_RENTAL_SSH_G_CASES for a longer run.
 */
export const SSH_G_CASES = Number(process.env.GPU_RENTAL_SSH_G_CASES ?? 1_000);

export const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

export interface Parsed {
  begins: number[];
  ends: number[];
  lines: Array<{ start: number; end: number; content: string }>;
  bom: boolean;
}

export function parse(bytes: Buffer): Parsed {
  const s = bytes.toString('latin1');
  const bom = s.startsWith('\xef\xbb\xbf');
  const lines: Parsed['lines'] = [];
  const re = /[^\n]*\n|[^\n]+$/g;
  re.lastIndex = bom ? 3 : 0;
  for (let m = re.exec(s); m; m = re.exec(s))
    lines.push({ start: m.index, end: m.index + m[0].length, content: m[0].replace(/\r?\n$/, '') });
  const trim = (t: string): string => t.replace(/^[ \t\r\n\v\f]+|[ \t\r\n\v\f]+$/g, '');
  const begins = lines.flatMap((l, i) => (trim(l.content) === BEGIN_MARKER ? [i] : []));
  const ends = lines.flatMap((l, i) => (trim(l.content) === END_MARKER ? [i] : []));
  return { begins, ends, lines, bom };
}

/** The file without its managed block (the whole file when it has none). */
export function minusBlock(bytes: Buffer): Buffer {
  const p = parse(bytes);
  if (p.begins.length === 0) return bytes;
  return Buffer.concat([bytes.subarray(0, p.lines[p.begins[0]!]!.start), bytes.subarray(p.lines[p.ends[0]!]!.end)]);
}

/** A line that opens a Host or Match section for ssh (the forms the generators below write). */
export const opensSection = (content: string): boolean => /^[ \t\r=]*"?(host|match)"?([ \t\r=]|$)/i.test(content.split('\0')[0]!);

export function bytesChanged(a: Buffer, b: Buffer): number {
  let n = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n;
}

/** Asserts the block is there once, reads `Include pattern`, and has no section line above it. */
export function assertPlaced(bytes: Buffer, pattern: string): void {
  const p = parse(bytes);
  assert.equal(p.begins.length, 1, 'one begin marker');
  assert.equal(p.ends.length, 1, 'one end marker');
  const [b, e] = [p.begins[0]!, p.ends[0]!];
  assert.equal(e, b + 2, 'three lines');
  assert.equal(p.lines[b + 1]!.content.trim(), `Include ${pattern.includes(' ') ? `"${pattern}"` : pattern}`);
  const above = p.lines.slice(0, b).find((l) => opensSection(l.content));
  assert.equal(above, undefined, `no Host or Match line above the block: ${JSON.stringify(above?.content)}`);
  // Nor anything else ssh reads: a global option above would win over the managed entries.
  const directive = p.lines.slice(0, b).find((l) => {
    const text = l.content
      .split('\0')[0]!
      .replace(/^\xEF\xBB\xBF/, '')
      .trim();
    return text !== '' && !text.startsWith('#');
  });
  assert.equal(directive, undefined, `nothing ssh reads above the block: ${JSON.stringify(directive?.content)}`);
}

export const eolArb = fc.constantFrom('\n', '\r\n');
/** A Host or Match header in the forms ssh accepts. */
export const sectionHeader = fc.constantFrom(
  'Host other',
  'Host *',
  'host=other',
  '  HOST other',
  '\tMatch host other',
  'Match all',
  '"Host" other',
  'Host = work',
  'Match originalhost x user y',
);
/** Lines that set nothing ssh would take for our alias ahead of our entry. */
export const harmlessLine = fc.oneof(
  fc.constantFrom(
    '',
    '   ',
    '# a comment',
    '# Host commented out',
    'ServerAliveInterval 60',
    'AddKeysToAgent yes',
    '\tServerAliveCountMax 3',
    'HashKnownHosts no',
  ),
  fc.string({ maxLength: 20 }).map((s) => `# ${s.replace(/[\r\n\0]/g, ' ')}`),
  // A Latin-1 comment: bytes that are not UTF-8.
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map(
    (a) =>
      `# caf\xe9 ${Buffer.from(a)
        .toString('latin1')
        .replace(/[\r\n\0]/g, ' ')}`,
  ),
);
export const bodyLine = fc.constantFrom(
  '  HostName 10.9.9.9',
  '  Port 2',
  '  User dev',
  '  ServerAliveInterval 15',
  '  HostName gpu-rental.example',
  '  IdentityFile ~/.ssh/id_other',
);

export function blockLines(pattern: string, eol: string, indent: string): string {
  return [`${indent}${BEGIN_MARKER}`, `Include ${pattern}`, `${END_MARKER}${indent}`].join(eol);
}

/** Arbitrary bytes mixed with realistic lines, a BOM, mixed line endings, maybe an existing block, maybe stray markers. */
export const anyConfig = fc
  .record({
    bom: fc.boolean(),
    chunks: fc.array(
      fc.tuple(
        fc.oneof(
          { weight: 3, arbitrary: fc.uint8Array({ maxLength: 48 }).map((a) => Buffer.from(a)) },
          { weight: 3, arbitrary: fc.oneof(sectionHeader, harmlessLine, bodyLine).map(latin1) },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom('Host gpu-rental-7 # mine', 'Include config.d/*', 'Hostname x', 'Matches', '\0Host x', 'Host\0x')
              .map(latin1),
          },
        ),
        eolArb,
      ),
      { maxLength: 20 },
    ),
    block: fc.option(
      fc.record({
        at: fc.nat(),
        pattern: fc.constantFrom(INCLUDE, '/old/path/*.conf', '  /home/me/.ssh/gpu-rental/*.conf'),
        eol: eolArb,
        indent: fc.constantFrom('', ' ', '\t'),
        last: fc.boolean(),
      }),
    ),
    stray: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'begin', 'end'),
    finalNewline: fc.boolean(),
  })
  .map(({ bom, chunks, block, stray, finalNewline }) => {
    const parts: Buffer[] = chunks.map(([bytes, eol], i) =>
      i < chunks.length - 1 || finalNewline ? Buffer.concat([bytes, latin1(eol)]) : bytes,
    );
    if (block) {
      const at = block.last ? parts.length : block.at % (parts.length + 1);
      // The block starts a line; at the very end it may lack a final newline.
      if (at > 0 && !parts[at - 1]!.toString('latin1').endsWith('\n')) parts[at - 1] = Buffer.concat([parts[at - 1]!, latin1(block.eol)]);
      parts.splice(at, 0, latin1(blockLines(block.pattern, block.eol, block.indent) + (block.last ? '' : block.eol)));
    }
    if (stray !== 'none') parts.push(latin1(`\n${stray === 'begin' ? BEGIN_MARKER : END_MARKER}\n`));
    return Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...parts]);
  });
