import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { BEGIN_MARKER, END_MARKER, SshConfigError, hostAlias, withInclude, withoutInclude } from '../../../src/core/ssh/config';
import { SshConfigManager, sshPaths } from '../../../src/core/ssh/manager';
import { MemoryLogger } from '../../support';

/*
 * The managed block against arbitrary bytes. The expectations are computed here, independently of
 * config.ts: a file is read as Latin-1 (one character per byte), its lines are split on LF, a
 * marker is a line equal to the marker once blanks are trimmed, and "the file minus the block" is
 * the file with the begin line through the end line (and its newline) cut out. ssh itself is the
 * judge of where an Include is read, in the second run.
 */

const INCLUDE = '/home/me/.ssh/gpu-rental/*.conf';
const OTHER_INCLUDE = '/home/me/other place/*.conf';
const CASES = 10_000;
/**
 * ssh -G is a process per case: about 18 ms alone and 45 ms a case with the real file writes on
 * this 2-core machine under load, so 10,000 cases would take 3 to 8 minutes. The default is a
 * sample of 1,000 (under a minute); set GPU_RENTAL_SSH_G_CASES for a longer run.
 */
const SSH_G_CASES = Number(process.env.GPU_RENTAL_SSH_G_CASES ?? 1_000);

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

interface Parsed {
  begins: number[];
  ends: number[];
  lines: Array<{ start: number; end: number; content: string }>;
  bom: boolean;
}

