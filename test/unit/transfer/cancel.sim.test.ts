// Cancel on Upload Folder and Download from Instance, pressed through the one Progress port once
// the first progress line shows: the flow ends, rsync and ssh are ended, and the user is told the
// copy is partial, with Retry, never that it completed. Real rsync on both sides over
// test/support/fakeSsh.ts, slowed so the Cancel lands mid-way.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Instance } from '../../../src/core/api/instances';
import type { SshTarget } from '../../../src/core/ssh/remote';
import { downloadFlow, type DownloadFlowDeps } from '../../../src/core/transfer/download';
import { download, upload } from '../../../src/core/transfer/runner';
import { uploadFlow, type UploadFlowDeps } from '../../../src/core/transfer/upload';
import { eventually, MemoryLogger, tempDirForSuite } from '../../support';
import { fakeSshCommand } from '../../support/fakeSsh';
import { processesNaming } from '../../support/processes';
import { scriptedAsk } from '../../support/scriptedAsk';
import { scriptedProgress } from '../../support/scriptedProgress';

const ALIAS = 'gpu-rental-cancel';
const target: SshTarget = { instanceId: 7, alias: ALIAS, args: [] };
const box = { id: 7, label: 'train', actual_status: 'running', intended_status: 'running', num_gpus: 1, gpu_name: 'RTX 4090' } as Instance;
/** Tools the "instance" has: links in a folder that is its whole $PATH. */
const REMOTE_TOOLS = ['sh', 'mkdir', 'rsync', 'du', 'cat', 'ls', 'df', 'stat', 'true'];
/** rsync held to 200 KiB/s: 1.5 MB takes seconds, so the first progress line comes long before the end. */
const SLOW = ['--bwlimit=200'];

function which(tool: string): string | undefined {
  for (const dir of ['/usr/local/bin', '/usr/bin', '/bin']) if (existsSync(join(dir, tool))) return join(dir, tool);
  return undefined;
}

/** `size` bytes that do not compress. */
function bytesOf(seed: string, size: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < size; i++) blocks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, size);
}

const haveTools = process.platform === 'linux' && REMOTE_TOOLS.every((t) => which(t));

(haveTools ? describe : describe.skip)('transfer: Cancel on Upload and Download, through the progress (rsync)', function () {
  this.timeout(60_000);
  const root = tempDirForSuite('gpu-rental-transfer-cancel-');
  let home: string;
  let dataset: string;
  let sshCommand: string;

  before(async () => {
    home = join(root(), 'instance');
    dataset = join(root(), 'dataset');
    const bin = join(root(), 'bin');
    for (const d of [home, bin, dataset, join(home, 'data')]) await mkdir(d, { recursive: true });
    for (const tool of REMOTE_TOOLS) await symlink(which(tool)!, join(bin, tool));
    for (const name of ['a.bin', 'b.bin', 'c.bin']) {
      await writeFile(join(dataset, name), bytesOf(name, 500_000));
      await writeFile(join(home, 'data', name), bytesOf(name, 500_000));
    }
    sshCommand = await fakeSshCommand({ alias: ALIAS, home, path: bin }, root(), 'ssh-cancel');
  });

  /** What is still running of this suite's transfers: the fake ssh (by its config), rsync in the instance's folder. */
  const running = () => [...processesNaming('ssh-cancel.json'), ...processesNaming(home)];

  it('Upload: Cancel ends rsync and ssh, and says the upload is partial, with Retry', async () => {
    const progress = scriptedProgress({ message: /%/ });
    const d: UploadFlowDeps = {
      ask: scriptedAsk([]),
      logger: new MemoryLogger(),
      pickLocalFolder: () => Promise.reject(new Error('the folder is given')),
      sshTarget: () => Promise.resolve(target),
      progress,
      transferFolder: '/root',
      excludes: [],
      upload: (t, spec, options) => upload(t, spec, { ...options, tools: { ssh: sshCommand }, extraRsyncArgs: SLOW }),
    };
    const outcome = await uploadFlow(d, box, { localDir: dataset, remoteDir: 'up' });
    assert.ok(progress.cancelled(), 'the scripted user pressed Cancel');
    assert.equal(progress.shown.length, 1);
    const [shown] = progress.shown;
    assert.equal(shown!.title, 'uploading dataset to "train" (RTX 4090, #7)');
    assert.match(shown!.updates[0]!.message ?? '', /^\d+% · .+ of .+/, 'percent, bytes and their total');
    assert.equal(typeof shown!.updates[0]!.increment, 'number');
    assert.equal(shown!.ended, 'rejected');
    await eventually(() => running().length === 0, 'rsync and ssh of this transfer to end');
    assert.equal(outcome?.kind, 'failed');
    if (outcome?.kind !== 'failed') return;
    assert.equal(outcome.notice.severity, 'warning');
    assert.match(outcome.notice.text, /^GPU Rental: Cancelled: the upload is partial/);
    assert.match(outcome.notice.text, /up on the instance \(upload again to finish/);
    assert.deepEqual(outcome.notice.actions, ['retry']);
  });

  it('Download: Cancel ends rsync and ssh, keeps only the partial folder (never the finished name), and says so, with Retry', async () => {
    const into = join(root(), 'into');
    await mkdir(into);
    const progress = scriptedProgress({ message: /%/ });
    const ask = scriptedAsk([]);
    const d: DownloadFlowDeps = {
      ask,
      logger: new MemoryLogger(),
      sshTarget: () => Promise.resolve(target),
      progress,
      pickDownloadFolder: () => Promise.reject(new Error('the folder is given')),
      pickRemote: () => Promise.reject(new Error('the path is given')),
      notify: () => assert.fail('nothing is notified during a download'),
      transferFolder: '/root',
      download: (t, spec, options) => download(t, spec, { ...options, tools: { ssh: sshCommand }, extraRsyncArgs: SLOW }),
    };
    const outcome = await downloadFlow(d, box, { remotePath: 'data', localDir: into });
    assert.ok(progress.cancelled(), 'the scripted user pressed Cancel');
    assert.deepEqual(
      progress.shown.map((p) => [p.title, p.ended]),
      [['downloading data from "train" (RTX 4090, #7)', 'rejected']],
    );
    await eventually(() => running().length === 0, 'rsync and ssh of this transfer to end');
    assert.deepEqual(await readdir(into), ['.data.gpu-rental-partial'], 'the finished name never appears');
    assert.deepEqual(ask.asked, [], 'nothing asked after the Cancel');
    assert.equal(outcome?.kind, 'failed');
    if (outcome?.kind !== 'failed') return;
    assert.equal(outcome.notice.severity, 'warning');
    assert.match(outcome.notice.text, /^GPU Rental: Cancelled: the download is partial/);
    assert.ok(outcome.notice.text.includes(join(into, '.data.gpu-rental-partial')), outcome.notice.text);
    assert.deepEqual(outcome.notice.actions, ['retry']);
  });
});
