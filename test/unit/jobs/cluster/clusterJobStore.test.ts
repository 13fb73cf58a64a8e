// A cluster job outlives the window: remembered in the workspace's job memory when it starts, its
// watch restored after a reload (a new JobMemory, book and watches over the same stored values),
// forgotten once its end was told. Over a fake book, as in run.test.ts.
import assert from 'node:assert/strict';
import { Emitter } from '../../../../src/core/events';
import type { ClusterJob, ClusterJobWatchDeps } from '../../../../src/core/jobs/cluster/clusterJob';
import { ClusterJobStore, ClusterJobWatches, MAX_REMEMBERED_CLUSTER_JOBS } from '../../../../src/core/jobs/cluster/clusterJobStore';
import { JOB_MEMORY_KEYS, JobMemory } from '../../../../src/core/jobs/memory';
import type { JobStatus } from '../../../../src/core/jobs/status';
import type { Instance } from '../../../../src/core/api/instances';
import { listPoller, MemoryLogger } from '../../../support';
import { jobStatus } from '../../../support/jobStatus';

const JOB_ID = '20261124-001611-k3f9q2';
const OTHER_ID = '20261124-002000-a1b2c3';
const job: ClusterJob = { jobId: JOB_ID, label: 'torchrun train.py', cluster: 'demo', nodes: [41, 42, 43], stopAtEnd: true };

function status(fields: Partial<JobStatus> = {}): JobStatus {
  return jobStatus(JOB_ID, { stopAtEnd: true, label: 'torchrun train.py', ...fields });
}
const exited = (code: number, endedAt = 2_000) => status({ exitCode: code, endedAt, alive: false });
const node = (id: number, actual: 'running' | 'stopped', disk = 0.0125) =>
  ({ id, actual_status: actual, intended_status: actual, storage_total_cost: disk }) as unknown as Instance;

type Notice = Parameters<ClusterJobWatchDeps['notify']>[0];

/** What the workspace keeps across reloads (VS Code's workspaceState). */
function workspace(values: Record<string, unknown> = {}) {
  return { values, memory: () => new JobMemory({ get: (k) => values[k], update: (k, v) => Promise.resolve(void (values[k] = v)) }) };
}

/** One window: a fresh book (the rows each node's listing shows), the poll of the nodes, its notices, its cluster job watches. */
function window(memory: JobMemory, rows: Map<number, JobStatus[]>) {
  const p = listPoller(job.nodes.map((id) => node(id, 'running')));
  const changed = new Emitter<void>();
  const stops: Array<[number, string, boolean]> = [];
  const notices: Notice[] = [];
  const logger = new MemoryLogger();
  const book: ClusterJobWatchDeps['book'] = {
    onDidChange: (listener) => changed.event(listener),
    statusesOf: (id) => rows.get(id) ?? [],
    stop: (id, jobId, stopInstance) => {
      stops.push([id, jobId, stopInstance]);
      rows.set(id, [status({ alive: false, exitCode: 143, endedAt: 2_100, cancelled: 'stop' })]);
      return Promise.resolve(true);
    },
    outputText: () => 'RuntimeError: CUDA out of memory\n',
  };
  const watches = new ClusterJobWatches({ book, notify: (n) => notices.push(n), logger, memory, poller: p.poller, timers: p.clock });
  return { ...p, watches, stops, notices, logger, fire: () => changed.fire(), dispose: () => (watches.dispose(), changed.dispose()) };
}

/** Run on Cluster's start: each node's job in the job book's memory, then the cluster job watched. */
async function started(memory: JobMemory, w: ReturnType<typeof window>, j: ClusterJob = job): Promise<void> {
  for (const instanceId of j.nodes)
    await memory.remember({ jobId: j.jobId, instanceId, label: j.label, startedAtMs: 1_000, terminalOpen: false, ended: false });
  w.watches.start(j);
  await w.watches.saved;
}

const running = () => new Map(job.nodes.map((id) => [id, [status()]]));

