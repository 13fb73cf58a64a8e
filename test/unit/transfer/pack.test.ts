/**
 * The tar path's packer (nodeTar.ts) against its own unpacker, on this machine's disk: what a
 * listing names arrives with its bytes, mode, mtime and link target, whatever the name's length or
 * script; and a file that got shorter after it was listed stops the archive, naming it.
 */
import assert from 'node:assert/strict';
import { chmod, lstat, mkdir, readFile, readlink, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { packInto, unpackSink } from '../../../src/core/transfer/nodeTar';
import { localEntries } from '../../../src/core/transfer/quickCheck';
import { tempDirForSuite } from '../../support';
import { incompressible } from '../../support/files';

describe('transfer without rsync: the packer', () => {
  const root = tempDirForSuite('gpu-rental-pack-');
  const MTIME = new Date('2022-05-06T07:08:09Z');

  it('packs files, folders, links, modes and mtimes that its unpacker restores, long non-ASCII names too', async () => {
    const from = join(root(), 'from');
    const long = `${'sub/'.repeat(40)}${'名'.repeat(50)}.bin`;
    const files: Array<[string, Buffer]> = [
      ['a.txt', Buffer.from('a\n')],
      ['empty', Buffer.alloc(0)],
      ['exact', incompressible('exact', 512)],
      ['bin/run', Buffer.from('#!/bin/sh\n')],
      ['big.bin', incompressible('big', 3 * 1024 * 1024 + 7)],
      [long, incompressible('long', 9_000)],
    ];
    for (const [rel, bytes] of files) {
      await mkdir(join(from, rel, '..'), { recursive: true });
      await writeFile(join(from, rel), bytes);
      await utimes(join(from, rel), MTIME, MTIME);
    }
    await chmod(join(from, 'bin/run'), 0o750);
    await symlink('../a.txt', join(from, 'bin/link'));
    const names = ['a.txt', 'empty', 'exact', 'bin', 'bin/run', 'bin/link', 'big.bin', long];
    const entries = await localEntries(from, names);
    assert.equal(entries.length, names.length);

    const into = join(root(), 'into');
    await mkdir(into);
    const { sink, refused } = unpackSink(into);
    const archive = new PassThrough();
    const done = pipeline(archive, sink);
    packInto(from, entries, archive);
    await done;
    assert.equal(refused(), undefined);
    for (const [rel, bytes] of files) {
      assert.ok((await readFile(join(into, rel))).equals(bytes), rel);
      assert.equal((await lstat(join(into, rel))).mtimeMs, MTIME.getTime(), `${rel}: mtime`);
    }
    assert.equal((await lstat(join(into, 'bin/run'))).mode & 0o777, 0o750, 'the mode, as a portable archive keeps it');
    assert.equal(await readlink(join(into, 'bin/link')), '../a.txt');
  });

  it('stops with an error naming a file that got shorter after it was listed', async () => {
    const from = join(root(), 'shrink');
    await mkdir(from);
    await writeFile(join(from, 'grows.log'), incompressible('g', 4_000));
    const [entry] = await localEntries(from, ['grows.log']);
    await writeFile(join(from, 'grows.log'), 'short now');
    let failed: Error | undefined;
    const sink = new Writable({ write: (_chunk, _encoding, next) => next() });
    const ended = new Promise<void>((resolve) => sink.once('close', resolve));
    sink.once('error', (error) => (failed = error));
    packInto(from, [entry!], sink);
    await ended;
    assert.match(String(failed?.message), /grows\.log got shorter while it was being sent/);
  });
});