function parse(bytes: Buffer): Parsed {
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
function minusBlock(bytes: Buffer): Buffer {
  const p = parse(bytes);
  if (p.begins.length === 0) return bytes;
  return Buffer.concat([bytes.subarray(0, p.lines[p.begins[0]!]!.start), bytes.subarray(p.lines[p.ends[0]!]!.end)]);
}

/** A line that opens a Host or Match section for ssh (the forms the generators below write). */
const opensSection = (content: string): boolean => /^[ \t\r=]*"?(host|match)"?([ \t\r=]|$)/i.test(content.split('\0')[0]!);

function bytesChanged(a: Buffer, b: Buffer): number {
  let n = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n;
}

/** Asserts the block is there once, reads `Include pattern`, and has no section line above it. */
function assertPlaced(bytes: Buffer, pattern: string): void {
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

const eolArb = fc.constantFrom('\n', '\r\n');
/** A Host or Match header in the forms ssh accepts. */
const sectionHeader = fc.constantFrom(
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
const harmlessLine = fc.oneof(
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
const bodyLine = fc.constantFrom(
  '  HostName 10.9.9.9',
  '  Port 2',
  '  User dev',
  '  ServerAliveInterval 15',
  '  HostName gpu-rental.example',
  '  IdentityFile ~/.ssh/id_other',
);

function blockLines(pattern: string, eol: string, indent: string): string {
  return [`${indent}${BEGIN_MARKER}`, `Include ${pattern}`, `${END_MARKER}${indent}`].join(eol);
}

/** Arbitrary bytes mixed with realistic lines, a BOM, mixed line endings, maybe an existing block, maybe stray markers. */
const anyConfig = fc
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

describe('managed SSH config block over arbitrary bytes (property, 10,000 cases)', function () {
  this.timeout(120_000);

  it('changes no byte outside the markers and leaves the block once, where ssh reads it', () => {
    const counts = { cases: 0, withBlock: 0, moved: 0, refused: 0, edits: 0, bytesChangedOutside: 0 };
    fc.assert(
      fc.property(anyConfig, (input) => {
        counts.cases++;
        const before = parse(input);
        if (
          before.begins.length > 1 ||
          before.ends.length > 1 ||
          before.begins.length !== before.ends.length ||
          before.ends[0]! < before.begins[0]!
        ) {
          // Unbalanced markers are refused, never guessed at.
          assert.throws(() => withInclude(input, INCLUDE), SshConfigError);
          assert.throws(() => withoutInclude(input), SshConfigError);
          counts.refused++;
          return;
        }
        const original = Buffer.from(input);
        const outside = minusBlock(input);
        const hadBlock = before.begins.length === 1;
        if (hadBlock) counts.withBlock++;

        // Single edit: withoutInclude alone.
        const removedOnly = withoutInclude(input);
        counts.edits++;
        assert.equal(removedOnly.changed, hadBlock);
        assert.deepEqual(removedOnly.text, outside);

        // withInclude, then again (stable), then with another pattern, then withoutInclude.
        const added = withInclude(input, INCLUDE);
        counts.edits++;
        assertPlaced(added.text, INCLUDE);
        counts.bytesChangedOutside += bytesChanged(outside, minusBlock(added.text));
        assert.deepEqual(minusBlock(added.text), outside, 'bytes outside the markers');
        if (!hadBlock) {
          const bom = before.bom ? 3 : 0;
          assert.deepEqual(added.text.subarray(0, bom), input.subarray(0, bom), 'a byte-order mark stays first');
          assert.deepEqual(
            added.text.subarray(parse(added.text).lines[2]!.end),
            input.subarray(bom),
            'a new block goes first, the file after it',
          );
        }
        if (hadBlock && parse(added.text).lines[parse(added.text).begins[0]!]!.start !== before.lines[before.begins[0]!]!.start)
          counts.moved++;
        assert.equal(added.changed, !added.text.equals(input));

        const again = withInclude(added.text, INCLUDE);
        counts.edits++;
        assert.equal(again.changed, false, 'a second connect changes nothing');
        assert.equal(again.text, added.text);

        const repointed = withInclude(added.text, OTHER_INCLUDE);
        counts.edits++;
        assertPlaced(repointed.text, OTHER_INCLUDE);
        counts.bytesChangedOutside += bytesChanged(outside, minusBlock(repointed.text));
        assert.deepEqual(minusBlock(repointed.text), outside);

        const removed = withoutInclude(repointed.text);
        counts.edits++;
        assert.equal(removed.changed, true);
        counts.bytesChangedOutside += bytesChanged(outside, removed.text);
        assert.deepEqual(removed.text, outside, 'removal leaves exactly the bytes outside the markers');
        assert.equal(parse(removed.text).begins.length + parse(removed.text).ends.length, 0);
        assert.deepEqual(input, original, 'the input buffer is never written to');
      }),
      { numRuns: CASES },
    );
    console.log(
      `      config property: ${counts.cases} cases (${counts.withBlock} with a block already, ${counts.moved} of them moved to the top, ${counts.refused} refused for stray markers), ${counts.edits} edits, ${counts.bytesChangedOutside} bytes changed outside the markers`,
    );
    assert.equal(counts.cases, CASES);
    assert.equal(counts.bytesChangedOutside, 0);
    assert.ok(
      counts.withBlock > CASES / 10 && counts.moved > CASES / 50 && counts.refused > CASES / 50,
      'the generator reaches every kind of case',
    );
  });
});

const run = promisify(execFile);

/** A config ssh parses: global lines, Host and Match sections, the block anywhere, mixed line endings, Latin-1 comments. */
const sshConfig = fc
  .record({
    preamble: fc.array(fc.tuple(harmlessLine, eolArb), { maxLength: 4 }),
    sections: fc.array(fc.tuple(sectionHeader, fc.array(bodyLine, { maxLength: 3 }), eolArb), { maxLength: 4 }),
    block: fc.option(fc.record({ at: fc.nat(), pattern: fc.constantFrom('/old/path/*.conf', 'CURRENT'), eol: eolArb })),
    finalNewline: fc.boolean(),
  })
  .map(({ preamble, sections, block, finalNewline }) => {
    const lines: Array<[string, string]> = [
      ...preamble,
      ...sections.flatMap(([header, body, eol]): Array<[string, string]> => [
        [header, eol],
        ...body.map((l): [string, string] => [l, eol]),
      ]),
    ];
    return { lines, block, finalNewline };
  });

describe('managed SSH config block, judged by real ssh -G (property, sampled)', function () {
  // A longer run (GPU_RENTAL_SSH_G_CASES) gets time in proportion; at worst 200 ms a case.
  this.timeout(Math.max(180_000, SSH_G_CASES * 200));
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rental-ssh-g-'));
  });
  after(() => rm(home, { recursive: true, force: true }));

  it(`resolves the managed alias to the managed entry's HostName and Port after every connect (${SSH_G_CASES} cases)`, async () => {
    const paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    const counts = { cases: 0, sshRuns: 0, sshMs: 0, moved: 0, bytesChangedOutside: 0 };
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(
        sshConfig,
        fc.integer({ min: 1, max: 99_999_999 }),
        fc.integer({ min: 1025, max: 65535 }),
        async ({ lines, block, finalNewline }, id, port) => {
          counts.cases++;
          const parts = lines.map(([l, eol], i) => l + (i < lines.length - 1 || finalNewline ? eol : ''));
          if (block) {
            const at = block.at % (parts.length + 1);
            if (at > 0 && !parts[at - 1]!.endsWith('\n')) parts[at - 1] += block.eol;
            parts.splice(at, 0, blockLines(block.pattern === 'CURRENT' ? ssh.includePattern : block.pattern, block.eol, '') + block.eol);
          }
          const original = latin1(parts.join(''));
          await writeFile(paths.userConfig, original);
          const alias = hostAlias(id);
          await ssh.writeHost({ alias, hostName: `10.${id % 200}.${port % 250}.7`, port, identityFile: join(home, '.ssh', 'id_ed25519') });
          const written = await readFile(paths.userConfig);
          assertPlaced(written, ssh.includePattern);
          const was = parse(original);
          if (was.begins.length === 1 && was.lines.slice(0, was.begins[0]).some((l) => opensSection(l.content))) counts.moved++;
          counts.bytesChangedOutside += bytesChanged(minusBlock(original), minusBlock(written));
          assert.deepEqual(minusBlock(written), minusBlock(original));

          const sshStarted = performance.now();
          const { stdout } = await run('ssh', ['-G', '-F', paths.userConfig, alias], { encoding: 'utf8' });
          counts.sshMs += performance.now() - sshStarted;
          counts.sshRuns++;
          const resolved = Object.fromEntries(stdout.split('\n').map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));
          assert.equal(resolved.hostname, `10.${id % 200}.${port % 250}.7`, `ssh -G ${alias}:\n${written.toString('latin1')}`);
          assert.equal(resolved.port, String(port));

          await ssh.removeHost(alias);
          await ssh.removeInclude();
          assert.deepEqual(await readFile(paths.userConfig), minusBlock(original), 'byte-identical to the original without its block');
        },
      ),
      { numRuns: SSH_G_CASES },
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `      ssh -G property: ${counts.cases} cases, ${counts.sshRuns} ssh -G runs (${counts.moved} blocks moved out of a section), ${counts.bytesChangedOutside} bytes changed outside the markers, ${seconds.toFixed(1)} s (${((seconds * 1000) / Math.max(1, counts.cases)).toFixed(1)} ms a case, of which ssh -G ${(counts.sshMs / Math.max(1, counts.sshRuns)).toFixed(1)} ms)`,
    );
    assert.equal(counts.sshRuns, SSH_G_CASES);
    assert.equal(counts.bytesChangedOutside, 0);
  });
});
