import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { hostAlias } from '../../../src/core/ssh/config';
import { SshConfigManager, sshPaths } from '../../../src/core/ssh/manager';
import { MemoryLogger } from '../../support';
import {
  SSH_G_CASES,
  latin1,
  parse,
  minusBlock,
  opensSection,
  bytesChanged,
  assertPlaced,
  eolArb,
  sectionHeader,
  harmlessLine,
  bodyLine,
  blockLines,
} from './configArbs';

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
