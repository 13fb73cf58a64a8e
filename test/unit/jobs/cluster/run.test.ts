// Run on Cluster as a core flow, and the cluster job's state: what the user is asked and in what
// order, what is refused before asking, that a failed upload or start leaves nothing running, that
// every node gets the same job id with its own rank's variables, and that a node failing stops the
// others. A scripted user answers; uploads, ssh and the job book are fakes.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import { Emitter } from '../../../../src/core/events';
import {
  ClusterJobWatch,
  clusterJobState,
  clusterStateText,
  lastLines,
  type ClusterJob,
  type ClusterJobWatchDeps,
} from '../../../../src/core/jobs/cluster/clusterJob';
import { runOnCluster, type NodeStart, type RunClusterDeps, type RunClusterGiven } from '../../../../src/core/jobs/cluster/run';
import type { UploadRequest } from '../../../../src/core/jobs/run';
import type { JobStatus } from '../../../../src/core/jobs/status';
import { MemoryLogger } from '../../../support';
import { scriptedAsk, type Answer } from '../../../support/scriptedAsk';
import { jobStatus } from '../../../support/jobStatus';

const JOB_ID = '20261124-001611-k3f9q2';

const node = (id: number, fields: Partial<Instance> = {}) =>
  ({
    id,
    label: `demo-node${id - 40}`,
    gpu_name: 'H100',
    num_gpus: 2,
    actual_status: 'running',
    intended_status: 'running',
    ssh_host: `ssh${id}.example.net`,
    ...fields,
  }) as unknown as Instance;

const ETH0 = (id: number) => `10.0.0.${id - 40}\n`;

interface Setup {
  nodes?: Instance[];
  /** What a node's upload resolves (default: /root/project). */
  upload?: (id: number) => string | undefined;
  /** What the address snippet prints on a node (default: 10.0.0.<id - 40>). */
  shell?: (id: number) => string;
  /** A start that throws on this node. */
  startFails?: number;
  uploadFirst?: boolean;
}

function setup(answers: Answer[], o: Setup = {}) {
  const ask = scriptedAsk(answers);
  const nodes = o.nodes ?? [node(41), node(42)];
  const memory = { uploadFirst: o.uploadFirst };
  const uploads: Array<{ instanceId: number; request: UploadRequest }> = [];
  const starts: Array<{ instanceId: number; start: NodeStart }> = [];
  const stops: Array<{ instanceId: number; jobId: string; stopInstance: boolean }> = [];
  const shells: number[] = [];
  const deps: RunClusterDeps = {
    ask,
    memory: {
      uploadFirst: () => memory.uploadFirst,
      setUploadFirst: (v) => Promise.resolve(void (memory.uploadFirst = v)),
    },
    upload: (instanceId, request) => {
      uploads.push({ instanceId, request });
      return Promise.resolve(o.upload ? o.upload(instanceId) : '/root/project');
    },
    uploadDestination: (localDir) => `/root/${localDir.split('/').pop()}`,
    remoteFolder: '/workspace',
    shell: (instance) => {
      shells.push(instance.id);
      return Promise.resolve((o.shell ?? ETH0)(instance.id));
    },
    start: (instance, start) => {
      starts.push({ instanceId: instance.id, start });
      return instance.id === o.startFails ? Promise.reject(new Error('ssh refused')) : Promise.resolve();
    },
    stop: (instanceId, jobId, stopInstance) => {
      stops.push({ instanceId, jobId, stopInstance });
      return Promise.resolve(true);
    },
    newJobId: () => JOB_ID,
    logger: new MemoryLogger(),
  };
  const run = (given: RunClusterGiven = {}) =>
    runOnCluster(deps, { label: 'demo', nodes }, { script: 'train.py', workspaceDir: '/home/me/project' }, given);
  return { ask, memory, uploads, starts, stops, shells, run };
}

const ALL_ANSWERS: Answer[] = [
  { pick: 'torchrun (static rendezvous)' },
  { input: 'train.py --epochs 3' },
  { pick: 'Upload the workspace first' },
  { pick: 'Stop the cluster when the job ends' },
];

