/**
 * Against the simulator's instance over its real sshd, with rsync and tar hidden from the
 * extension (as on Windows): a folder whose names are non-ASCII, begin with `-` or `:`, or hold
 * spaces goes up and comes back byte for byte with its mtimes, its large file over sftp.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { download, upload, type TransferOptions } from '../../../src/core/transfer/runner';
import { sshdAvailable } from '../../marketplace/sshd';
import { simulatorForSuite, tempDirForSuite } from '../../support';
import { sshInstance, type TestInstance } from './instance';
import { fileTree, incompressible } from '../../support/files';

const NAMES = ['données é.txt', '-lead dash.txt', ':colon.txt', 'a folder/with space.txt', '日本語/名前.bin', '-dir/:x y.txt'];
const LARGE = '-large ünï "q".bin';

const isRoot = process.getuid?.() === 0;

(sshdAvailable() && isRoot ? describe : describe.skip)('transfer with no local rsync or tar, over a real sshd', function () {
  this.timeout(120_000);
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2 });
  const home = tempDirForSuite('gpu-rental-nolocal-');
  let box: TestInstance;
  before(async () => {
    box = await sshInstance(sim.url, home());
  });

  it('uploads and downloads names that are non-ASCII, begin with - or :, or hold spaces: every byte, mtimes kept', async () => {
    const dir = join(home(), 'names');
    const files = [
      ...NAMES.map((n, i) => [n, incompressible(n, 500 + i * 7001)] as const),
      [LARGE, incompressible('large', 2_500_000)] as const,
    ];
    for (const [rel, bytes] of files) {
      await mkdir(join(dir, rel, '..'), { recursive: true });
      await writeFile(join(dir, rel), bytes);
      await utimes(join(dir, rel), new Date(), new Date(Date.UTC(2022, 5, 1, 12, 0, rel.length)));
    }
    const options: TransferOptions = { tools: { rsync: '/nonexistent/rsync', tar: '/nonexistent/tar' }, resumableBytes: 1_000_000 };
    const remoteDir = `${box.remoteTemp}/-up/:ünï`;
    const up = await upload(box.target, { localDir: dir, remoteDir, excludes: [] }, options);
    assert.equal(up.method, 'tar');
    assert.equal(up.filesSent, files.length);
    assert.equal(up.resumedFrom?.get(LARGE), 0, 'the large file went by sftp');
    const mtimes = await box.sh(`cd '${remoteDir}' && stat -c '%Y %n' -- '${NAMES[1]}' '${NAMES[4]}'`);
    assert.equal(
      mtimes,
      `${Date.UTC(2022, 5, 1, 12, 0, NAMES[1]!.length) / 1000} ${NAMES[1]}\n${Date.UTC(2022, 5, 1, 12, 0, NAMES[4]!.length) / 1000} ${NAMES[4]}\n`,
    );

    const into = join(home(), 'down');
    await mkdir(into);
    const down = await download(box.target, { remotePath: remoteDir, localDir: into }, options);
    assert.equal(down.method, 'tar');
    assert.deepEqual(await fileTree(join(into, ':ünï'), { mtimes: true }), await fileTree(dir, { mtimes: true }));
    assert.deepEqual(await readdir(into), [':ünï']);
    assert.equal(down.resumedFrom?.get(LARGE), 0, 'the large file came by sftp');

    const again = await upload(box.target, { localDir: dir, remoteDir, excludes: [] }, options);
    assert.equal(again.filesSent, 0, 'a second upload finds nothing changed');
  });
});
