// Run on Cluster's core path for real: nodes of one seeded cluster rented into an overlay through the
// simulator's API, each a container with its own sshd and eth0; the flow asked by a scripted user,
// the workspace uploaded to rank 0 by Upload Folder's flow and copied from there to the other
// nodes over the overlay (fanout.ts), each node's address read on the node, and one detached job
// per node started, listed and followed by the job book over ssh. A torchrun job with the gloo
// backend all-reduces across 2 and 3 nodes; a node stopped mid-job fails the job at its rank and
// ends it on the others.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { joinOverlayEnv } from '../../../../src/core/api/instanceRequests';
import type { Instance } from '../../../../src/core/api/instances';
import { clusterFilter } from '../../../../src/core/api/offerQuery';
import type { Offer } from '../../../../src/core/api/offers';
import { instancePhase } from '../../../../src/core/instances/phase';
import { InstancePoller } from '../../../../src/core/instances/poller';
import { JobBook, type JobTerminal } from '../../../../src/core/jobs/book';
import { ClusterJobWatch, type ClusterJobWatchDeps } from '../../../../src/core/jobs/cluster/clusterJob';
import { runOnCluster, type RunClusterOutcome } from '../../../../src/core/jobs/cluster/run';
import { clusterRunDeps } from '../../../../src/core/jobs/cluster/wiring';
import { JobMemory } from '../../../../src/core/jobs/memory';
import { readLog } from '../../../../src/core/jobs/remoteJobs';
import { jobPhase } from '../../../../src/core/jobs/status';
import type { SshTarget } from '../../../../src/core/ssh/remote';
import { uploadedFiles } from '../../../../src/core/transfer/runner';
import { suggestedRemoteDir, uploadFlow } from '../../../../src/core/transfer/upload';
import { overlayNetAvailable } from '../../../marketplace/overlayNet';
import { sshdAvailable } from '../../../marketplace/sshd';
import { containerSuite, eventually, MemoryLogger } from '../../../support';
import { scriptedAsk } from '../../../support/scriptedAsk';

/** A node's PATH as its ssh session has it: torchrun there must import torch. */
const NODE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Why these tests cannot run here, or undefined. */
function whyNot(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: nodes share loopback';
  if (!overlayNetAvailable()) return 'no network namespaces here (ip, nsenter, unshare, or the kernel)';
  if (!sshdAvailable()) return 'no sshd (apt-get install openssh-server)';
  const torchrun = spawnSync('torchrun', ['--help'], { stdio: 'ignore', timeout: 60_000, env: { ...process.env, PATH: NODE_PATH } });
  return torchrun.status === 0 ? undefined : 'no torchrun with torch on the nodes (apt-get install python3-torch)';
}

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

/** `n` offers of one cluster, one GPU each, on distinct machines of one model. */
function clusterOffers(offers: readonly Offer[], n: number): Offer[] {
  const groups = new Map<string, Offer[]>();
  for (const o of offers) {
    if (typeof o.cluster_id !== 'number' || o.num_gpus !== 1) continue;
    const key = `${o.cluster_id}/${o.gpu_name}`;
    const list = groups.get(key) ?? [];
    if (!list.some((x) => x.machine_id === o.machine_id)) list.push(o);
    groups.set(key, list);
  }
  const found = [...groups.values()].find((list) => list.length >= n);
  assert.ok(found, `the seeded catalogue has a cluster with ${n} one-GPU machines of one model`);
  return found.slice(0, n);
}

describe('jobs/cluster: Run on Cluster over real ssh on simulated nodes', function () {
  this.timeout(90_000);
  before(function () {
    const skipped = whyNot();
    if (skipped) {
      console.log(`    (skipped: ${skipped})`);
      this.skip();
    }
  });
  const kit = containerSuite('run-sim', { seed: 41 });

  let dir: string;
  let poller: InstancePoller;
  let book: JobBook;
  let rented: number[];
  const watches: ClusterJobWatch[] = [];
  const targets = new Map<number, SshTarget>();
  const logger = new MemoryLogger();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rental-run-sim-'));
    writeFileSync(join(dir, 'ddp.py'), DDP);
    rented = [];
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
    await Promise.allSettled(rented.map((id) => kit.client.instances.destroy(id)));
    rmSync(dir, { recursive: true, force: true });
  });

  /** How ssh reaches a node (found once; the key is the suite's). */
  async function sshTarget(instance: Instance): Promise<SshTarget> {
    const known = targets.get(instance.id);
    if (known) return known;
    const reached = await kit.reach(instance.id);
    const target: SshTarget = { instanceId: instance.id, alias: reached.alias, args: reached.args };
    targets.set(instance.id, target);
    return target;
  }

  /** Rents `n` nodes of one cluster into the overlay `name` and waits until each runs and answers ssh; rank order. */
  async function rentCluster(name: string, n: number): Promise<Instance[]> {
    const client = kit.client;
    const offers = await client.offers.search({
      query: { filters: { cluster_id: clusterFilter(), rentable: { eq: true } }, order: [], type: 'on-demand' },
      limit: 1000,
    });
    const picked = clusterOffers(offers, n);
    await client.clusters.createOverlay({ clusterId: picked[0]!.cluster_id!, name });
    const join = joinOverlayEnv(name);
    assert.ok(join.ok);
    for (const offer of picked)
      rented.push((await client.instances.create(offer.id, { image: 'ubuntu:22.04', disk: 8, env: join.env })).instanceId);
    const ids = [...rented];
    for (const id of ids) targets.delete(id);
    await Promise.all(ids.map((id) => kit.reach(id)));
    await poller.refresh();
    const nodes = ids.map((id) => poller.snapshot?.instances.find((i) => i.id === id));
    assert.ok(
      nodes.every((i) => i !== undefined && instancePhase(i) === 'running'),
      'every node runs',
    );
    return nodes as Instance[];
  }

  /** Run on Cluster as a user answers it: torchrun, the script, upload first, keep the cluster running. */
  async function run(label: string, nodes: readonly Instance[], script: string) {
    const ask = scriptedAsk([
      { pick: 'torchrun (static rendezvous)' },
      { input: script },
      { pick: 'Upload the workspace first' },
      { pick: 'Keep the cluster running' },
    ]);
    const upload = async (instanceId: number, request: { localDir?: string; remoteDir?: string; quiet?: boolean }) => {
      const instance = poller.snapshot?.instances.find((i) => i.id === instanceId);
      assert.ok(instance, `#${instanceId} is listed`);
      const outcome = await uploadFlow(
        {
          ask: scriptedAsk([]),
          logger,
          pickLocalFolder: () => Promise.resolve(undefined),
          sshTarget,
          progress: (_title, work) => work({}),
          transferFolder: '/root',
          excludes: [],
        },
        instance,
        request,
      );
      return outcome?.kind === 'uploaded' ? outcome.remoteDir : undefined;
    };
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