describe('jobs/cluster: a cluster job outlives the window', () => {
  it('is watched again after a reload: a rank that fails stops the others, and is told once', async () => {
    const ws = workspace();
    const first = window(ws.memory(), running());
    await started(ws.memory(), first);
    first.dispose();

    const rows = running();
    const second = window(ws.memory(), rows);
    const restored = second.watches.restore();
    assert.deepEqual(
      restored.map((w) => w.job),
      [job],
      'the same job, label, cluster and ranks',
    );
    assert.deepEqual(
      second.watches.all.map((w) => w.job.jobId),
      [JOB_ID],
      'Switch Rank finds it',
    );
    second.fire();
    assert.equal(restored[0]!.state().kind, 'running');
    rows.set(42, [exited(1)]);
    second.fire();
    second.fire();
    await restored[0]!.stopping;
    assert.deepEqual(second.stops, [
      [41, JOB_ID, true],
      [43, JOB_ID, true],
    ]);
    assert.equal(second.notices.length, 1);
    assert.equal(second.notices[0]!.rank, 1);
    assert.match(second.notices[0]!.text, /^GPU Rental: torchrun train\.py failed at rank 1 on #42 \(exit 1\)\./);
    await second.watches.saved;
    second.dispose();

    const third = window(ws.memory(), rows);
    assert.deepEqual(third.watches.restore(), [], 'told once: the next reload does not watch it again');
    third.fire();
    assert.deepEqual(third.notices, []);
    assert.deepEqual(third.stops, []);
  });

  it('stops the others at once when a rank failed while the window was closed', async () => {
    const ws = workspace();
    const first = window(ws.memory(), running());
    await started(ws.memory(), first);
    first.dispose();

    const rows = running();
    rows.set(43, [exited(2)]);
    const second = window(ws.memory(), rows);
    const [watch] = second.watches.restore();
    await watch!.stopping;
    assert.deepEqual(second.stops, [
      [41, JOB_ID, true],
      [42, JOB_ID, true],
    ]);
    second.fire();
    await watch!.stopping;
    assert.equal(second.notices.length, 1);
    assert.equal(second.notices[0]!.rank, 2);
  });

  it('does not tell a job that finished again after a reload', async () => {
    const ws = workspace();
    const rows = running();
    const first = window(ws.memory(), rows);
    await started(ws.memory(), first);
    for (const id of job.nodes) rows.set(id, [exited(0)]);
    first.fire();
    first.set(job.nodes.map((id) => node(id, 'stopped')));
    await first.clock.advance(5_000);
    assert.deepEqual(
      first.notices.map((n) => n.text),
      [
        'GPU Rental: torchrun train.py finished on all 3 nodes of demo, and the cluster stopped itself; its disks still bill $0.038/h together until you destroy the nodes. Download the outputs before you destroy them.',
      ],
    );
    await first.watches.saved;
    first.dispose();

    const second = window(ws.memory(), rows);
    assert.deepEqual(second.watches.restore(), []);
    second.fire();
    assert.deepEqual(second.notices, []);
    assert.deepEqual(new ClusterJobStore(ws.memory(), new MemoryLogger()).jobs(), []);
  });

  it('forgets a job stopped by hand without a word', async () => {
    const ws = workspace();
    const rows = running();
    const first = window(ws.memory(), rows);
    await started(ws.memory(), first);
    for (const id of job.nodes) rows.set(id, [status({ alive: false, exitCode: 143, endedAt: 2_000, cancelled: 'keep' })]);
    first.fire();
    await first.watches.saved;
    assert.deepEqual(first.notices, []);
    assert.deepEqual(new ClusterJobStore(ws.memory(), new MemoryLogger()).jobs(), []);
  });

  it('drops a damaged record, or one of another version, with a log line, and restores the rest', async () => {
    const ws = workspace();
    await started(ws.memory(), window(ws.memory(), running()));
    const good = (ws.values[JOB_MEMORY_KEYS.clusterJobs] as unknown[])[0];
    ws.values[JOB_MEMORY_KEYS.clusterJobs] = [
      'garbage',
      { ...(good as object), version: 2 },
      { ...(good as object), nodes: [41, 41] },
      { ...(good as object), jobId: '../../etc' },
      null,
      good,
    ];
    const w = window(ws.memory(), running());
    assert.deepEqual(
      w.watches.restore().map((r) => r.job),
      [job],
    );
    assert.equal(w.logger.lines.filter((l) => /^warn Cluster jobs: a remembered cluster job does not read/.test(l)).length, 5);
    await w.watches.saved;
    assert.deepEqual(ws.values[JOB_MEMORY_KEYS.clusterJobs], [good], 'the damaged records are gone from the workspace');
  });

  it('reads a value that is not a list as nothing remembered, with a log line', async () => {
    const ws = workspace({ [JOB_MEMORY_KEYS.clusterJobs]: { jobId: JOB_ID } });
    const w = window(ws.memory(), running());
    assert.deepEqual(w.watches.restore(), []);
    assert.ok(w.logger.lines.some((l) => l.startsWith('warn Cluster jobs: the remembered cluster jobs are not a list')));
    await w.watches.saved;
    assert.deepEqual(ws.values[JOB_MEMORY_KEYS.clusterJobs], []);
  });

  it("drops a job whose nodes' jobs the job memory no longer holds, naming the node", async () => {
    const ws = workspace();
    await started(ws.memory(), window(ws.memory(), running()));
    const memory = ws.memory();
    ws.values[JOB_MEMORY_KEYS.jobs] = memory.jobs().filter((j) => j.instanceId !== 42);
    const w = window(ws.memory(), running());
    assert.deepEqual(w.watches.restore(), []);
    assert.ok(w.logger.lines.includes(`info Cluster job ${JOB_ID} is forgotten: its job on #42 is no longer remembered.`));
    await w.watches.saved;
    assert.deepEqual(ws.values[JOB_MEMORY_KEYS.clusterJobs], []);
  });

  it(`keeps the newest ${MAX_REMEMBERED_CLUSTER_JOBS} cluster jobs, once each`, async () => {
    const ws = workspace();
    const store = new ClusterJobStore(ws.memory(), new MemoryLogger());
    const ids = Array.from({ length: MAX_REMEMBERED_CLUSTER_JOBS + 3 }, (_, i) => `20261124-0000${String(i).padStart(2, '0')}-a1b2c3`);
    for (const jobId of ids) await store.remember({ ...job, jobId });
    await store.remember({ ...job, jobId: ids.at(-1)!, label: 'again' });
    const kept = store.jobs();
    assert.deepEqual(
      kept.map((j) => j.jobId),
      ids.slice(-MAX_REMEMBERED_CLUSTER_JOBS),
    );
    assert.equal(kept.at(-1)!.label, 'again');
    await store.forget([OTHER_ID, ids.at(-1)!]);
    assert.equal(store.jobs().length, MAX_REMEMBERED_CLUSTER_JOBS - 1);
  });
});
