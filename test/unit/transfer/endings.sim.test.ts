/**
 * Every transfer ends: every engine (rsync; Node's tar into the instance's; Node's tar with the
 * large files over sftp, resumable), both directions, with
 * data that does not compress (so nothing fits in a pipe buffer), a link that drops at a random
 * byte and a Cancel at a random moment. Real rsync, tar, gzip and sh run on both sides; the link
 * is test/support/fakeSsh.ts, which runs the "remote" command in a folder that plays the instance.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import type { SshTarget } from '../../../src/core/ssh/remote';
import { TransferError } from '../../../src/core/transfer/errors';
import { skipToMark, MissingStreamMark, STREAM_MARK } from '../../../src/core/transfer/pipe';
import { download, upload, type TransferOptions } from '../../../src/core/transfer/runner';
import { fakeSshCommand, SFTP_SERVERS, type FakeSshConfig } from '../../support/fakeSsh';
import { tempDirForSuite } from '../../support';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTree, incompressible, which } from '../../support/files';

const ALIAS = 'gpu-rental-fake';
const target: SshTarget = { instanceId: 1, alias: ALIAS, args: [] };
/** How long after a drop or a Cancel a transfer may take to end. */
const END_WITHIN_MS = 10_000;
const RUNS = Number(process.env['GPU_RENTAL_TRANSFER_RUNS'] ?? 240);

/** Tools the "instance" has: links in a folder that is its whole $PATH. */
const REMOTE_TOOLS = [
  'sh',
  'mkdir',
  'tar',
  'gzip',
  'rsync',
  'du',
  'cut',
  'cat',
  'ls',
  'df',
  'stat',
  'find',
  'head',
  'sed',
  'true',
  'wc',
  'sha256sum',
  'rm',
];
/** Files from this size go over sftp on the sftp engine: weights.bin and the shard. */
const SFTP_FROM = 300_000;
const sftpServer = SFTP_SERVERS.find((p) => existsSync(p));

