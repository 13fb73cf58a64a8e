import assert from 'node:assert/strict';
import type { CloudConnection, CloudSyncRequest, CopyRequest } from '../../../src/core/api/copy';
import { ApiError } from '../../../src/core/api/errors';
import type { Instance } from '../../../src/core/api/instances';
import { followTransfer, type FollowTransferOptions, type TransferEnd } from '../../../src/core/instances/copyProgress';
import type { InstanceSnapshot } from '../../../src/core/instances/poller';
import { cloudSyncFlow } from '../../../src/core/transfer/cloudSync';
import { copyFlow } from '../../../src/core/transfer/copy';
import type { ServiceCopyDeps } from '../../../src/core/transfer/serviceCopy';
import { MemoryLogger } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { scriptedProgress, type CancelWhen } from '../../support/scriptedProgress';

const machine = (id: number, label: string, status = 'running') =>
  ({ id, label, actual_status: status, intended_status: status, num_gpus: 1, gpu_name: 'RTX 4090', dph_total: 0.5 }) as Instance;
const src = machine(1, 'src');
const dst = machine(2, 'dst');

const lost = () =>
  new ApiError({ kind: 'network', action: 'copy', method: 'PUT', path: '/api/v0/commands/copy_direct/', outcomeUnknown: true });

interface Script {
  answers?: Answer[];
  instances?: Instance[];
  connections?: CloudConnection[];
  /** How following ends; what progress it reports first. */
  end?: TransferEnd;
  readings?: Array<{ message: string; percent?: number }>;
  start?: Error;
  cancel?: Error;
  /** When the scripted user presses the progress's Cancel; with it, the real follow runs over the poller. */
  cancelWhen?: CancelWhen;
  baseUrl?: string;
}

function harness(script: Script) {
  const ask = scriptedAsk(script.answers ?? []);
  const copies: CopyRequest[] = [];
  const syncs: CloudSyncRequest[] = [];
  const cancels: number[] = [];
  const followed: Array<{ id: number; options: FollowTransferOptions }> = [];
  const progress = scriptedProgress(script.cancelWhen);
  const poller = { interest: [] as Array<[string, boolean]>, listeners: 0 };
  const list = script.instances ?? [src, dst];
  const snapshot = { instances: list } as unknown as InstanceSnapshot;
  const started = () => (script.start ? Promise.reject(script.start) : Promise.resolve({ message: 'started' }));
  const cancelled = (id: number) => {
    cancels.push(id);
    return script.cancel ? Promise.reject(script.cancel) : Promise.resolve();
  };
  const d: ServiceCopyDeps = {
    ask,
    logger: new MemoryLogger(),
    copy: {
      copyBetweenInstances: (r) => {
        copies.push(r);
        return started();
      },
      cancelCopy: cancelled,
      cloudConnections: () => Promise.resolve(script.connections ?? []),
      cloudSync: (r) => {
        syncs.push(r);
        return started();
      },
      cancelCloudSync: cancelled,
    },
    instances: { show: (id) => Promise.resolve({ ...list.find((i) => i.id === id)!, status_msg: 'old news' }) },
    poller: {
      snapshot,
      refresh: () => Promise.resolve(),
      onDidUpdate: () => {
        poller.listeners++;
        return { dispose: () => void poller.listeners-- };
      },
      setInterest: (key, on) => void poller.interest.push([key, on]),
    },
    progress,
    remoteFolder: '',
    baseUrl: script.baseUrl,
    follow: (follower, id, options) => {
      followed.push({ id, options });
      if (script.cancelWhen) return followTransfer(follower, id, options);
      for (const r of script.readings ?? []) options.onProgress?.({ kind: 'progress', ...r });
      return Promise.resolve(script.end ?? { outcome: 'done', message: 'copy complete' });
    },
  };
  const reports = () => progress.shown.flatMap((p) => p.updates);
  const titles = () => progress.shown.map((p) => p.title);
  return { d, ask, copies, syncs, cancels, followed, reports, titles, progress, poller };
}

