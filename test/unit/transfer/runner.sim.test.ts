import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { TransferError } from '../../../src/core/transfer/errors';
import type { TransferProgress } from '../../../src/core/transfer/progress';
import { download, listRemote, localRsync, remoteSize, upload } from '../../../src/core/transfer/runner';
import { sshdAvailable } from '../../marketplace/sshd';
import { simulatorForSuite, tempDirForSuite } from '../../support';
import { sshInstance, type TestInstance } from './instance';

/** `size` bytes that do not compress (so --bwlimit slows them), the same on every run. */
function bytesOf(seed: string, size: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < size; i++) blocks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, size);
}

async function fault(promise: Promise<unknown>): Promise<TransferError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TransferError, `a TransferError, not ${String(error)}`);
    return error;
  }
  assert.fail('the transfer succeeded');
}

const isRoot = process.getuid?.() === 0;

(sshdAvailable() && isRoot ? describe : describe.skip)('transfer: upload and download over a real sshd', function () {
  this.timeout(120_000);
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2 });
  const home = tempDirForSuite('gpu-rental-transfer-');
  let box: TestInstance;
  before(async () => {
    box = await sshInstance(sim.url, home());
  });

  /** A project folder: a .gitignore, files it names, files the setting excludes, names with spaces and unicode. */
  async function project(name: string): Promise<string> {
    const dir = join(home(), name);
    await mkdir(join(dir, 'src', 'sub dir'), { recursive: true });
    await mkdir(join(dir, 'node_modules', 'dep'), { recursive: true });
    await mkdir(join(dir, 'logs'), { recursive: true });
    await writeFile(join(dir, '.gitignore'), 'logs/\n*.tmp\n');
    await writeFile(join(dir, 'train.py'), 'print("hello")\n');
    await writeFile(join(dir, 'src', 'sub dir', 'données é.txt'), 'unicode\n');
    await writeFile(join(dir, 'src', '-dash.txt'), 'dash\n');
    await writeFile(join(dir, 'scratch.tmp'), 'ignored by .gitignore\n');
    await writeFile(join(dir, 'logs', 'run.log'), 'ignored by .gitignore\n');
    await writeFile(join(dir, 'node_modules', 'dep', 'index.js'), 'excluded by the setting\n');
    await writeFile(join(dir, 'data.bin'), bytesOf(name, 300_000));
    return dir;
  }
  const EXCLUDES = ['.git/', 'node_modules/', '__pycache__/', '.venv/'];
  const remoteFiles = async (dir: string) =>
    (await box.sh(`cd '${dir}' && find . -type f | sort`))
      .split('\n')
      .filter(Boolean)
      .map((f) => f.slice(2));

  it('uploads only what is kept (excludes and .gitignore), shows progress, and a second upload sends only the changed file', async () => {
    const dir = await project('proj');
    const remoteDir = `${box.remoteTemp}/deep/new folder`;
    const seen: TransferProgress[] = [];
    const first = await upload(box.target, { localDir: dir, remoteDir, excludes: EXCLUDES }, { onProgress: (p) => seen.push(p) });
    assert.equal(first.method, 'rsync');
    assert.deepEqual(await remoteFiles(remoteDir), ['.gitignore', 'data.bin', 'src/-dash.txt', 'src/sub dir/données é.txt', 'train.py']);
    assert.equal(first.filesSent, 5);
    assert.ok(seen.length > 0 && seen.at(-1)!.percent === 100, 'progress reached 100%');

    await writeFile(join(dir, 'train.py'), 'print("changed")\n');
    const second = await upload(box.target, { localDir: dir, remoteDir, excludes: EXCLUDES }, {});
    assert.equal(second.filesSent, 1, 'only the changed file is sent');
    assert.equal(await box.sh(`cat '${remoteDir}/train.py'`), 'print("changed")\n');
  });

  it('downloads a folder under a temporary name and renames it when complete; refuses to overwrite unless asked', async () => {
    await box.sh(
      `mkdir -p '${box.remoteTemp}/out/ep 1' && printf 'w' > '${box.remoteTemp}/out/ep 1/weights' && printf 'log' > '${box.remoteTemp}/out/log.txt'`,
    );
    const into = join(home(), 'downloads');
    await mkdir(into);
    const names: string[][] = [];
    const result = await download(
      box.target,
      { remotePath: `${box.remoteTemp}/out/`, localDir: into },
      // Read at the moment of each report: a read still pending at the end would see the rename.
      { onProgress: () => void names.push(readdirSync(into)) },
    );
    assert.equal(result.localPath, join(into, 'out'));
    assert.equal(await readFile(join(into, 'out', 'ep 1', 'weights'), 'utf8'), 'w');
    assert.deepEqual(await readdir(into), ['out'], 'the temporary folder is gone');
    assert.ok(
      names.every((n) => !n.includes('out')),
      'the final name appears only once complete',
    );

    const again = await fault(download(box.target, { remotePath: `${box.remoteTemp}/out`, localDir: into }));
    assert.equal(again.fault, 'targetExists');
    await box.sh(`printf 'v2' > '${box.remoteTemp}/out/log.txt'`);
    await download(box.target, { remotePath: `${box.remoteTemp}/out`, localDir: into, replace: true });
    assert.equal(await readFile(join(into, 'out', 'log.txt'), 'utf8'), 'v2');
  });

  it('downloads a single file, with rsync and with tar, under its own name', async () => {
    await box.sh(`printf 'ckpt' > '${box.remoteTemp}/-model é.pt'`);
    for (const rsync of ['rsync', '/nonexistent/rsync']) {
      const into = join(home(), `one file ${rsync.length}`);
      await mkdir(into);
      const result = await download(box.target, { remotePath: `${box.remoteTemp}/-model é.pt`, localDir: into }, { tools: { rsync } });
      assert.equal(result.method, rsync === 'rsync' ? 'rsync' : 'tar');
      assert.equal(await readFile(join(into, '-model é.pt'), 'utf8'), 'ckpt');
      assert.deepEqual(await readdir(into), ['-model é.pt']);
    }
  });

  it('lists a remote folder with odd names, and sizes it with du', async () => {
    await box.sh(`cd '${box.remoteTemp}' && mkdir -p 'list/a dir' && cd list && touch -- '-x' 'é ü' "it's" "$(printf 'new\\nline')"`);
    const listing = await listRemote(box.target, `${box.remoteTemp}/list`);
    assert.equal(listing.path, `${box.remoteTemp}/list`);
    assert.deepEqual(
      listing.entries.map((e) => `${e.name}${e.folder ? '/' : ''}`),
      ['a dir/', '-x', 'é ü', "it's"],
    );
    assert.equal(listing.refused, 1, 'the name with a newline is left out');
    assert.ok(((await remoteSize(box.target, `${box.remoteTemp}/list`, 5_000)) ?? 0) > 0);
    assert.equal(await remoteSize(box.target, `${box.remoteTemp}/nothing`, 5_000), undefined);
  });

  it('says a remote path does not exist', async () => {
    const into = join(home(), 'missing');
    await mkdir(into);
    const e = await fault(download(box.target, { remotePath: `${box.remoteTemp}/no such`, localDir: into }));
    assert.equal(e.fault, 'remoteMissing');
    assert.match(e.message, /no such does not exist on the instance/);
    assert.deepEqual(await readdir(into), [], 'nothing was made locally');
    assert.equal((await fault(listRemote(box.target, `${box.remoteTemp}/no such`))).fault, 'remoteMissing');
  });

  it('says the local folder is not writable, leaving nothing there', async () => {
    const ro = join(home(), 'readonly');
    await mkdir(ro);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro]);
    try {
      const e = await fault(download(box.target, { remotePath: box.remoteTemp, localDir: ro }));
      assert.equal(e.fault, 'localNotWritable');
      assert.match(e.message, /cannot be written.*Pick a folder/);
    } finally {
      execFileSync('umount', [ro]);
    }
  });

  it('says the instance disk is full, with how full it is', async () => {
    const full = `${box.remoteTemp}/small disk`;
    await box.sh(`mkdir -p '${full}' && mount -t tmpfs -o size=256k tmpfs '${full}'`);
    try {
      const dir = join(home(), 'big');
      await mkdir(dir);
      await writeFile(join(dir, 'big.bin'), bytesOf('big', 1_000_000));
      const e = await fault(upload(box.target, { localDir: dir, remoteDir: full, excludes: [] }));
      assert.equal(e.fault, 'remoteDiskFull', e.message);
      assert.match(e.message, /disk is full \(\d+(\.\d)? kB of 262 kB used, .* free\).*bigger disk/);
    } finally {
      await box.sh(`umount '${full}'`);
    }
  });

  it('a dropped connection leaves the download partial and says where; Retry resumes and completes it', async () => {
    await box.sh(`mkdir -p '${box.remoteTemp}/drop' && head -c 3000000 /dev/urandom > '${box.remoteTemp}/drop/weights.bin'`);
    const expected = await box.sh(`sha256sum < '${box.remoteTemp}/drop/weights.bin'`);
    const into = join(home(), 'dropped');
    await mkdir(into);
    // ssh that is killed 1 s in, while --bwlimit keeps the transfer going for about 3 s.
    const dying = join(home(), 'dying-ssh');
    await writeFile(dying, '#!/bin/sh\nssh "$@" &\npid=$!\n(sleep 1; kill -9 $pid) &\nwait $pid\n');
    await chmod(dying, 0o755);
    const e = await fault(
      download(
        box.target,
        { remotePath: `${box.remoteTemp}/drop`, localDir: into },
        { tools: { ssh: dying }, extraRsyncArgs: ['--bwlimit=1000'] },
      ),
    );
    assert.equal(e.fault, 'connection');
    assert.match(e.message, /partial.*\.drop\.gpu-rental-partial.*Retry/s);
    assert.equal(e.partialAt, join(into, '.drop.gpu-rental-partial'));
    assert.deepEqual(await readdir(into), ['.drop.gpu-rental-partial'], 'nothing under the final name');
    await download(box.target, { remotePath: `${box.remoteTemp}/drop`, localDir: into });
    const got = createHash('sha256')
      .update(await readFile(join(into, 'drop', 'weights.bin')))
      .digest('hex');
    assert.equal(`${got}  -\n`, expected);
    assert.deepEqual(await readdir(into), ['drop']);
  });

  it('Cancel stops the upload, says it is partial, and a retry completes it', async () => {
    const dir = join(home(), 'cancel');
    await mkdir(dir);
    await writeFile(join(dir, 'a.bin'), bytesOf('cancel', 3_000_000));
    const controller = new AbortController();
    const remoteDir = `${box.remoteTemp}/cancelled`;
    const e = await fault(
      upload(
        box.target,
        { localDir: dir, remoteDir, excludes: [] },
        { signal: controller.signal, extraRsyncArgs: ['--bwlimit=1000'], onProgress: (p) => p.bytes > 0 && controller.abort() },
      ),
    );
    assert.equal(e.fault, 'cancelled');
    assert.match(e.message, /Cancelled: the upload is partial/);
    const result = await upload(box.target, { localDir: dir, remoteDir, excludes: [] });
    assert.equal(result.filesSent, 1);
    assert.equal((await box.sh(`stat -c %s '${remoteDir}/a.bin'`)).trim(), '3000000');
  });

  it('without local rsync: says how to install it and sends what changed with tar, excludes and .gitignore still applied (git repo)', async () => {
    const dir = await project('tarproj');
    execFileSync('git', ['init', '-q', dir]);
    const notices: string[] = [];
    const remoteDir = `${box.remoteTemp}/tar up`;
    const result = await upload(
      box.target,
      { localDir: dir, remoteDir, excludes: EXCLUDES },
      { tools: { rsync: '/nonexistent/rsync' }, platform: 'darwin', onNotice: (n) => notices.push(n) },
    );
    assert.equal(result.method, 'tar');
    assert.match(
      notices[0]!,
      /rsync is not installed on this machine: install it with `brew install rsync`\. Sending what changed with tar/,
    );
    assert.deepEqual(await remoteFiles(remoteDir), ['.gitignore', 'data.bin', 'src/-dash.txt', 'src/sub dir/données é.txt', 'train.py']);

    const into = join(home(), 'tar down');
    await mkdir(into);
    const down = await download(box.target, { remotePath: remoteDir, localDir: into }, { tools: { rsync: '/nonexistent/rsync' } });
    assert.equal(down.method, 'tar');
    assert.equal(await readFile(join(into, 'tar up', 'src', 'sub dir', 'données é.txt'), 'utf8'), 'unicode\n');
    assert.deepEqual(await readdir(into), ['tar up']);
  });

  it('without local rsync and outside git: .gitignore files and the excludes are read by GPU Rental', async () => {
    const dir = await project('plain');
    const remoteDir = `${box.remoteTemp}/plain`;
    await upload(box.target, { localDir: dir, remoteDir, excludes: EXCLUDES }, { tools: { rsync: '/nonexistent/rsync' } });
    assert.deepEqual(await remoteFiles(remoteDir), ['.gitignore', 'data.bin', 'src/-dash.txt', 'src/sub dir/données é.txt', 'train.py']);
  });

  it('an instance without rsync: upload and download fall back to tar and say so', async () => {
    const bare = await sshInstance(sim.url, home(), 'ubuntu-minimal:22.04');
    const dir = await project('bare');
    const notices: string[] = [];
    const remoteDir = `${bare.remoteTemp}/up`;
    const up = await upload(bare.target, { localDir: dir, remoteDir, excludes: EXCLUDES }, { onNotice: (n) => notices.push(n) });
    assert.equal(up.method, 'tar', 'the instance has no rsync');
    assert.deepEqual(notices, ['The instance has no rsync: sending what changed with tar (large files resumable).']);
    assert.equal((await bare.sh(`cat '${remoteDir}/train.py'`)).trim(), 'print("hello")');
    const into = join(home(), 'bare down');
    await mkdir(into);
    const seen: TransferProgress[] = [];
    const down = await download(bare.target, { remotePath: remoteDir, localDir: into }, { onProgress: (p) => seen.push(p) });
    assert.equal(down.method, 'tar');
    assert.equal((await stat(join(into, 'up', 'data.bin'))).size, 300_000);
    assert.equal(seen.at(-1)?.percent, 100);
  });

  it('knows a local rsync too old for an overall percent', async () => {
    const old = join(home(), 'old-rsync');
    await writeFile(old, '#!/bin/sh\necho "rsync  version 2.6.9  protocol version 29"\n');
    await chmod(old, 0o755);
    const r = await localRsync(old, 'linux');
    assert.deepEqual(r, {
      ok: false,
      why: "this machine's rsync (2.6) is older than 3.1: install it with `sudo apt install rsync` (or your distribution's package manager)",
    });
    assert.deepEqual(await localRsync('rsync'), { ok: true });
  });
});

describe('transfer: an instance that does not answer', function () {
  this.timeout(20_000);
  const home = tempDirForSuite('gpu-rental-transfer-silent-');

  it('remoteSize gives up after its timeout, so Destroy is never held up by a silent instance', async () => {
    // Accepts the TCP connection and never says a word: ssh waits for a banner that never comes.
    const held: Socket[] = [];
    const server = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const config = join(home(), 'ssh_config');
    await writeFile(
      config,
      `Host silent\n  HostName 127.0.0.1\n  Port ${port}\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n`,
    );
    try {
      await assert.rejects(
        remoteSize({ instanceId: 1, alias: 'silent', args: ['-F', config] }, '/root', 1_000),
        /did not finish within 1 s/,
      );
    } finally {
      held.forEach((s) => s.destroy());
      server.close();
    }
  });
});