/** Processes whose command line names `marker` (what a transfer of this run left running). */
function processesNaming(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const cwd = (() => {
        try {
          return readlinkSync(`/proc/${pid}/cwd`);
        } catch {
          return '';
        }
      })();
      if (cmdline.includes(marker) || cwd.includes(marker)) found.push(`${pid}: ${cmdline.trim()}`);
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

async function until(test: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

const haveTools = REMOTE_TOOLS.every((t) => which(t)) && process.platform === 'linux' && !!sftpServer && !!which('sftp');

(haveTools ? describe : describe.skip)('transfer: every upload and download ends (drops, Cancel, stalls, banners)', function () {
  this.timeout(30 * 60_000);
  const root = tempDirForSuite('gpu-rental-endings-');
  let dataset: string;
  let expected: string[];
  let binFull: string;
  let binNoGzip: string;
  let home: string;

  before(async () => {
    home = join(root(), 'instance');
    dataset = join(root(), 'dataset');
    binFull = join(root(), 'bin-full');
    binNoGzip = join(root(), 'bin-nogzip');
    for (const d of [home, binFull, binNoGzip, join(dataset, 'sub dir')]) await mkdir(d, { recursive: true });
    for (const tool of REMOTE_TOOLS) {
      await symlink(which(tool)!, join(binFull, tool));
      if (tool !== 'gzip') await symlink(which(tool)!, join(binNoGzip, tool));
    }
    // 1.3 MB that does not compress: far more than the pipes between the processes hold.
    await writeFile(join(dataset, 'weights.bin'), incompressible('weights', 900_000));
    await writeFile(join(dataset, 'sub dir', 'shard é.bin'), incompressible('shard', 350_000));
    await writeFile(join(dataset, 'notes.txt'), 'small\n');
    await writeFile(join(dataset, '-lead dash.txt'), 'a name tar must not read as an option\n');
    expected = await fileTree(dataset);
    // The instance holds the same folder, for downloads.
    await mkdir(join(home, 'data', 'sub dir'), { recursive: true });
    for (const f of ['weights.bin', 'sub dir/shard é.bin', 'notes.txt', '-lead dash.txt'])
      await writeFile(join(home, 'data', f), await readFile(join(dataset, f)));
  });

  async function ssh(name: string, config: Partial<FakeSshConfig> & { gzip?: boolean }): Promise<string> {
    const { gzip = true, ...rest } = config;
    return fakeSshCommand({ alias: ALIAS, home, path: gzip ? binFull : binNoGzip, sftpServer, ...rest }, root(), name);
  }

  type Engine = 'rsync' | 'tar' | 'sftp';
  /** rsync; or, with neither rsync nor tar on this machine (Windows), Node's tar, and sftp for the large files on `sftp`. */
  function engineOptions(engine: Engine, sshCommand: string): TransferOptions {
    if (engine === 'rsync') return { tools: { ssh: sshCommand } };
    const tools = { ssh: sshCommand, rsync: '/nonexistent/rsync', tar: '/nonexistent/tar' };
    return engine === 'sftp' ? { tools, resumableBytes: SFTP_FROM } : { tools, resumableBytes: 1e12 };
  }
  function tools(engine: Engine, sshCommand: string): TransferOptions['tools'] {
    return engineOptions(engine, sshCommand).tools;
  }

  it(`ends within 10 s of a drop at a random byte or a Cancel at a random moment, never calling a partial copy complete (${RUNS} runs)`, async () => {
    const counts = { runs: 0, completed: 0, dropped: 0, cancelled: 0, byCase: new Map<string, number>() };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Engine>('rsync', 'tar', 'sftp'),
        fc.constantFrom('upload' as const, 'download' as const),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 1_500_000 }), { freq: 4 }),
        fc.option(fc.integer({ min: 0, max: 1_200 }), { freq: 3 }),
        async (engine, direction, gzip, dropAt, cancelAfter) => {
          const run = ++counts.runs;
          const key = `${direction} ${engine}${engine !== 'rsync' && gzip ? ' (instance with gzip)' : ''}`;
          counts.byCase.set(key, (counts.byCase.get(key) ?? 0) + 1);
          const dropFile = join(root(), `dropped-${run}`);
          const sshCommand = await ssh(`ssh-${run}`, { gzip, ...(dropAt !== null ? { dropAt, dropFile } : {}) });
          const controller = new AbortController();
          let cancelledAt: number | undefined;
          const timer =
            cancelAfter === null
              ? undefined
              : setTimeout(() => {
                  cancelledAt = Date.now();
                  controller.abort();
                }, cancelAfter);
          const into = join(root(), `into-${run}`);
          const remoteDir = `run-${run}/up`;
          if (direction === 'download') await mkdir(into);
          const options: TransferOptions = { signal: controller.signal, ...engineOptions(engine, sshCommand) };
          let settled = false;
          const op = (
            direction === 'upload'
              ? upload(target, { localDir: dataset, remoteDir, excludes: [] }, options)
              : download(target, { remotePath: 'data', localDir: into }, options)
          ).then(
            (value) => ({ ok: true as const, value }),
            (error: unknown) => ({ ok: false as const, error }),
          );
          void op.finally(() => (settled = true));
          // The run must end within 10 s of whichever came first, the drop or the Cancel.
          const droppedAt = () => (existsSync(dropFile) ? Number(readFileSync(dropFile, 'utf8')) : undefined);
          const ended = await until(() => {
            if (settled) return true;
            const since = [droppedAt(), cancelledAt].filter((t): t is number => t !== undefined);
            return since.length > 0 && Date.now() - Math.min(...since) > END_WITHIN_MS;
          }, 120_000);
          clearTimeout(timer);
          const what = `run ${run}: ${key}, drop at ${dropAt ?? 'never'}, cancel after ${cancelAfter ?? 'never'} ms`;
          const running = () => [...processesNaming(`ssh-${run}.json`), ...processesNaming(into), ...processesNaming(`run-${run}/`)];
          assert.ok(
            ended && settled,
            `${what}: still running ${END_WITHIN_MS / 1000} s after the drop or the Cancel:\n${running().join('\n')}`,
          );
          const outcome = await op;
          const wasDropped = droppedAt() !== undefined;
          if (outcome.ok) {
            counts.completed++;
            const got = direction === 'upload' ? await fileTree(join(home, remoteDir)) : await fileTree(join(into, 'data'));
            assert.deepEqual(got, expected, `${what}: said complete, so every byte must be there`);
            if (direction === 'download') assert.deepEqual(await readdir(into), ['data'], `${what}: no partial folder left`);
          } else {
            const e = outcome.error;
            assert.ok(e instanceof TransferError, `${what}: a TransferError, not ${String(e)}`);
            if (e.fault === 'cancelled') {
              counts.cancelled++;
              assert.ok(cancelledAt !== undefined, `${what}: "cancelled" without a Cancel`);
              assert.match(e.message, /^Cancelled(: the (upload|download) is partial| before anything was sent)/);
            } else {
              counts.dropped++;
              assert.ok(wasDropped, `${what}: failed without a drop or a Cancel: ${e.message}`);
              assert.equal(e.fault, 'connection', `${what}: ${e.message}`);
              assert.match(e.message, /connection|cut short|did not answer over ssh/i, `${what}: names the connection`);
            }
            assert.match(
              e.message,
              /partial|What arrived so far|before anything was sent|did not answer/,
              `${what}: says what became of the copy`,
            );
            if (direction === 'download') {
              assert.ok(!existsSync(join(into, 'data')), `${what}: nothing under the final name`);
            }
          }
          if (!wasDropped && cancelledAt === undefined) assert.ok(outcome.ok, `${what}: nothing broke, so it must complete`);
          // Every process the transfer started has ended: local tar, rsync, the link and the remote side.
          assert.ok(await until(() => running().length === 0, 5_000), `${what}: processes left running:\n${running().join('\n')}`);
        },
      ),
      {
        numRuns: RUNS,
        seed: 2611,
        endOnFailure: true,
        ...(process.env['GPU_RENTAL_TRANSFER_PATH'] ? { path: process.env['GPU_RENTAL_TRANSFER_PATH'] } : {}),
      },
    );
    console.log(
      `      ${counts.runs} runs: ${counts.completed} completed, ${counts.dropped} dropped, ${counts.cancelled} cancelled; ${[
        ...counts.byCase,
      ]
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    assert.ok(counts.completed > 0 && counts.dropped > 0 && counts.cancelled > 0, 'the runs cover completion, drops and Cancel');
  });

  for (const gzip of [true, false]) {
    it(`a download over tar${gzip ? ' with gzip' : ''} skips a banner the remote shell prints first`, async () => {
      const sshCommand = await ssh(`ssh-banner-${gzip}`, { gzip, banner: 'Welcome to the box!\nLast login: yesterday\n' });
      const into = join(root(), `banner-${gzip}`);
      await mkdir(into);
      const result = await download(target, { remotePath: 'data', localDir: into }, { tools: tools('tar', sshCommand) });
      assert.equal(result.method, 'tar');
      assert.deepEqual(await fileTree(join(into, 'data')), expected);
    });
  }

  for (const [engine, direction] of [
    ['tar', 'upload'],
    ['tar', 'download'],
    ['rsync', 'upload'],
    ['rsync', 'download'],
    ['sftp', 'upload'],
    ['sftp', 'download'],
  ] as const) {
    it(`a ${engine} ${direction} through a link that stalls (nothing moves, nothing drops) is stopped and said to have stalled`, async () => {
      const sshCommand = await ssh(`ssh-stall-${engine}-${direction}`, { stallAt: 200_000 });
      const into = join(root(), `stall-${engine}-${direction}`);
      await mkdir(into);
      const options: TransferOptions = { ...engineOptions(engine, sshCommand), stallMs: 1_500 };
      const error = await (
        direction === 'upload'
          ? upload(target, { localDir: dataset, remoteDir: `stall-${engine}`, excludes: [] }, options)
          : download(target, { remotePath: 'data', localDir: into }, options)
      ).then(
        () => assert.fail('a stalled transfer cannot complete'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof TransferError, String(error));
      assert.equal(error.fault, 'connection', error.message);
      assert.match(error.message, /for 2 s: the connection stalled, so the (upload|download) was stopped/);
      assert.ok(!existsSync(join(into, 'data')), 'nothing under the final name');
    });
  }

  it('uploads to and downloads from a remote path that starts with ":" (rsync would read alias::path as a daemon)', async () => {
    const sshCommand = await ssh('ssh-colon', {});
    const result = await upload(target, { localDir: dataset, remoteDir: ':colon', excludes: [] }, { tools: tools('rsync', sshCommand) });
    assert.equal(result.method, 'rsync');
    assert.deepEqual(await fileTree(join(home, ':colon')), expected);
    const into = join(root(), 'colon-down');
    await mkdir(into);
    await download(target, { remotePath: ':colon', localDir: into }, { tools: tools('rsync', sshCommand) });
    assert.deepEqual(await fileTree(join(into, ':colon')), expected);
    assert.ok((await stat(join(into, ':colon'))).isDirectory());
  });
});

describe('transfer: the stream marker', () => {
  async function through(chunks: string[]): Promise<string> {
    let out = '';
    await pipeline(
      Readable.from(chunks.map((c) => Buffer.from(c))),
      skipToMark(),
      new Writable({
        write(chunk: Buffer, _e, done) {
          out += chunk.toString();
          done();
        },
      }),
    );
    return out;
  }

  it('drops what comes before the marker line, even split across chunks, and passes the rest untouched', async () => {
    assert.equal(await through([`${STREAM_MARK}\ndata`]), 'data');
    assert.equal(await through(['motd line\nGPU-REN', `TAL-DATA-8d1f2c\nda`, 'ta\n']), 'data\n');
    assert.equal(await through([`x${STREAM_MARK}\n`, `${STREAM_MARK}\nd`]), 'd', 'only a whole line counts');
  });

  it('fails, naming what the shell printed, when the marker never comes', async () => {
    await assert.rejects(through(['bash: tar: command not found\n']), (e: unknown) => {
      assert.ok(e instanceof MissingStreamMark);
      assert.match(e.message, /tar: command not found/);
      return true;
    });
  });
});
