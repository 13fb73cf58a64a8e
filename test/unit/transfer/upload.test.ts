import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import type { SshTarget } from '../../../src/core/ssh/remote';
import { TransferError } from '../../../src/core/transfer/errors';
import { notRunning } from '../../../src/core/transfer/notices';
import type { UploadResult } from '../../../src/core/transfer/runner';
import { uploadFlow, type UploadFlowDeps } from '../../../src/core/transfer/upload';
import { MemoryLogger } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { scriptedProgress } from '../../support/scriptedProgress';

const box = { id: 7, label: 'train', actual_status: 'running', intended_status: 'running', num_gpus: 1, gpu_name: 'RTX 4090' } as Instance;
const target: SshTarget = { instanceId: 7, alias: 'gpu-rental-7', args: [] };

type UploadCall = { localDir: string; remoteDir: string; excludes: readonly string[] };

/** Upload's deps over a scripted user, a folder picker that answers `picked` (null: dismissed), and an upload that answers from `results` in turn. */
function harness(answers: Answer[], results: Array<UploadResult | Error>, picked: string | null = '/home/me/project') {
  const ask = scriptedAsk(answers);
  const calls: UploadCall[] = [];
  const progress = scriptedProgress();
  let folderAsked = 0;
  const d: UploadFlowDeps = {
    ask,
    logger: new MemoryLogger(),
    pickLocalFolder: () => {
      folderAsked++;
      return Promise.resolve(picked ?? undefined);
    },
    sshTarget: () => Promise.resolve(target),
    progress,
    transferFolder: '/root',
    excludes: ['node_modules'],
    upload: (_target, spec) => {
      calls.push(spec);
      const next = results.shift();
      if (!next) throw new Error('uploaded more often than the test expected');
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
  return { d, ask, calls, titles: () => progress.shown.map((p) => p.title), folderAsked: () => folderAsked };
}

const sent = (over: Partial<UploadResult> = {}): UploadResult => ({
  method: 'rsync',
  remoteDir: '/root/project',
  filesSent: 3,
  bytesSent: 1_200_000,
  ...over,
});

describe('transfer: the Upload Folder flow', () => {
  it('asks for the remote folder, suggesting <transfer folder>/<folder name>, and uploads there', async () => {
    const h = harness([{ input: '/root/project' }], [sent()]);
    const outcome = await uploadFlow(h.d, box, {});
    assert.equal(h.folderAsked(), 1);
    assert.equal(h.ask.asked.length, 1);
    assert.equal(h.ask.asked[0]!.kind, 'input');
    assert.match(h.ask.asked[0]!.detail, /^GPU Rental: Upload project to "train" /);
    assert.deepEqual(h.calls, [{ localDir: '/home/me/project', remoteDir: '/root/project', excludes: ['node_modules'] }]);
    assert.match(h.titles()[0]!, /^uploading project to "train" /);
    assert.equal(outcome?.kind, 'uploaded');
    if (outcome?.kind !== 'uploaded') return;
    assert.equal(outcome.remoteDir, '/root/project');
    assert.deepEqual(outcome.target, target);
    assert.equal(outcome.notice?.severity, 'info');
    assert.match(outcome.notice!.text, /^GPU Rental: uploaded project to \/root\/project on "train" .*: 3 files, 1\.2 MB\.$/);
    assert.deepEqual(outcome.notice!.actions, ['openTerminal', 'copyPath']);
  });

  it('suggests the transfer folder joined with the local folder name in the box', async () => {
    const seen: Array<string | undefined> = [];
    const h = harness([], [sent()]);
    h.d.ask.input = (options) => {
      seen.push(options.value);
      return Promise.resolve(undefined);
    };
    assert.equal(await uploadFlow({ ...h.d, transferFolder: '/workspace/' }, box, { localDir: '/tmp/data set' }), undefined);
    assert.deepEqual(seen, ['/workspace/data set']);
    assert.equal(h.calls.length, 0, 'a dismissed box uploads nothing');
  });

  it('refuses a remote folder with a newline in the box', async () => {
    const h = harness([{ input: '/root/a\nb' }], []);
    await assert.rejects(uploadFlow(h.d, box, { localDir: '/tmp/x' }), /refuses .*control character/s);
    assert.equal(h.calls.length, 0);
  });

  it('asks nothing when automation gives both folders, and says nothing at the end when quiet', async () => {
    const h = harness([], [sent({ remoteDir: '/root/x' })]);
    const outcome = await uploadFlow(h.d, box, { localDir: '/tmp/x', remoteDir: '/root/x', quiet: true });
    assert.equal(h.folderAsked(), 0);
    assert.equal(h.ask.asked.length, 0);
    assert.equal(outcome?.kind, 'uploaded');
    assert.equal(outcome?.kind === 'uploaded' && outcome.notice, undefined);
  });

  it('a dismissed folder pick ends the flow before anything is asked or sent', async () => {
    const h = harness([], [], null);
    assert.equal(await uploadFlow(h.d, box, {}), undefined);
    assert.equal(h.calls.length, 0);
  });

  it('a dropped connection is an error with Retry, and Retry uploads the same folders again without asking', async () => {
    const h = harness([{ input: '/root/project' }], [new TransferError('connection', 'The connection dropped.'), sent()]);
    const outcome = await uploadFlow(h.d, box, {});
    assert.equal(outcome?.kind, 'failed');
    if (outcome?.kind !== 'failed') return;
    assert.deepEqual(outcome.notice, { severity: 'error', text: 'GPU Rental: The connection dropped.', actions: ['retry'] });
    const again = await outcome.retry();
    assert.equal(again?.kind, 'uploaded');
    assert.equal(h.calls.length, 2);
    assert.deepEqual(h.calls[1], h.calls[0]);
    assert.equal(h.ask.asked.length, 1, 'Retry asks nothing again');
  });

  it('a cancel is a warning with Retry; a full disk is an error without it', async () => {
    const cancelled = await uploadFlow(harness([], [new TransferError('cancelled', 'Cancelled.')]).d, box, {
      localDir: '/tmp/x',
      remoteDir: '/root/x',
    });
    assert.equal(cancelled?.kind === 'failed' && cancelled.notice.severity, 'warning');
    assert.deepEqual(cancelled?.kind === 'failed' && cancelled.notice.actions, ['retry']);
    const full = await uploadFlow(harness([], [new TransferError('remoteDiskFull', 'The disk is full.')]).d, box, {
      localDir: '/tmp/x',
      remoteDir: '/root/x',
    });
    assert.deepEqual(full?.kind === 'failed' && full.notice, { severity: 'error', text: 'GPU Rental: The disk is full.', actions: [] });
  });

  it('an error that is not the transfer’s own reaches the command’s guard', async () => {
    const h = harness([], [new Error('ssh config unwritable')]);
    await assert.rejects(uploadFlow(h.d, box, { localDir: '/tmp/x', remoteDir: '/root/x' }), /ssh config unwritable/);
  });

  it('says when tar sent everything, and when nothing had changed', async () => {
    const tar = await uploadFlow(harness([], [sent({ method: 'tar', filesSent: 1, bytesSent: 512, notice: 'no rsync here' })]).d, box, {
      localDir: '/tmp/x',
      remoteDir: '/root/x',
    });
    assert.match(tar?.kind === 'uploaded' ? tar.notice!.text : '', /: 1 file, 512 B with tar \(no rsync here\)\.$/);
    const same = await uploadFlow(harness([], [sent({ filesSent: 0, bytesSent: 0 })]).d, box, { localDir: '/tmp/x', remoteDir: '/root/x' });
    assert.match(same?.kind === 'uploaded' ? same.notice!.text : '', /: 0 files, 0 B, nothing had changed\.$/);
  });
});

describe('transfer: files move only to or from a running instance', () => {
  it('a stopped instance is refused with what to do, and nothing starts it', () => {
    const stopped = { ...box, actual_status: 'stopped', intended_status: 'stopped' } as Instance;
    const refusal = notRunning(stopped);
    assert.equal(refusal?.severity, 'warning');
    assert.match(
      refusal!.text,
      /^GPU Rental: "train" .* is stopped, so files cannot move to or from it now\. Start it yourself when you want it running/,
    );
  });

  it('a running instance is not refused', () => {
    assert.equal(notRunning(box), undefined);
  });
});