describe('jobs/cluster: Run on Cluster asks', () => {
  it('asks the preset (torchrun first), the script with the active file suggested, upload first, then stop at the end', async () => {
    const t = setup(ALL_ANSWERS);
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'started');
    assert.deepEqual(
      t.ask.asked.map((a) => [a.kind, a.text]),
      [
        ['pick', 'GPU Rental: Run on the cluster demo (2 nodes)'],
        [
          'input',
          'The Python script every node runs with torchrun (static rendezvous), and its arguments, in the uploaded folder. Quote a path with spaces.',
        ],
        ['pick', 'GPU Rental: Upload before the job?'],
        ['pick', 'GPU Rental: When the job on the cluster demo ends'],
      ],
    );
    assert.deepEqual(t.ask.asked[0]!.options, [
      'torchrun (static rendezvous)',
      'torchrun (c10d rendezvous)',
      'Accelerate',
      'DeepSpeed',
      'Ray',
      'Custom command',
    ]);
    assert.equal(t.ask.left(), 0);
    assert.equal(t.memory.uploadFirst, true, 'the upload choice is remembered as for single jobs');
  });

  it('runs a quoted script path with a space as one word, its arguments after it', async () => {
    const t = setup([
      { pick: 'torchrun (static rendezvous)' },
      { input: "'my dir/train.py' --lr 3" },
      { pick: 'Upload the workspace first' },
      { pick: 'Stop the cluster when the job ends' },
    ]);
    assert.equal((await t.run())?.kind, 'started');
    assert.match(t.starts[0]!.start.command, / 'my dir\/train\.py' --lr 3$/m);
  });

  it('the custom preset asks for the command instead of a script', async () => {
    const t = setup([
      { pick: 'Custom command' },
      { input: 'bash run.sh' },
      { pick: 'Run without uploading' },
      { pick: 'Keep the cluster' },
    ]);
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'started');
    assert.match(t.ask.asked[1]!.text, /The command every node runs/);
    assert.match(t.starts[0]!.start.command, /\nbash run\.sh\n$/);
    assert.equal(t.starts[0]!.start.cwd, '/workspace', 'without an upload the job runs in the remote folder');
    assert.equal(t.uploads.length, 0);
    assert.equal(t.starts[0]!.start.stopAtEnd, false);
  });

  it('a cancel at any question starts nothing', async () => {
    for (let answered = 0; answered < ALL_ANSWERS.length; answered++) {
      const question = ALL_ANSWERS[answered]!;
      const cancel: Answer = 'input' in question ? { input: undefined } : { pick: undefined };
      const t = setup([...ALL_ANSWERS.slice(0, answered), cancel]);
      assert.equal(await t.run(), undefined);
      assert.equal(t.starts.length + t.uploads.length + t.shells.length, 0, `cancelled at question ${answered + 1}`);
    }
  });
});

describe('jobs/cluster: Run on Cluster refuses and stops', () => {
  it('refuses a cluster with a node not running, naming it, before asking anything; it starts no node', async () => {
    const t = setup([], { nodes: [node(41), node(42, { actual_status: 'stopped', intended_status: 'stopped' })] });
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'refused');
    assert.match(
      outcome.notice.text,
      /^GPU Rental: the cluster demo cannot run a job: rank 1 \("demo-node2" \(H100 ×2, #42\)\) is not running\. Start the cluster/,
    );
    assert.equal(t.ask.asked.length, 0);
    assert.equal(t.starts.length, 0);
  });

  it('uploads to every node; an upload failing on one node starts nothing and names that node', async () => {
    const t = setup(ALL_ANSWERS, { upload: (id) => (id === 42 ? undefined : '/root/project') });
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'failed');
    assert.deepEqual(
      t.uploads.map((u) => [u.instanceId, u.request.localDir, u.request.remoteDir]),
      [
        [41, '/home/me/project', '/root/project'],
        [42, '/home/me/project', '/root/project'],
      ],
    );
    assert.match(
      outcome.notice.text,
      /the upload to rank 1 \("demo-node2".*#42\)\) did not complete, so the job started on no node of demo/,
    );
    assert.equal(t.starts.length, 0);
    assert.equal(t.shells.length, 0);
  });

  it('refuses when a node has no eth0 address and the nodes do not share this machine', async () => {
    const t = setup(ALL_ANSWERS, { shell: (id) => (id === 42 ? '\n' : ETH0(id)) });
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'failed');
    assert.match(outcome.notice.text, /"demo-node2".* has no overlay address on eth0/);
    assert.equal(t.starts.length, 0);
  });

  it("nodes without eth0 that share this machine's loopback get 127.0.0.1, 127.0.0.2 by rank", async () => {
    const nodes = [node(41, { ssh_host: '127.0.0.1' }), node(42, { ssh_host: '127.0.0.1' })];
    const t = setup(ALL_ANSWERS, { nodes, shell: () => '\n' });
    assert.equal((await t.run())?.kind, 'started');
    assert.match(t.starts[1]!.start.command, /^export MASTER_ADDR=127\.0\.0\.1$/m);
    assert.match(t.starts[1]!.start.command, /^export NODE_IPS='127\.0\.0\.1\n127\.0\.0\.2'$/m);
  });

  it('a start failing on one node stops the job on the nodes it started on, and says which failed', async () => {
    const t = setup(ALL_ANSWERS, { startFails: 42 });
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'failed');
    assert.deepEqual(t.stops, [{ instanceId: 41, jobId: JOB_ID, stopInstance: false }]);
    assert.match(outcome.notice.text, /could not start on rank 1 .*#42.* \(ssh refused\); it was stopped on the other nodes/);
  });
});

