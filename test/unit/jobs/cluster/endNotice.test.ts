// A cluster job's end is one notification, not one per node: the job book leaves its nodes' own
// ends and stops to the cluster job's watch, which waits to see the nodes stopped and tells the end
// with what their disks bill together. A single job keeps its own notices. Over the real job book
// and watches, a fake remote (no ssh), and a poller on a fake clock.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import { JobBook, type JobRemote } from '../../../../src/core/jobs/book';
import { clusterStopNotice, type ClusterJob, type ClusterJobNotice } from '../../../../src/core/jobs/cluster/clusterJob';
import { ClusterJobWatches } from '../../../../src/core/jobs/cluster/clusterJobStore';
import type { FollowerOptions } from '../../../../src/core/jobs/follower';
import { JobMemory } from '../../../../src/core/jobs/memory';
import { STOP_SEEN_MS, type JobNotice } from '../../../../src/core/jobs/notices';
import type { JobStatus } from '../../../../src/core/jobs/status';
import { listPoller, MemoryLogger, settle } from '../../../support';
import { jobStatus } from '../../../support/jobStatus';

const RANK0 = 31000001;
const RANK1 = 31000002;
const SINGLE = 41;
const JOB_ID = '20261124-001611-k3f9q2';
const job: ClusterJob = { jobId: JOB_ID, label: 'torchrun ddp.py', cluster: 'e2e-train', nodes: [RANK0, RANK1], stopAtEnd: true };

const instance = (id: number, actual: 'running' | 'stopped', disk?: number) =>
  ({ id, actual_status: actual, intended_status: actual, storage_total_cost: disk }) as unknown as Instance;

function status(jobId: string, label: string, fields: Partial<JobStatus> = {}): JobStatus {
  return jobStatus(jobId, { stopAtEnd: true, cwd: '/root/p', label, ...fields });
}
const exited = (code: number, jobId = JOB_ID, label = job.label) =>
  status(jobId, label, { alive: false, exitCode: code, endedAt: 1_040, stopAnswer: 'HTTP 200' });

/** One window: the job book over a remote whose rows the test sets, the cluster job watches, every notification either shows. */
async function window() {
  const values: Record<string, unknown> = {};
  const memory = new JobMemory({ get: (k) => values[k], update: (k, v) => Promise.resolve(void (values[k] = v)) });
  const p = listPoller([instance(RANK0, 'running'), instance(RANK1, 'running'), instance(SINGLE, 'running')]);
  await p.poller.refresh();
  const rows = new Map<number, JobStatus[]>();
  const follows = new Map<number, FollowerOptions>();
  const stops: Array<[number, boolean]> = [];
  const remote: JobRemote = {
    start: (target, _command, o) => {
      rows.set(target.instanceId, [status(o.jobId, o.label, { stopAtEnd: o.stopAtEnd })]);
      return Promise.resolve('tmux');
    },
    list: (target) => Promise.resolve(rows.get(target.instanceId) ?? []),
    stop: (target, jobId, stopInstance) => {
      stops.push([target.instanceId, stopInstance]);
      const cancelled = stopInstance ? 'stop' : 'keep';
      rows.set(target.instanceId, [status(jobId, job.label, { alive: false, exitCode: 143, endedAt: 1_041, cancelled })]);
      return Promise.resolve(true);
    },
    follow: (options) => {
      void options.target().then((target) => follows.set(target.instanceId, options));
      return { start: () => new Promise<void>(() => {}), poke: () => {}, dispose: () => {} };
    },
  };
  const book = new JobBook({
    poller: p.poller,
    sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: 'fake', args: [] }),
    memory,
    logger: new MemoryLogger(),
    remote,
    timers: p.clock,
    terminal: () => ({ text: '', isOpen: false, append: () => {}, note: () => {}, show: () => {}, dispose: () => {} }),
  });
  const shown: Array<JobNotice | ClusterJobNotice> = [];
  book.onDidNotify((n) => shown.push(n));
  const watches = new ClusterJobWatches({
    book,
    notify: (n) => shown.push(n),
    logger: new MemoryLogger(),
    memory,
    poller: p.poller,
    timers: p.clock,
  });
  const o = { cwd: '/root/p', stopAtEnd: true, baseUrl: 'https://api', jobId: JOB_ID, label: job.label };
  await book.run(instance(RANK0, 'running'), { ...o, command: '# rank 0\ntrue', show: true });
  await book.run(instance(RANK1, 'running'), { ...o, command: '# rank 1\ntrue', show: false });
  watches.start(job);
  await settle();
  /** A node's job ended: its listing shows it, and its follower says so. */
  const end = async (instanceId: number, s: JobStatus) => {
    rows.set(instanceId, [s]);
    follows.get(instanceId)!.onEnd(s);
    await settle();
  };
  return { ...p, book, watches, rows, follows, stops, shown, end, dispose: () => (watches.dispose(), book.dispose()) };
}

