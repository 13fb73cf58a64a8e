// Run on Cluster's core path for real: nodes of one seeded cluster rented into an overlay through the
// simulator's API, each a container with its own sshd and eth0; the flow asked by a scripted user,
// the workspace uploaded to rank 0 by Upload Folder's flow and copied from there to the other
// nodes over the overlay (fanout.ts), each node's address read on the node, and one detached job
// per node started, listed and followed by the job book over ssh. A torchrun job with the gloo
// backend all-reduces across 2 and 3 nodes; a node stopped mid-job fails the job at its rank and
// ends it on the others.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Instance } from '../../../../src/core/api/instances';
import { InstancePoller } from '../../../../src/core/instances/poller';
import { JobBook, type JobTerminal } from '../../../../src/core/jobs/book';
import { ClusterJobWatch, type ClusterJobWatchDeps } from '../../../../src/core/jobs/cluster/clusterJob';
import { runOnCluster, type RunClusterOutcome } from '../../../../src/core/jobs/cluster/run';
import { clusterRunDeps } from '../../../../src/core/jobs/cluster/wiring';
import { JobMemory } from '../../../../src/core/jobs/memory';
import { readLog } from '../../../../src/core/jobs/remoteJobs';
import { jobPhase } from '../../../../src/core/jobs/status';
import { uploadedFiles } from '../../../../src/core/transfer/runner';
import { suggestedRemoteDir } from '../../../../src/core/transfer/upload';
import { containerSuite, eventually, MemoryLogger } from '../../../support';
import { clusterUpload, simCluster, skipWithoutCluster } from '../../../support/cluster';
import { scriptedAsk } from '../../../support/scriptedAsk';

/** The DDP script every node runs: one all-reduce of rank + 1, then (with an argument) a long wait. */
const DDP = `import sys, time
import torch
import torch.distributed as dist
dist.init_process_group('gloo')
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print(f'world_size={world} sum={int(t.item())} rank={rank}', flush=True)
if len(sys.argv) > 1:
    print('waiting', flush=True)
    time.sleep(float(sys.argv[1]))
dist.destroy_process_group()
`;

/** A terminal that keeps what it is given. */
function recorder(): JobTerminal {
  const t = {
    text: '',
    isOpen: false,
    append: (chunk: Buffer) => void (t.text += chunk.toString('utf8')),
    note: (line: string) => void (t.text += `\u001b[2m${line}\u001b[0m\n`),
    show: () => void (t.isOpen = true),
    dispose: () => void (t.isOpen = false),
  };
  return t;
}