describe('jobs/cluster: every node gets the same job id and its own rank', () => {
  it('starts one job per node with one id, rank 0 shown, each in the uploaded folder with its own stop-at-end (golden)', async () => {
    const t = setup(ALL_ANSWERS);
    const outcome = await t.run();
    assert.equal(outcome?.kind, 'started');
    assert.deepEqual(outcome.job, {
      jobId: JOB_ID,
      label: 'torchrun train.py --epochs 3',
      cluster: 'demo',
      nodes: [41, 42],
      stopAtEnd: true,
    });
    assert.deepEqual(
      t.starts.map(({ instanceId, start }) => [instanceId, start.jobId, start.cwd, start.stopAtEnd, start.show, start.label]),
      [
        [41, JOB_ID, '/root/project', true, true, 'torchrun train.py --epochs 3'],
        [42, JOB_ID, '/root/project', true, false, 'torchrun train.py --epochs 3'],
      ],
    );
    assert.equal(
      t.starts[1]!.start.command,
      [
        `# GPU Rental cluster job ${JOB_ID}: rank 1 of 2 nodes (torchrun).`,
        'export MASTER_ADDR=10.0.0.1',
        'export MASTER_PORT=29500',
        'export NODE_RANK=1',
        'export NNODES=2',
        'export NPROC_PER_NODE=2',
        'export WORLD_SIZE=4',
        "export NODE_IPS='10.0.0.1\n10.0.0.2'",
        'export NCCL_SOCKET_IFNAME=eth0',
        'export SKYPILOT_NODE_RANK=1',
        "export SKYPILOT_NODE_IPS='10.0.0.1\n10.0.0.2'",
        'export SKYPILOT_NUM_NODES=2',
        'export SKYPILOT_NUM_GPUS_PER_NODE=2',
        'export DSTACK_NODE_RANK=1',
        "export DSTACK_NODES_IPS='10.0.0.1\n10.0.0.2'",
        'export DSTACK_MASTER_NODE_IP=10.0.0.1',
        'export DSTACK_NODES_NUM=2',
        'export DSTACK_GPUS_PER_NODE=2',
        'export DSTACK_GPUS_NUM=4',
        `export GPU_RENTAL_HOSTFILE="\${HOME:-/root}/.gpu-rental/jobs"/${JOB_ID}/hostfile`,
        "printf '%s\\n' '10.0.0.1 slots=2' '10.0.0.2 slots=2' >\"$GPU_RENTAL_HOSTFILE\"",
        `GPU_RENTAL_TORCHRUN_FLAGS=$(python3 -c 'import sys, torch; print("--redirects=1 --tee=1" if int(torch.__version__.split(".")[0]) < 2 and sys.version_info >= (3, 11) else "")' 2>/dev/null)`,
        'torchrun $GPU_RENTAL_TORCHRUN_FLAGS --nnodes=$NNODES --node_rank=$NODE_RANK --nproc_per_node=$NPROC_PER_NODE --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT train.py --epochs 3',
        '',
      ].join('\n'),
    );
    assert.match(t.starts[0]!.start.command, /^export NODE_RANK=0$/m);
    assert.equal(t.starts[0]!.start.command.replace(/RANK=0/g, 'RANK=1').replace('rank 0 of', 'rank 1 of'), t.starts[1]!.start.command);
  });

  it('Ray rendezvous on its own port (6379) unless one is given', async () => {
    const t = setup([{ pick: 'Ray' }, { input: 'tune.py' }, { pick: 'Run without uploading' }, { pick: 'Keep the cluster' }]);
    await t.run();
    assert.match(t.starts[0]!.start.command, /^export MASTER_PORT=6379$/m);
    assert.match(t.starts[0]!.start.command, /^ray start --head --port=\$MASTER_PORT/m);
  });
});

function status(jobId: string, fields: Partial<JobStatus> = {}): JobStatus {
  return jobStatus(jobId, { label: 'torchrun train.py', ...fields });
}

const exited = (code: number, endedAt = 2_000, fields: Partial<JobStatus> = {}) =>
  status(JOB_ID, { exitCode: code, endedAt, alive: false, ...fields });