describe('transfer: Copy Folder to Another Instance', () => {
  it('asks the source path, the destination among the other running instances (with price), then the destination path', async () => {
    const third = machine(3, 'stopped one', 'stopped');
    const h = harness({
      instances: [src, dst, third],
      answers: [{ input: ' /workspace/data/ ' }, { pick: 'dst' }, { input: '/workspace/got/' }],
    });
    const result = await copyFlow(h.d, src, {});
    assert.deepEqual(
      h.ask.asked.map((a) => a.kind),
      ['input', 'pick', 'input'],
    );
    assert.equal(h.ask.asked[1]!.options!.length, 1, 'only the other running instance is offered');
    assert.deepEqual(h.copies, [{ srcId: 1, dstId: 2, srcPath: '/workspace/data/', dstPath: '/workspace/got/' }]);
    assert.equal(h.followed[0]!.id, 2, 'the destination is followed');
    assert.equal(h.followed[0]!.options.before, 'old news', 'news older than the copy is told apart');
    assert.equal(result?.outcome, 'done');
    assert.match(
      result!.notice.text,
      /^GPU Rental: the copy of \/workspace\/data\/ from "src" .* to \/workspace\/got\/ on "dst" .* finished \(copy complete\)\.$/,
    );
  });

  it('the destination pick shows each instance with its number and price per hour', async () => {
    let description: string | undefined;
    const h = harness({});
    h.d.ask.pick = (options) => {
      description = options.items[0]!.description;
      return Promise.resolve(undefined);
    };
    assert.equal(await copyFlow(h.d, src, { srcPath: '/workspace/a' }), undefined);
    assert.equal(description, '#2 · $0.500/h');
    assert.equal(h.copies.length, 0);
  });

  it('says so when no other instance runs, and starts nothing', async () => {
    const h = harness({ instances: [src, machine(2, 'dst', 'stopped')], answers: [{ input: '/workspace/a' }] });
    const result = await copyFlow(h.d, src, {});
    assert.equal(result?.outcome, 'noDestination');
    assert.match(result!.notice.text, /^GPU Rental: no other running instance to copy to\. Start or rent one, then copy from "src" /);
    assert.equal(h.copies.length, 0);
  });

  it('refuses a copy onto the source itself', async () => {
    const h = harness({});
    await assert.rejects(copyFlow(h.d, src, { srcPath: '/a', dstId: 1, dstPath: '/b' }), /Pick another instance to copy to than "src"/);
    assert.equal(h.copies.length, 0);
  });

  it('refuses a relative path in the box', async () => {
    const h = harness({ answers: [{ input: 'workspace/a' }] });
    await assert.rejects(copyFlow(h.d, src, {}), /Enter an absolute path on the instance/);
  });

  it('a start whose answer was lost is "unknown": it may have started, and nothing is followed or started again', async () => {
    const h = harness({ start: lost() });
    const result = await copyFlow(h.d, src, { srcPath: '/a/', dstId: 2, dstPath: '/b/' });
    assert.equal(result?.outcome, 'unknown');
    assert.equal(result!.notice.severity, 'warning');
    assert.match(result!.notice.text, /may have started: the service's answer was lost\. Check "dst" .*'s status and logs/);
    assert.deepEqual(result!.notice.actions, ['showLogs']);
    assert.equal(result!.instanceId, 2);
    assert.equal(h.copies.length, 1);
    assert.equal(h.followed.length, 0);
  });

  it('a refused start reaches the command’s guard', async () => {
    const refused = new ApiError({ kind: 'bad_request', action: 'copy', method: 'PUT', path: '/x', status: 400 });
    await assert.rejects(copyFlow(harness({ start: refused }).d, src, { srcPath: '/a/', dstId: 2, dstPath: '/b/' }), ApiError);
  });

  it('reports the service’s progress as it comes, moving the bar only forward', async () => {
    const h = harness({
      readings: [
        { message: '10%', percent: 10 },
        { message: 'still going' },
        { message: '5%', percent: 5 },
        { message: '40%', percent: 40 },
      ],
    });
    await copyFlow(h.d, src, { srcPath: '/a/', dstId: 2, dstPath: '/b/' });
    assert.deepEqual(h.reports(), [
      { message: 'started; the service reports progress with some delay' },
      { message: '10%', increment: 10 },
      { message: 'still going' },
      { message: '5%' },
      { message: '40%', increment: 30 },
    ]);
  });

  for (const [end, level, pattern] of [
    [
      { outcome: 'failed', message: 'no space left' },
      'error',
      /failed: no space left\. Check the paths and "dst" .*'s logs, then try again\.$/,
    ],
    [
      { outcome: 'interrupted', phase: 'stopped' },
      'warning',
      /^GPU Rental: "dst" .* is stopped and the copy of .* did not say it finished\./,
    ],
    [
      { outcome: 'quiet', lastMessage: '50%' },
      'warning',
      /no news of the copy of .* for 10 minutes \(last: 50%\); whether it finished is not known\./,
    ],
    [
      { outcome: 'quiet', lastMessage: undefined },
      'warning',
      /no news of the copy of .* for 10 minutes; whether it finished is not known\./,
    ],
  ] as const) {
    const news = 'lastMessage' in end ? (end.lastMessage ? ' after some news' : ' without any news') : '';
    it(`an end that is ${end.outcome}${news} is shown at level ${level} with Show Instance Logs, never as a success`, async () => {
      const result = await copyFlow(harness({ end }).d, src, { srcPath: '/a/', dstId: 2, dstPath: '/b/' });
      assert.equal(result?.outcome, end.outcome);
      assert.equal(result!.notice.severity, level);
      assert.match(result!.notice.text, pattern);
      assert.deepEqual(result!.notice.actions, ['showLogs']);
    });
  }

  it('Cancel cancels the copy itself on the destination, and says what was copied stays', async () => {
    const h = harness({ end: { outcome: 'cancelled' } });
    const result = await copyFlow(h.d, src, { srcPath: '/a/', dstId: 2, dstPath: '/b/' });
    assert.deepEqual(h.cancels, [2]);
    assert.equal(result?.outcome, 'cancelled');
    assert.match(result!.notice.text, /^GPU Rental: cancelled the copy of .*\. What was copied so far stays on "dst" /);
  });

  it('Cancel pressed on the progress ends the follow, cancels the copy on the destination, and asks nothing more', async () => {
    const h = harness({ cancelWhen: { message: /^started/ }, answers: [{ input: '/a/' }, { pick: 'dst' }, { input: '/b/' }] });
    const result = await copyFlow(h.d, src, {});
    assert.ok(h.progress.cancelled(), 'the scripted user pressed Cancel');
    assert.deepEqual(h.copies, [{ srcId: 1, dstId: 2, srcPath: '/a/', dstPath: '/b/' }]);
    assert.deepEqual(h.cancels, [2], 'the service copy itself is cancelled, on the destination');
    assert.deepEqual(h.poller.interest, [
      ['transfer:2', true],
      ['transfer:2', false],
    ]);
    assert.equal(h.poller.listeners, 0, 'the follow stopped listening to the poller');
    assert.deepEqual(
      h.progress.shown.map((p) => [p.title, p.cancellable, p.ended]),
      [['copying /a/ to "dst" (RTX 4090, #2)', true, 'resolved']],
    );
    assert.equal(result?.outcome, 'cancelled');
    assert.equal(result!.notice.severity, 'info');
    assert.match(result!.notice.text, /^GPU Rental: cancelled the copy of \/a\/ .*\. What was copied so far stays on "dst" /);
    assert.equal(h.ask.left(), 0);
    assert.equal(h.ask.asked.length, 3, 'nothing asked after the Cancel');
  });

  it('a cancel without an answer says the copy may still run', async () => {
    const h = harness({ end: { outcome: 'cancelled' }, cancel: lost() });
    const result = await copyFlow(h.d, src, { srcPath: '/a/', dstId: 2, dstPath: '/b/' });
    assert.equal(result!.notice.severity, 'warning');
    assert.match(result!.notice.text, /^GPU Rental: the cancel of the copy of .* got no answer; it may still be running\./);
  });
});

