/**
 * The transfer without rsync or a local tar, as on Windows: Node's tar here, the instance's tar
 * there, large files over sftp. Names that are non-ASCII, begin with `-` or `:`, or hold spaces
 * and quotes arrive byte for byte with their mtimes; a re-upload sends only what changed; an sftp
 * transfer cut mid-file resumes from where it stopped; an archive that reaches out of the
 * destination is refused. The link is test/support/fakeSsh.ts (the instance is a local folder;
 * OpenSSH's sftp-server answers sftp).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readlink, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { SshTarget } from '../../../src/core/ssh/remote';
import { TransferError } from '../../../src/core/transfer/errors';
import { download, upload, type TransferOptions } from '../../../src/core/transfer/runner';
import { fakeSshCommand, SFTP_SERVERS, type FakeSshConfig } from '../../support/fakeSsh';
import { tempDirForSuite } from '../../support';
import { fileTree, incompressible, which } from '../../support/files';

const ALIAS = 'gpu-rental-fake';
const target: SshTarget = { instanceId: 1, alias: ALIAS, args: [] };
const REMOTE_TOOLS = ['sh', 'mkdir', 'tar', 'cat', 'find', 'stat', 'wc', 'cut', 'sha256sum', 'du', 'rm', 'true'];
/** No rsync and no tar on this side: what a Windows machine has. */
const HIDDEN = { rsync: '/nonexistent/rsync', tar: '/nonexistent/tar' };
/** Names a tool could misread: non-ASCII, a leading `-` or `:`, spaces, quotes, glob characters, `@`. */
const NAMES = [
  'données é.bin',
  '-lead dash.txt',
  ':colon start',
  'with space/inner file.txt',
  `quote"s and 'single'`,
  'star*[1]?.txt',
  '@at',
  '日本語/ファイル.txt',
];

/** A large file (over sftp) whose name sftp's batch parser must take literally: quotes, a backslash, glob characters. */
const BIG = `-big "q" back\\slash 'é'*[1].bin`;

const sftpServer = SFTP_SERVERS.find((p) => existsSync(p));
const haveTools = process.platform === 'linux' && !!which('sftp') && !!sftpServer && REMOTE_TOOLS.every((t) => which(t));

