// The files an upload sends, as one list (fileList.ts): what tar packs and what Run on Cluster's
// other nodes copy from rank 0. Read as rsync reads the excludes and each folder's .gitignore (tar's
// git list in full is covered by runner.test.ts; here git and rsync are run only to check that the
// three readings agree).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rsyncUploadArgv } from '../../../src/core/transfer/argv';
import { uploadFileList } from '../../../src/core/transfer/fileList';

/** Whether `tool --version` runs here. */
function has(tool: string): boolean {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The files (not folders) under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

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

describe("transfer: GitHub's Python .gitignore (*.py[cod]) read alike by every path", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rental-file-list-pyc-'));
    for (const [path, text] of [
      ['.gitignore', '__pycache__/\n*.py[cod]\n'],
      ['train.py', ''],
      ['a.pyc', ''],
      ['b.pyo', ''],
      ['c.pyd', ''],
      ['pkg/d.py', ''],
      ['pkg/e.pyc', ''],
      ['pkg/__pycache__/d.cpython-312.pyc', ''],
      ['pkg/.gitignore', '/local[0-9].txt\n'],
      ['pkg/local1.txt', ''],
      ['pkg/localx.txt', ''],
    ] as const) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const kept = ['.gitignore', 'pkg/.gitignore', 'pkg/d.py', 'pkg/localx.txt', 'train.py'];

  it('outside git (tar and the cluster fanout list) leaves out a.pyc, b.pyo, c.pyd and keeps d.py', async () => {
    const listed = await uploadFileList(dir, [], 'tar');
    assert.deepEqual(listed, ['.gitignore', 'pkg', 'pkg/.gitignore', 'pkg/d.py', 'pkg/localx.txt', 'train.py']);
    assert.deepEqual(await uploadFileList(dir, [], 'rsync'), listed);
  });

  it('in a git work tree, git lists the same files', async function () {
    if (!has('git')) this.skip();
    execFileSync('git', ['init', '-q', dir]);
    assert.deepEqual((await uploadFileList(dir, [], 'tar')).sort(), kept);
  });

  it("rsync's own reading (the upload's --exclude and :- .gitignore) sends the same files", async function () {
    if (!has('rsync')) this.skip();
    const into = mkdtempSync(join(tmpdir(), 'gpu-rental-file-list-rsync-'));
    try {
      const spec = { localDir: dir, remoteDir: '/x', excludes: [] };
      const filters = rsyncUploadArgv({ instanceId: 1, alias: 'a', args: [] }, spec).filter((a) => /^--(exclude|filter)=/.test(a));
      execFileSync('rsync', ['-a', ...filters, '--', `${dir}/`, `${into}/`]);
      assert.deepEqual(filesUnder(into), kept);
    } finally {
      rmSync(into, { recursive: true, force: true });
    }
  });
});
