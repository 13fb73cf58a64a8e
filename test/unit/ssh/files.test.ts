import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir, readIfExists, withFileLock, writeFileAtomic } from '../../../src/core/ssh/files';

describe('safe SSH file writes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gpu-rental-ssh-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('creates new files 0600 and folders 0700, and keeps the mode of existing ones', async () => {
    await ensurePrivateDir(join(dir, 'a', 'b'));
    assert.equal((await stat(join(dir, 'a', 'b'))).mode & 0o777, 0o700);
    await writeFileAtomic(join(dir, 'new'), 'x');
    assert.equal((await stat(join(dir, 'new'))).mode & 0o777, 0o600);
    await writeFile(join(dir, 'config'), 'old');
    await chmod(join(dir, 'config'), 0o644);
    await writeFileAtomic(join(dir, 'config'), 'new text');
    assert.equal(await readFile(join(dir, 'config'), 'utf8'), 'new text');
    assert.equal((await stat(join(dir, 'config'))).mode & 0o777, 0o644);
    assert.deepEqual((await readdir(dir)).sort(), ['a', 'config', 'new'], 'no temp file left');
    assert.equal(await readIfExists(join(dir, 'missing')), undefined);
  });

  it('leaves the target untouched and no temp file behind when the write fails', async () => {
    // The rename cannot replace a non-empty folder: the write fails after the temp file was written.
    const target = join(dir, 'config');
    await ensurePrivateDir(join(target, 'inside'));
    await assert.rejects(writeFileAtomic(target, 'lost'));
    assert.deepEqual(await readdir(dir), ['config']);
    assert.deepEqual(await readdir(target), ['inside']);
  });

  it('lets one writer in at a time, and takes over a stale lock', async () => {
    const path = join(dir, 'config');
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
    for (let i = 0; i < order.length; i += 2) assert.equal(order[i]!.slice(0, 1), order[i + 1]!.slice(0, 1), `no overlap: ${order.join(' ')}`);
    await writeFile(`${path}.gpu-rental.lock`, '99999');
    const past = new Date(Date.now() - 60_000);
    await import('node:fs/promises').then((fs) => fs.utimes(`${path}.gpu-rental.lock`, past, past));
    assert.equal(await withFileLock(path, async () => 'ran'), 'ran');
  });
});