(haveTools ? describe : describe.skip)('transfer without rsync or a local tar (Node tar, sftp)', function () {
  this.timeout(120_000);
  const root = tempDirForSuite('gpu-rental-nodetar-');
  let home: string;
  let bin: string;

  before(async () => {
    home = join(root(), 'instance');
    bin = join(root(), 'bin');
    await mkdir(home, { recursive: true });
    await mkdir(bin, { recursive: true });
    for (const tool of REMOTE_TOOLS) await symlink(which(tool)!, join(bin, tool));
  });

  function ssh(name: string, config: Partial<FakeSshConfig> = {}): Promise<string> {
    return fakeSshCommand({ alias: ALIAS, home, path: bin, sftpServer, ...config }, root(), name);
  }

  async function folder(name: string, files: ReadonlyArray<readonly [string, Buffer]>): Promise<string> {
    const dir = join(root(), name);
    for (const [rel, bytes] of files) {
      await mkdir(join(dir, rel, '..'), { recursive: true });
      await writeFile(join(dir, rel), bytes);
      // An mtime in the past, so that keeping it is seen (a fresh write would be "now" anyway).
      await utimes(join(dir, rel), new Date('2021-03-04T05:06:07Z'), new Date(Date.UTC(2021, 2, 4, 5, 6, 7 + rel.length)));
    }
    return dir;
  }

  it('uploads and downloads names that are non-ASCII, begin with - or :, or hold spaces and quotes: every byte, mtimes kept', async () => {
    const dir = await folder('names', [
      ...NAMES.map((n, i) => [n, incompressible(n, 1000 + i * 4099)] as const),
      [BIG, incompressible('big', 300_000)],
    ]);
    const sshCommand = await ssh('ssh-names');
    const options: TransferOptions = { tools: { ...HIDDEN, ssh: sshCommand }, resumableBytes: 200_000 };
    const up = await upload(target, { localDir: dir, remoteDir: '-up/ünï code', excludes: [] }, options);
    assert.equal(up.method, 'tar');
    assert.equal(up.filesSent, NAMES.length + 1);
    assert.equal(up.resumedFrom?.get(BIG), 0, 'the large file went over sftp, whole');
    const expected = await fileTree(dir, { mtimes: true });
    assert.deepEqual(await fileTree(join(home, '-up/ünï code'), { mtimes: true }), expected);

    const into = join(root(), 'names-down');
    await mkdir(into);
    const down = await download(target, { remotePath: '-up/ünï code', localDir: into }, options);
    assert.equal(down.method, 'tar');
    assert.deepEqual(await fileTree(join(into, 'ünï code'), { mtimes: true }), expected);
    assert.equal(down.resumedFrom?.get(BIG), 0, 'the large file came over sftp');
    assert.deepEqual(await readdir(into), ['ünï code'], 'no partial folder left');
  });

  it("packs what the instance's tar reads: long non-ASCII names, modes, empty files, links, files over a MiB", async () => {
    // Over 255 bytes, so the name goes in a pax header; a file of exactly two blocks needs no padding.
    const long = `${'deep/'.repeat(30)}${'ü'.repeat(60)}.txt`;
    const dir = await folder('packed', [
      [long, incompressible('long', 700)],
      ['empty', Buffer.alloc(0)],
      ['run.sh', Buffer.from('#!/bin/sh\necho hi\n')],
      ['big/over-a-mib.bin', incompressible('over', 2_500_001)],
      ['exact', incompressible('exact', 1024)],
    ]);
    await chmod(join(dir, 'run.sh'), 0o755);
    await symlink('big/over-a-mib.bin', join(dir, 'to-big'));
    const options: TransferOptions = { tools: { ...HIDDEN, ssh: await ssh('ssh-packed') } };
    const up = await upload(target, { localDir: dir, remoteDir: 'packed', excludes: [] }, options);
    assert.equal(up.method, 'tar');
    assert.deepEqual(up.resumedFrom?.size ?? 0, 0, 'nothing went over sftp: all of it through tar');
    assert.deepEqual(await fileTree(join(home, 'packed'), { mtimes: true }), await fileTree(dir, { mtimes: true }));
    assert.equal((await lstat(join(home, 'packed/run.sh'))).mode & 0o777, 0o755, 'the executable bit is kept');
    assert.equal((await lstat(join(home, 'packed/empty'))).size, 0);
    assert.equal(await readlink(join(home, 'packed/to-big')), 'big/over-a-mib.bin', 'a link arrives as a link');
  });

  it('a re-upload after one of many files changed sends that one file (size or whole-second mtime, as rsync)', async () => {
    const files = Array.from({ length: 60 }, (_, i) => [`part${i % 6}/f${i}.txt`, incompressible(`q${i}`, 2000)] as const);
    const dir = await folder('quick', files);
    const sshCommand = await ssh('ssh-quick');
    const options: TransferOptions = { tools: { ...HIDDEN, ssh: sshCommand } };
    const first = await upload(target, { localDir: dir, remoteDir: 'quick', excludes: [] }, options);
    assert.equal(first.filesSent, 60);
    const again = await upload(target, { localDir: dir, remoteDir: 'quick', excludes: [] }, options);
    assert.equal(again.filesSent, 0, 'nothing changed, nothing sent');
    await writeFile(join(dir, 'part3/f33.txt'), 'changed\n');
    const third = await upload(target, { localDir: dir, remoteDir: 'quick', excludes: [] }, options);
    assert.equal(third.filesSent, 1);
    assert.deepEqual(await fileTree(join(home, 'quick'), { mtimes: true }), await fileTree(dir, { mtimes: true }));
    // Same size, another mtime: sent too.
    await utimes(join(dir, 'part1/f1.txt'), new Date(), new Date('2020-01-01T00:00:00Z'));
    assert.equal((await upload(target, { localDir: dir, remoteDir: 'quick', excludes: [] }, options)).filesSent, 1);
    assert.deepEqual(await fileTree(join(home, 'quick'), { mtimes: true }), await fileTree(dir, { mtimes: true }));
  });

  for (const direction of ['upload', 'download'] as const) {
    it(`an sftp ${direction} cut mid-file resumes from where it stopped, and the file is checked whole`, async () => {
      const size = 3_000_000;
      const name = `resume-${direction}`;
      const dir = await folder(name, [['ckpt.bin', incompressible(name, size)]]);
      if (direction === 'download')
        await upload(target, { localDir: dir, remoteDir: name, excludes: [] }, { tools: { ...HIDDEN, ssh: await ssh(`${name}-seed`) } });
      const into = join(root(), `${name}-into`);
      await mkdir(into);
      const run = (sshCommand: string) => {
        const options: TransferOptions = { tools: { ...HIDDEN, ssh: sshCommand }, resumableBytes: 1_000_000 };
        return direction === 'upload'
          ? upload(target, { localDir: dir, remoteDir: `${name}-up`, excludes: [] }, options)
          : download(target, { remotePath: name, localDir: into }, options);
      };
      const dropAt = 1_500_000;
      const cut = await run(await ssh(`${name}-drop`, { dropAt })).then(
        () => assert.fail('a dropped transfer cannot complete'),
        (e: unknown) => e,
      );
      assert.ok(cut instanceof TransferError, String(cut));
      assert.equal(cut.fault, 'connection', cut.message);
      const partial =
        direction === 'upload' ? join(home, `${name}-up`, 'ckpt.bin') : join(into, `.${name}.gpu-rental-partial`, name, 'ckpt.bin');
      const stoppedAt = (await lstat(partial)).size;
      assert.ok(stoppedAt > 0 && stoppedAt < size, `part of the file arrived (${stoppedAt})`);
      const done = await run(await ssh(`${name}-whole`));
      const from = done.resumedFrom?.get(direction === 'upload' ? 'ckpt.bin' : 'ckpt.bin');
      assert.ok(from !== undefined && from >= stoppedAt, `resumed from ${from}, at or after ${stoppedAt}`);
      const got = direction === 'upload' ? join(home, `${name}-up`) : join(into, name);
      assert.deepEqual(await fileTree(got, { mtimes: true }), await fileTree(dir, { mtimes: true }));
    });
  }

  it('refuses an archive from the instance that reaches outside the destination (.., absolute paths, links out)', async () => {
    // A hostile instance's tar: whatever it is asked, it sends an archive made to escape.
    const evil = join(root(), 'evil');
    await mkdir(join(evil, 'box'), { recursive: true });
    const made = spawnSync(
      'python3',
      [
        '-c',
        [
          'import tarfile, io, sys',
          't = tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT)',
          'd = tarfile.TarInfo("box"); d.type = tarfile.DIRTYPE; t.addfile(d)',
          'l = tarfile.TarInfo("box/out"); l.type = tarfile.SYMTYPE; l.linkname = "../../../.."; t.addfile(l)',
          'f = tarfile.TarInfo("box/out/escaped.txt"); f.size = 3; t.addfile(f, io.BytesIO(b"bad"))',
          't.close()',
        ].join('\n'),
        join(evil, 'evil.tar'),
      ],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) throw new Error(made.stderr);
    const evilBin = join(root(), 'evil-bin');
    await mkdir(evilBin);
    for (const tool of REMOTE_TOOLS.filter((t) => t !== 'tar')) await symlink(which(tool)!, join(evilBin, tool));
    await writeFile(join(evilBin, 'tar'), `#!/bin/sh\nexec cat '${join(evil, 'evil.tar')}'\n`, { mode: 0o755 });
    await mkdir(join(home, 'box'), { recursive: true });
    const into = join(root(), 'evil-into');
    await mkdir(into);
    const sshCommand = await fakeSshCommand({ alias: ALIAS, home, path: evilBin, sftpServer }, root(), 'ssh-evil');
    const error = await download(target, { remotePath: 'box', localDir: into }, { tools: { ...HIDDEN, ssh: sshCommand } }).then(
      () => assert.fail('a hostile archive cannot complete'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof TransferError, String(error));
    assert.match(error.message, /box\/out.*link that leads outside the destination/);
    assert.ok(!existsSync(join(root(), 'escaped.txt')) && !existsSync(join(into, '..', 'escaped.txt')), 'nothing written outside');
    assert.ok(!existsSync(join(into, 'box')), 'nothing under the final name');
  });
});