describe('jobs/cluster: Run on Cluster over real ssh on simulated nodes', function () {
  this.timeout(90_000);
  skipWithoutCluster('torchrun');
  const kit = containerSuite('run-sim', { seed: 41 });
  const sim = simCluster(kit);
  const sshTarget = sim.sshTarget;

  let dir: string;
  let poller: InstancePoller;
  let book: JobBook;
  const watches: ClusterJobWatch[] = [];
  const logger = new MemoryLogger();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rental-run-sim-'));
    writeFileSync(join(dir, 'ddp.py'), DDP);
    poller = new InstancePoller({ fetch: (signal) => kit.client.instances.list({ signal }), intervalMs: () => 250, logger });
    poller.setEnabled(true);
    const values = new Map<string, unknown>();
    const memory = new JobMemory({ get: (k) => values.get(k), update: (k, v) => Promise.resolve(void values.set(k, v)) });
    book = new JobBook({ poller, sshTarget, memory, logger, terminal: () => recorder() });
  });

  afterEach(async () => {
    for (const w of watches.splice(0)) w.dispose();
    book?.dispose();
    poller?.dispose();
    await sim.destroyAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Rents `n` one-GPU nodes of one cluster into the overlay `name`; the poller lists them; rank order. */
  async function rentCluster(name: string, n: number): Promise<Instance[]> {
    const rentedNodes = await sim.rent(name, Array<string>(n).fill('ubuntu:22.04'), { oneGpu: true });
    await poller.refresh();
    return rentedNodes;
  }

  /** Run on Cluster as a user answers it: torchrun, the script, upload first, keep the cluster running. */
  async function run(label: string, nodes: readonly Instance[], script: string) {
    const ask = scriptedAsk([
      { pick: 'torchrun (static rendezvous)' },
      { input: script },
      { pick: 'Upload the workspace first' },
      { pick: 'Keep the cluster running' },
    ]);
    const upload = clusterUpload({ listed: () => poller.snapshot?.instances, sshTarget, logger, excludes: [] });
    const deps = clusterRunDeps({
      ask,
      memory: new JobMemory({ get: () => undefined, update: () => Promise.resolve() }),
      upload,
      uploadDestination: (localDir) => suggestedRemoteDir('/root', localDir),
      remoteFolder: '',
      sshTarget,
      jobs: book,
      baseUrl: kit.sim.url,
      logger,
      // As the window wires it: the workspace goes once, to rank 0, and the other nodes copy it from there.
      fanout: { files: (localDir) => uploadedFiles(localDir, []) },
    });
    // Nothing told of the torch: each node finds that Debian's 1.13 needs torchrun's --redirects and --tee (presets.ts).
    const outcome: RunClusterOutcome | undefined = await runOnCluster(deps, { label, nodes }, { script, workspaceDir: dir }, {});
    assert.equal(ask.left(), 0, 'every question was asked');
    assert.ok(outcome?.kind === 'started', outcome ? outcome.notice.text : 'cancelled');
    const notices: Parameters<ClusterJobWatchDeps['notify']>[0][] = [];
    const watch = new ClusterJobWatch({ book, notify: (n) => notices.push(n), logger }, outcome.job);
    watches.push(watch);
    return { job: outcome.job, watch, notices };
  }

  for (const n of [2, 3]) {
    it(`runs a torchrun job with gloo across ${n} nodes: every rank all-reduces the sum, and the job finishes on all`, async () => {
      const nodes = await rentCluster(`run-sim-${n}`, n);
      const { job, watch, notices } = await run(`run-sim-${n}`, nodes, 'ddp.py');
      await eventually(() => watch.ended, 'the cluster job ends', 60_000);
      assert.deepEqual(watch.state(), { kind: 'succeeded', nodes: n });
      assert.equal(notices.length, 1);
      assert.equal(notices[0]!.text, `GPU Rental: torchrun ddp.py finished on all ${n} nodes of run-sim-${n}.`);

      const sum = (n * (n + 1)) / 2;
      const ranks: number[] = [];
      for (const [rank, node] of nodes.entries()) {
        const log = await readLog(await sshTarget(node), job.jobId);
        const said = /world_size=(\d+) sum=(\d+) rank=(\d+)/.exec(log);
        assert.ok(said, `rank ${rank}'s log has the result:\n${log}`);
        assert.equal(Number(said[1]), n, `rank ${rank}'s world size`);
        assert.equal(Number(said[2]), sum, `rank ${rank}'s sum`);
        ranks.push(Number(said[3]));
      }
      assert.deepEqual(ranks, [...ranks.keys()], 'node k runs rank k');
      assert.ok(
        logger.lines.some((l) => l.includes(`serves /root/${dir.split('/').pop()} on`)),
        'the other nodes copied the workspace from rank 0',
      );
    });
  }

  it('fails the job at the rank whose node stopped mid-job, and stops it on the other node', async () => {
    const nodes = await rentCluster('run-sim-stop', 2);
    const { job, watch, notices } = await run('run-sim-stop', nodes, 'ddp.py 600');
    const [first, second] = nodes as [Instance, Instance];
    // Both ranks are past the all-reduce and wait: the job runs on both.
    const logOf = (node: Instance) =>
      sshTarget(node)
        .then((t) => readLog(t, job.jobId))
        .catch(() => '');
    await eventually(async () => /waiting/.test(await logOf(second)), 'rank 1 waits after the all-reduce', 60_000);
    assert.equal(watch.state().kind, 'running');

    await kit.client.instances.stop(second.id);
    await eventually(() => watch.ended, 'the watch sees the failure', 30_000);
    await watch.stopping;
    assert.deepEqual(watch.state(), { kind: 'failed', rank: 1, instanceId: second.id, exitCode: undefined });
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.rank, 1);
    assert.match(notices[0]!.text, new RegExp(`failed at rank 1: its instance #${second.id} stopped while it ran`));
    assert.match(notices[0]!.text, /The job was stopped on the other nodes/);
    await book.list(first.id);
    const status = book.statusesOf(first.id).find((s) => s.jobId === job.jobId);
    assert.ok(status, 'rank 0 lists the job');
    assert.notEqual(jobPhase(status), 'running', "rank 0's job no longer runs");
    assert.equal(status.cancelled, 'keep', 'it was stopped, its instance kept running');
  });
});