describe('transfer: Sync with Cloud Storage', () => {
  const bucket: CloudConnection = { id: 5, name: 'my-bucket', cloud_type: 's3' };

  it('with no cloud connection, says where to add one and offers the console on the service’s host', async () => {
    const h = harness({ baseUrl: 'https://console.example.com/', connections: [] });
    const result = await cloudSyncFlow(h.d, dst, { direction: 'Instance To Cloud' });
    assert.equal(result?.outcome, 'noConnection');
    assert.match(result!.notice.text, /^GPU Rental: the account has no cloud connection\. Add one in the web console/);
    assert.deepEqual(result!.notice.actions, ['openConsole']);
    assert.equal(result!.consoleUrl, 'https://console.example.com/account/');
    assert.equal(h.syncs.length, 0);
  });

  it('offers no console button when the service’s address is unknown', async () => {
    const result = await cloudSyncFlow(harness({ connections: [] }).d, dst, { direction: 'Cloud To Instance' });
    assert.deepEqual(result!.notice.actions, []);
  });

  it('asks which way, takes the only connection, then the folder on the instance and the place in the bucket', async () => {
    const h = harness({
      connections: [bucket],
      answers: [{ pick: 'Instance → Cloud' }, { input: '/workspace/out/' }, { input: ' runs/1/ ' }],
    });
    const result = await cloudSyncFlow(h.d, dst, {});
    assert.deepEqual(
      h.ask.asked.map((a) => a.text),
      ['GPU Rental: sync with cloud storage', 'The folder on "dst" (RTX 4090, #2) to send.', 'Where in my-bucket to put it.'],
    );
    assert.deepEqual(h.syncs, [{ instanceId: 2, connectionId: 5, direction: 'Instance To Cloud', src: '/workspace/out/', dst: 'runs/1/' }]);
    assert.equal(h.titles()[0], 'sending /workspace/out/ to my-bucket');
    assert.match(result!.notice.text, /^GPU Rental: the sync of \/workspace\/out\/ on "dst" .* to runs\/1\/ in my-bucket finished/);
  });

  it('fetching asks the bucket path first, then where on the instance, and picks among several connections', async () => {
    const h = harness({
      connections: [bucket, { id: 6, name: null, cloud_type: 'gdrive' } as unknown as CloudConnection],
      answers: [{ pick: 'cloud connection 6' }, { input: 'data/' }, { input: '/workspace/in/' }],
    });
    await cloudSyncFlow(h.d, dst, { direction: 'Cloud To Instance' });
    assert.deepEqual(h.ask.asked[0]!.options, ['my-bucket', 'cloud connection 6']);
    assert.deepEqual(h.syncs, [{ instanceId: 2, connectionId: 6, direction: 'Cloud To Instance', src: 'data/', dst: '/workspace/in/' }]);
  });

  it('a connection the account lacks is refused', async () => {
    const h = harness({ connections: [bucket] });
    await assert.rejects(cloudSyncFlow(h.d, dst, { direction: 'Instance To Cloud', connectionId: 9 }), /no cloud connection 9/);
  });

  it('a sync whose start answer was lost is "unknown", never "nothing happened"', async () => {
    const h = harness({ connections: [bucket], start: lost() });
    const result = await cloudSyncFlow(h.d, dst, { direction: 'Instance To Cloud', connectionId: 5, src: '/a/', dst: 'b/' });
    assert.equal(result?.outcome, 'unknown');
    assert.match(result!.notice.text, /^GPU Rental: the sync of \/a\/ on "dst" .* may have started: the service's answer was lost\./);
  });

  it('Cancel cancels the sync on the instance', async () => {
    const h = harness({ connections: [bucket], end: { outcome: 'cancelled' } });
    await cloudSyncFlow(h.d, dst, { direction: 'Cloud To Instance', connectionId: 5, src: 'a/', dst: '/b/' });
    assert.deepEqual(h.cancels, [2]);
  });
});