describe('jobs/cluster: the cluster job state', () => {
  const job = { nodes: [41, 42] };

  it('reads running, k of n exited, finished, and failed at rank r in words', () => {
    assert.equal(clusterStateText(clusterJobState(job, [status(JOB_ID), undefined])), 'starting on 2 nodes');
    assert.equal(clusterStateText(clusterJobState(job, [status(JOB_ID), status(JOB_ID)])), 'running on 2 nodes');
    assert.equal(clusterStateText(clusterJobState(job, [status(JOB_ID), exited(0)])), '1 of 2 nodes exited');
    assert.equal(clusterStateText(clusterJobState(job, [exited(0), exited(0)])), 'finished on all 2 nodes');
    assert.equal(clusterStateText(clusterJobState(job, [status(JOB_ID), exited(2)])), 'failed at rank 1 on #42 (exit 2)');
    assert.equal(
      clusterStateText(clusterJobState(job, [status(JOB_ID), status(JOB_ID, { alive: false })])),
      'failed at rank 1: its instance #42 stopped while it ran',
    );
  });

  it('names the rank that failed first, not a peer that failed after it or was stopped by GPU Rental', () => {
    assert.deepEqual(clusterJobState(job, [exited(1, 2_050), exited(2, 2_000)]), { kind: 'failed', rank: 1, instanceId: 42, exitCode: 2 });
    assert.deepEqual(clusterJobState(job, [exited(143, 2_010, { cancelled: 'stop' }), exited(2, 2_050)]), {
      kind: 'failed',
      rank: 1,
      instanceId: 42,
      exitCode: 2,
    });
  });

  it("keeps a job's own last lines: no note of GPU Rental's, no escape sequences", () => {
    const text =
      'epoch 1\r\n\u001b[31mTraceback (most recent call last):\u001b[0m\r\n  File "train.py"\r\nRuntimeError: NCCL error\r\n\u001b[2m[GPU Rental] train.py failed\u001b[0m\r\n';
    assert.deepEqual(lastLines(text, 3), ['Traceback (most recent call last):', 'File "train.py"', 'RuntimeError: NCCL error']);
  });
});

function fakeBook(statuses: Map<number, JobStatus[]>, outputs: Map<number, string>) {
  const changed = new Emitter<void>();
  const stops: Array<[number, string, boolean]> = [];
  const book: ClusterJobWatchDeps['book'] = {
    onDidChange: (listener) => changed.event(listener),
    statusesOf: (id) => statuses.get(id) ?? [],
    stop: (id, jobId, stopInstance) => {
      stops.push([id, jobId, stopInstance]);
      return Promise.resolve(true);
    },
    outputText: (_jobId, id) => (id === undefined ? undefined : outputs.get(id)),
  };
  return { book, stops, fire: () => changed.fire() };
}

describe('jobs/cluster: one node failing stops the others', () => {
  const job: ClusterJob = { jobId: JOB_ID, label: 'torchrun train.py', cluster: 'demo', nodes: [41, 42, 43], stopAtEnd: true };

  it('stops the job on every node still running it (each still stops its instance), and tells rank and last lines once', async () => {
    const statuses = new Map([
      [41, [status(JOB_ID)]],
      [42, [status(JOB_ID)]],
      [43, [status(JOB_ID)]],
    ]);
    const f = fakeBook(statuses, new Map([[42, 'step 10\r\nRuntimeError: CUDA out of memory\r\n']]));
    const notices: Array<Parameters<ClusterJobWatchDeps['notify']>[0]> = [];
    const watch = new ClusterJobWatch({ book: f.book, notify: (n) => notices.push(n), logger: new MemoryLogger() }, job);
    f.fire();
    assert.deepEqual(f.stops, [], 'nothing is stopped while every node runs');
    statuses.set(42, [exited(1)]);
    f.fire();
    f.fire();
    await watch.stopping;
    assert.deepEqual(f.stops, [
      [41, JOB_ID, true],
      [43, JOB_ID, true],
    ]);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.severity, 'warning');
    assert.equal(notices[0]!.rank, 1);
    assert.equal(
      notices[0]!.text,
      'GPU Rental: torchrun train.py failed at rank 1 on #42 (exit 1). The job was stopped on the other nodes, so none waits for it. Its last lines: step 10\nRuntimeError: CUDA out of memory',
    );
    assert.equal(watch.ended, true);
  });

  it('says once when every node finished, and stops nothing', () => {
    const statuses = new Map([
      [41, [exited(0)]],
      [42, [exited(0)]],
      [43, [status(JOB_ID)]],
    ]);
    const f = fakeBook(statuses, new Map());
    const notices: string[] = [];
    const watch = new ClusterJobWatch({ book: f.book, notify: (n) => notices.push(n.text), logger: new MemoryLogger() }, job);
    f.fire();
    assert.equal(clusterStateText(watch.state()), '2 of 3 nodes exited');
    statuses.set(43, [exited(0)]);
    f.fire();
    f.fire();
    assert.deepEqual(notices, ['GPU Rental: torchrun train.py finished on all 3 nodes of demo.']);
    assert.deepEqual(f.stops, []);
  });
});
