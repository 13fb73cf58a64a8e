// The files an upload sends, as one list (fileList.ts): what tar packs and what Run on Cluster's
// other nodes copy from rank 0. Read as rsync reads the excludes and each folder's .gitignore; no
// process is started (tar's git list is covered by runner.test.ts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uploadFileList } from '../../../src/core/transfer/fileList';

describe('transfer: the files an upload sends', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rental-file-list-'));
    for (const [path, text] of [
      ['train.py', ''],
      ['.gitignore', '*.log\n/build/\n'],
      ['run.log', ''],
      ['build/out.bin', ''],
      ['sub/.gitignore', 'local.txt\n'],
      ['sub/local.txt', ''],
      ['sub/keep.txt', ''],
      ['sub/build/kept.bin', ''],
      ['node_modules/x.js', ''],
      ['.git/HEAD', ''],
    ] as const) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every kept file and folder, folders first, minus the excludes and what each .gitignore names', async () => {
    assert.deepEqual(await uploadFileList(dir, ['.git/', ' node_modules/ ', ''], 'rsync'), [
      '.gitignore',
      'sub',
      'sub/.gitignore',
      'sub/build',
      'sub/build/kept.bin',
      'sub/keep.txt',
      'train.py',
    ]);
  });

  it('without excludes, .git and node_modules are sent as rsync would send them', async () => {
    const files = await uploadFileList(dir, [], 'rsync');
    assert.ok(files.includes('.git/HEAD') && files.includes('node_modules/x.js'));
    assert.ok(!files.includes('run.log') && !files.includes('build'));
  });
});