describe('jobs/cluster: one notification for a cluster job’s end', () => {
  it('a job that ends well on 2 nodes that stop themselves: one notice, naming the stop and what the disks bill together', async () => {
    const w = await window();
    await w.end(RANK0, exited(0));
    await w.end(RANK1, exited(0));
    assert.deepEqual(w.shown, [], 'nothing yet: the nodes are not seen stopped');
    w.set([instance(RANK0, 'stopped', 0.01), instance(RANK1, 'stopped', 0.02), instance(SINGLE, 'running')]);
    await w.clock.advance(5_000);
    await w.clock.advance(STOP_SEEN_MS);
    assert.deepEqual(w.shown, [
      {
        severity: 'info',
        text: 'GPU Rental: torchrun ddp.py finished on all 2 nodes of e2e-train, and the cluster stopped itself; its disks still bill $0.030/h together until you destroy the nodes. Download the outputs before you destroy them.',
        actions: ['switchRank'],
        job,
      },
    ]);
    w.dispose();
  });

  it('a single job in the same window keeps its own two: its end and its instance’s stop', async () => {
    const w = await window();
    await w.book.run(instance(SINGLE, 'running'), { command: 'python3 train.py', cwd: '/root/p', stopAtEnd: true, baseUrl: 'https://api' });
    await settle();
    const jobId = w.rows.get(SINGLE)![0]!.jobId;
    await w.end(SINGLE, exited(0, jobId, 'train.py'));
    w.set([instance(RANK0, 'running'), instance(RANK1, 'running'), instance(SINGLE, 'stopped', 0.0125)]);
    await w.clock.advance(5_000);
    assert.deepEqual(
      w.shown.map((n) => [n.severity, n.text]),
      [
        ['info', 'GPU Rental: train.py finished (exit 0) on #41 after 0:40.'],
        [
          'info',
          "GPU Rental: #41 was stopped by the job's end; its disk still bills $0.013/h until you destroy it. Download the outputs before you destroy it.",
        ],
      ],
    );
    w.dispose();
  });

  it('a job that fails at one rank: one warning, though every node ended and stopped', async () => {
    const w = await window();
    await w.end(RANK1, exited(1));
    await w.watches.all[0]!.stopping;
    assert.deepEqual(w.stops, [[RANK0, true]], 'rank 0 is stopped, and still stops its instance');
    await w.end(RANK0, w.rows.get(RANK0)![0]!);
    w.set([instance(RANK0, 'stopped', 0.01), instance(RANK1, 'stopped', 0.02), instance(SINGLE, 'running')]);
    await w.clock.advance(5_000);
    await w.clock.advance(STOP_SEEN_MS);
    assert.deepEqual(
      w.shown.map((n) => [n.severity, n.text]),
      [
        [
          'warning',
          'GPU Rental: torchrun ddp.py failed at rank 1 on #31000002 (exit 1). The job was stopped on the other nodes, so none waits for it. Its last lines: (no output)',
        ],
      ],
    );
    w.dispose();
  });

  it('a node not seen stopped three minutes after the end: one warning naming it, that it may still bill its full rate', async () => {
    const w = await window();
    await w.end(RANK0, exited(0));
    await w.end(RANK1, exited(0));
    w.set([instance(RANK0, 'stopped', 0.01), instance(RANK1, 'running'), instance(SINGLE, 'running')]);
    await w.clock.advance(STOP_SEEN_MS - 1_000);
    assert.equal(w.shown.length, 0, 'nothing before the three minutes');
    await w.clock.advance(1_000);
    assert.deepEqual(
      w.shown.map((n) => [n.severity, n.text]),
      [
        [
          'warning',
          'GPU Rental: torchrun ddp.py finished on all nodes of e2e-train, but these nodes are not seen stopped after 3 minutes, so they may still bill their full rate: #31000002. Check them in the Instances view and stop them yourself if they run.',
        ],
      ],
    );
    w.dispose();
  });

  it('leaves the amount out when a stopped node’s disk rate is not known, and says nothing more after a failure once all stopped', () => {
    const seen = {
      kind: 'seen',
      stopped: [
        { instanceId: RANK0, diskPerHour: 0.01 },
        { instanceId: RANK1, diskPerHour: null },
      ],
      gone: [],
    } as const;
    assert.equal(
      clusterStopNotice(job, seen, 2)?.text,
      'GPU Rental: torchrun ddp.py finished on all 2 nodes of e2e-train, and the cluster stopped itself; its disks still bill until you destroy the nodes. Download the outputs before you destroy them.',
    );
    assert.equal(clusterStopNotice(job, seen, undefined), undefined);
  });
});
