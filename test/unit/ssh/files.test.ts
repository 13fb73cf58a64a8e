import assert from 'node:assert/strict';
import { chmod, link, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, readIfExists, withFileLock, writeFileAtomic, writeFileInPlace } from '../../../src/core/ssh/files';
import { tempDirForSuite } from '../../support';

describe('safe SSH file writes', () => {
  const dir = tempDirForSuite('gpu-rental-ssh-', { each: true });

  it('creates new files 0600 and folders 0700, and keeps the mode of existing ones', async () => {
    await ensurePrivateDir(join(dir(), 'a', 'b'));
    assert.equal((await stat(join(dir(), 'a', 'b'))).mode & 0o777, 0o700);
    await writeFileAtomic(join(dir(), 'new'), 'x');
    assert.equal((await stat(join(dir(), 'new'))).mode & 0o777, 0o600);
    await writeFile(join(dir(), 'config'), 'old');
    await chmod(join(dir(), 'config'), 0o644);
    await writeFileAtomic(join(dir(), 'config'), 'new text');
    assert.equal(await readFile(join(dir(), 'config'), 'utf8'), 'new text');
    assert.equal((await stat(join(dir(), 'config'))).mode & 0o777, 0o644);
    assert.deepEqual((await readdir(dir())).sort(), ['a', 'config', 'new'], 'no temp file left');
    assert.equal(await readIfExists(join(dir(), 'missing')), undefined);
  });

  it('leaves the target untouched and no temp file behind when the write fails', async () => {
    // The rename cannot replace a non-empty folder: the write fails after the temp file was written.
    const target = join(dir(), 'config');
    await ensurePrivateDir(join(target, 'inside'));
    await assert.rejects(writeFileAtomic(target, 'lost'));
    assert.deepEqual(await readdir(dir()), ['config']);
    assert.deepEqual(await readdir(target), ['inside']);
  });

  it('lets one writer in at a time, and takes over a stale lock', async () => {
    const path = join(dir(), 'config');
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        withFileLock(path, async () => {
          order.push(`${name}+`);
          await new Promise((r) => setTimeout(r, 30));
          order.push(`${name}-`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2)
      assert.equal(order[i]!.slice(0, 1), order[i + 1]!.slice(0, 1), `no overlap: ${order.join(' ')}`);
    await writeFile(`${path}.gpu-rental.lock`, '99999');
    const past = new Date(Date.now() - 60_000);
    await import('node:fs/promises').then((fs) => fs.utimes(`${path}.gpu-rental.lock`, past, past));
    assert.equal(await withFileLock(path, async () => 'ran'), 'ran');
  });

  it('reads and writes bytes as they are, never through a text decoding', async () => {
    const path = join(dir(), 'config');
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x23, 0x20, 0xe9, 0x0d, 0x0a, 0xff, 0x00, 0x0a, 0xc3]);
    await writeFile(path, bytes);
    assert.deepEqual(await readIfExists(path), bytes);
    await writeFileAtomic(path, Buffer.concat([bytes, bytes]));
    assert.deepEqual(await readFile(path), Buffer.concat([bytes, bytes]));
  });

  it('rewrites a file in place through its own inode, keeping its hard links, mode, and truncating a shorter content', async () => {
    const path = join(dir(), 'config');
    const other = join(dir(), 'linked');
    await writeFile(path, 'a longer original text\n');
    await chmod(path, 0o640);
    await link(path, other);
    const ino = (await stat(path)).ino;
    await writeFileInPlace(path, Buffer.from('short\xe9', 'latin1'));
    assert.deepEqual(await readFile(other), Buffer.from('short\xe9', 'latin1'));
    await writeFileInPlace(path, Buffer.from('now longer than before, through the same inode\n'));
    assert.equal(await readFile(other, 'utf8'), 'now longer than before, through the same inode\n');
    const after = await stat(path);
    assert.equal(after.ino, ino);
    assert.equal(after.nlink, 2);
    assert.equal(after.mode & 0o777, 0o640);
    assert.deepEqual((await readdir(dir())).sort(), ['config', 'linked']);
    await assert.rejects(writeFileInPlace(join(dir(), 'missing'), Buffer.from('x')), { code: 'ENOENT' });
  });
});
