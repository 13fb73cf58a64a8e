// Run on Cluster's Cancel, pressed by a scripted user through the one Progress port
// (test/support/scriptedProgress.ts): during the copy from rank 0, and while the nodes start. Each
// node is a fake that holds what runs on it (the rsync daemon, a pull, the job); after Cancel
// nothing is left running on any node, and the user is told what happened.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import type { FanoutPorts } from '../../../../src/core/jobs/cluster/fanout';
import { runOnCluster, type RunClusterDeps } from '../../../../src/core/jobs/cluster/run';
import { MemoryLogger } from '../../../support';
import { scriptedAsk } from '../../../support/scriptedAsk';
import { scriptedProgress, type CancelWhen } from '../../../support/scriptedProgress';

const JOB_ID = '20261124-001611-k3f9q2';

const node = (id: number) =>
  ({
    id,
    label: `demo-node${id - 40}`,
    num_gpus: 1,
    actual_status: 'running',
    intended_status: 'running',
    ssh_host: `ssh${id}.example.net`,
  }) as unknown as Instance;

const NODES = [node(41), node(42), node(43)];

/** What nodeProbeScript prints on a node with an overlay address, rsync, /root as home, as root. */
const probe = (id: number) => `10.0.0.${id - 40}\nrsync=yes\nhome=/root\nid=0:0\n`;

/** Nodes that hold what runs on them, and Run on Cluster's deps over them. */
function cluster(cancel: CancelWhen, o: { slowStart?: number; pullsHang?: boolean } = {}) {
  const running = new Map<number, Set<string>>(NODES.map((n) => [n.id, new Set<string>()]));
  const on = (id: number) => running.get(id)!;
  const progress = scriptedProgress(cancel);
  const logger = new MemoryLogger();
  const fanout: FanoutPorts = {
    files: () => Promise.resolve(['train.py']),
    token: () => 'abc123def456',
    progress,
    remote: (instance, script, r) => {
      if (script.includes('--daemon')) {
        on(instance.id).add('rsync daemon');
        return Promise.resolve({ code: 0, stdout: 'port=28730\n', stderr: '' });
      }
      if (script.includes('kill -TERM')) {
        on(instance.id).delete('rsync daemon');
        return Promise.resolve({ code: 0, stdout: '', stderr: '' });
      }
      // A pull copies at once, or (pullsHang) runs until Cancel kills its ssh.
      if (!o.pullsHang) return Promise.resolve({ code: 0, stdout: '', stderr: '' });
      on(instance.id).add('rsync pull');
      return new Promise((_, reject) => {
        const end = () => {
          on(instance.id).delete('rsync pull');
          reject(new Error('Cancelled.'));
        };
        if (r.signal?.aborted) end();
        r.signal?.addEventListener('abort', end, { once: true });
      });
    },
  };
  const deps: RunClusterDeps = {
    ask: scriptedAsk([]),
    memory: { uploadFirst: () => true, setUploadFirst: () => Promise.resolve() },
    upload: () => Promise.resolve('/root/project'),
    uploadDestination: () => '/root/project',
    remoteFolder: '',
    shell: (instance) => Promise.resolve(probe(instance.id)),
    start: async (instance) => {
      // A node's start over ssh takes a moment; the one named takes longer.
      for (let i = 0; i < (instance.id === o.slowStart ? 5 : 1); i++) await new Promise((r) => setImmediate(r));
      on(instance.id).add('job');
    },
    stop: (instanceId, jobId) => {
      assert.equal(jobId, JOB_ID);
      on(instanceId).delete('job');
      return Promise.resolve(true);
    },
    newJobId: () => JOB_ID,
    logger,
    progress,
    fanout,
  };
  const run = () =>
    runOnCluster(
      deps,
      { label: 'demo', nodes: NODES },
      { workspaceDir: '/home/me/project' },
      { preset: 'torchrun', script: 'train.py', uploadFirst: true, stopAtEnd: false },
    );
  const left = () => [...running].flatMap(([id, things]) => [...things].map((t) => `#${id}: ${t}`));
  return { run, left, progress, logger };
}

describe('jobs/cluster: Cancel of Run on Cluster', () => {
  it('during the copy from rank 0: no node copies or serves any more, no job starts, and the user is told', async () => {
    const t = cluster({ title: /^copying project from node 0/, message: /^copying to nodes 1, 2 from node 0$/ }, { pullsHang: true });
    const outcome = await t.run();
    assert.ok(t.progress.cancelled(), 'the user pressed Cancel');
    assert.deepEqual(t.left(), [], 'nothing runs on any node');
    assert.ok(outcome && outcome.kind === 'failed', JSON.stringify(outcome));
    assert.equal(outcome.notice.severity, 'error');
    assert.equal(
      outcome.notice.text,
      'GPU Rental: the upload to rank 1 ("demo-node2" (GPU, #42)), rank 2 ("demo-node3" (GPU, #43)) did not complete, so the job started on no node of demo. Upload again, or run without uploading.',
    );
    assert.deepEqual(
      t.progress.shown.map((p) => p.title),
      ['copying project from node 0 to the other nodes of the cluster'],
      'nothing started after the copy',
    );
  });

  it('while the nodes start: the job is stopped on every node it started on, and the user is told', async () => {
    // Cancel as rank 0 has started; rank 2's start is still under way, and is let finish, then stopped.
    const t = cluster({ title: /^starting/, message: /^started on rank 0/ }, { slowStart: 43 });
    const outcome = await t.run();
    assert.ok(t.progress.cancelled(), 'the user pressed Cancel');
    assert.deepEqual(t.left(), [], 'nothing runs on any node');
    assert.ok(outcome && outcome.kind === 'cancelled', JSON.stringify(outcome));
    assert.equal(outcome.notice.severity, 'warning');
    assert.equal(
      outcome.notice.text,
      'GPU Rental: you cancelled torchrun train.py while it started on demo; it runs on no node now, and the nodes keep running. Run the job again when you are ready.',
    );
    const start = t.progress.shown.find((p) => p.title.startsWith('starting'))!;
    assert.equal(start.title, 'starting torchrun train.py on the 3 nodes of demo');
    assert.equal(start.ended, 'resolved');
  });

  it('without Cancel the job starts on every node and keeps running there', async () => {
    const t = cluster({ title: /^never/ });
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'started');
    assert.deepEqual(t.left(), ['#41: job', '#42: job', '#43: job']);
  });
});
