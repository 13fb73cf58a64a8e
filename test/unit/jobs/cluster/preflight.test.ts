// Check Cluster Network: every ordered pair of nodes connects on the overlay, node 0's link to each
// other node is measured, and the verdict weighs the slowest link against what the cluster costs.
// ssh is a fake that answers per node and per probe mode as the probe would print it; the probe
// itself runs for real in test/unit/marketplace/ where network namespaces exist.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import { runOnCluster, type RunClusterDeps } from '../../../../src/core/jobs/cluster/run';
import { checkCluster, preflightBeforeJob, requiredGbits, type PreflightDeps } from '../../../../src/core/jobs/cluster/preflight';
import { parseProbe, probeScript } from '../../../../src/core/jobs/cluster/preflightScripts';
import { MemoryLogger } from '../../../support';
import { scriptedAsk } from '../../../support/scriptedAsk';

const node = (id: number, fields: Partial<Instance> = {}) =>
  ({
    id,
    label: `demo-node${id - 40}`,
    gpu_name: 'H100 SXM',
    num_gpus: 8,
    dph_total: 10.4,
    actual_status: 'running',
    intended_status: 'running',
    ssh_host: `ssh${id}.example.net`,
    ...fields,
  }) as unknown as Instance;

const BYTES = 64 * 1024 * 1024;
/** The seconds the receiver prints for `gbits` over 64 MiB. */
const secondsFor = (gbits: number) => ((BYTES * 8) / 1e9 / gbits).toFixed(6);

interface Call {
  readonly id: number;
  readonly mode: string;
  readonly words: string[];
  readonly script: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

interface Fake {
  /** What node `id`'s eth0 snippet prints (default 10.0.0.<id - 40>). */
  eth0?: (id: number) => string;
  /** What node `id` prints for `reach` (default: every peer ok). */
  reach?: (id: number, peers: number[]) => string;
  /** node 0 ↔ node `rank` in Gbit/s (default 12.5). */
  gbits?: (rank: number) => number;
  /** A call that never resolves until aborted (to cancel in it). */
  hang?: (call: Call) => boolean;
  noPython?: number;
}

const tag = (lines: string[]) => lines.map((l) => `gpu-rental-preflight ${l}\n`).join('');

function setup(nodes: Instance[], fake: Fake = {}) {
  const calls: Call[] = [];
  const logger = new MemoryLogger();
  const progress: string[] = [];
  const controller = new AbortController();
  const deps: PreflightDeps = {
    shell: (instance, script, o) => {
      const last = script.trimEnd().split('\n').pop()!;
      const isProbe = script.includes('exec python3 -c');
      const words = isProbe ? last.slice(2).split(' ') : [];
      const call: Call = { id: instance.id, mode: isProbe ? words[0]! : 'eth0', words, script, timeoutMs: o.timeoutMs, signal: o.signal };
      calls.push(call);
      if (fake.hang?.(call))
        return new Promise((_, reject) => o.signal?.addEventListener('abort', () => reject(new Error('Cancelled.')), { once: true }));
      // The all-reduce's torch check (preflightAllReduce.test.ts has the nodes that have torch).
      if (script.includes(' gpu-rental-allreduce torch ')) return Promise.resolve(tag(['no-torch']));
      if (!isProbe) return Promise.resolve((fake.eth0 ?? ((id) => `10.0.0.${id - 40}\n`))(instance.id));
      if (instance.id === fake.noPython) return Promise.resolve(tag(['no-python3']));
      const rank = nodes.indexOf(instance);
      if (call.mode === 'reach') {
        const peers = nodes.map((_, r) => r).filter((r) => r !== rank);
        return Promise.resolve(fake.reach ? fake.reach(instance.id, peers) : tag(peers.map((p) => `reach ${p} ok`)));
      }
      if (call.mode === 'recv') {
        const from = Number(words[3]);
        return Promise.resolve(tag([`recv ${BYTES} ${secondsFor((fake.gbits ?? (() => 12.5))(from))}`]));
      }
      return Promise.resolve(tag([`sent ${BYTES}`]));
    },
    logger,
    progress: (_title, work) => work({ signal: controller.signal, report: (u) => void progress.push(u.message ?? '') }),
  };
  const check = () => checkCluster(deps, { label: 'demo', nodes });
  return { deps, calls, logger, progress, controller, check };
}

describe('jobs/cluster: Check Cluster Network', () => {
  it('finds every pair reachable and fast, and lists node 0 ↔ each node in Gbit/s with one decimal', async () => {
    const nodes = [node(41), node(42), node(43)];
    const t = setup(nodes, { gbits: (rank) => (rank === 1 ? 9.44 : 25) });
    const out = await t.check();
    assert.equal(out?.verdict, 'slow', '9.4 Gbit/s is below what 8 H100s per node need');
    const fast = await setup(nodes, { gbits: (rank) => (rank === 1 ? 12.46 : 25) }).check();
    assert.equal(fast?.verdict, 'fast');
    assert.equal(fast?.notice.severity, 'info');
    assert.deepEqual(fast?.lines, [
      'node 0 ↔ node 1: 12.5 Gbit/s',
      'node 0 ↔ node 2: 25.0 Gbit/s',
      'all-reduce skipped: nodes 0, 1, 2 have no torch',
    ]);
    assert.equal(
      fast?.notice.text,
      'GPU Rental: every node of demo reaches every other, and the slowest link carries 12.5 Gbit/s, enough for what the cluster costs ($31.20/h). Measured: node 0 ↔ node 1: 12.5 Gbit/s; node 0 ↔ node 2: 25.0 Gbit/s; all-reduce skipped: nodes 0, 1, 2 have no torch.',
    );
    // Every node ran the reach probe once with every address in rank order; node 0 received from 1, then from 2.
    const reach = t.calls.filter((c) => c.mode === 'reach');
    assert.deepEqual(
      reach.map((c) => [c.id, c.words.slice(1)]),
      [41, 42, 43].map((id, rank) => [id, [String(rank), '29400', '20', '10.0.0.1', '10.0.0.2', '10.0.0.3']]),
    );
    assert.deepEqual(
      t.calls.filter((c) => c.mode === 'recv' || c.mode === 'send').map((c) => `${c.mode}@${c.id}`),
      ['recv@41', 'send@42', 'recv@41', 'send@43'],
    );
    assert.ok(
      t.calls.every((c) => c.timeoutMs > 0 && c.timeoutMs <= 120_000 && c.signal === t.controller.signal),
      'every remote command has a timeout and the cancel signal',
    );
  });

  it('names a pair that cannot connect by rank and address, and measures nothing', async () => {
    const t = setup([node(41), node(42), node(43)], {
      reach: (id, peers) => tag(peers.map((p) => (id === 42 && p === 2 ? `reach ${p} etimedout` : `reach ${p} ok`))),
    });
    const out = await t.check();
    assert.equal(out?.verdict, 'failed');
    assert.equal(out?.notice.severity, 'error');
    assert.deepEqual(out?.lines, ['node 1 (10.0.0.2) cannot reach node 2 (10.0.0.3)']);
    assert.match(
      out!.notice.text,
      /^GPU Rental: 1 of the 6 connections between the nodes of demo failed: node 1 \(10\.0\.0\.2\) cannot reach node 2/,
    );
    assert.match(out!.notice.text, /would hang/);
    assert.equal(t.calls.filter((c) => c.mode === 'recv' || c.mode === 'send').length, 0);
    assert.ok(t.logger.lines.some((l) => l.includes('rank 1 -> rank 2 (10.0.0.3:29400): etimedout')));
  });

  it('names a node that cannot listen, and counts a peer without an answer as unreachable', async () => {
    const out = await setup([node(41), node(42)], {
      reach: (id) => (id === 41 ? tag(['listen-failed eaddrinuse']) : tag(['reach 0 ok'])),
    }).check();
    assert.equal(out?.verdict, 'failed');
    assert.deepEqual(out?.lines, [
      'node 0 (10.0.0.1) could not listen on port 29400; another program may hold it',
      'node 0 (10.0.0.1) cannot reach node 1 (10.0.0.2)',
    ]);
  });

  it('says plainly when the slowest link is too slow for 8 data-centre GPUs per node, with what the cluster costs', async () => {
    const out = await setup([node(41), node(42), node(43)], { gbits: (rank) => (rank === 2 ? 0.8 : 9.9) }).check();
    assert.equal(out?.verdict, 'slow');
    assert.equal(out?.notice.severity, 'warning');
    assert.equal(
      out?.notice.text,
      'GPU Rental: the slowest link (node 0 ↔ node 2) carries 0.8 Gbit/s, below the 10 Gbit/s that nodes with 8 data-centre GPUs need; their gradients will wait on the network, and the cluster costs $31.20/h. Consider a cluster whose machines share a faster network. Measured: node 0 ↔ node 1: 9.9 Gbit/s; node 0 ↔ node 2: 0.8 Gbit/s; all-reduce skipped: nodes 0, 1, 2 have no torch.',
    );
  });

  it('holds nodes of one consumer GPU to 1 Gbit/s: 2 Gbit/s passes, 0.5 Gbit/s does not', async () => {
    const small = [
      node(41, { gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.4 }),
      node(42, { gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.45 }),
    ];
    assert.deepEqual(requiredGbits(small), { gbits: 1 });
    assert.deepEqual(requiredGbits([node(41, { num_gpus: 1 })]), { gbits: 1 }, 'one H100 per node is held to the floor');
    assert.equal((await setup(small, { gbits: () => 2 }).check())?.verdict, 'fast');
    const slow = await setup(small, { gbits: () => 0.5 }).check();
    assert.equal(slow?.verdict, 'slow');
    assert.match(slow!.notice.text, /carries 0\.5 Gbit\/s, below the 1 Gbit\/s any multi-node job needs.*costs \$0\.850\/h/);
  });

  it('refuses a node without an address on eth0, by name, before any probe runs', async () => {
    const t = setup([node(41), node(42), node(43)], { eth0: (id) => (id === 43 ? '\n' : `10.0.0.${id - 40}\n`) });
    const out = await t.check();
    assert.equal(out?.verdict, 'failed');
    assert.match(
      out!.notice.text,
      /^GPU Rental: node 2 \(#43\) has no overlay address on eth0, so the nodes of demo cannot reach one another\./,
    );
    assert.deepEqual(
      t.calls.map((c) => c.mode),
      ['eth0', 'eth0', 'eth0'],
    );
  });

  it('names a link that could not be measured, with the lines measured before it', async () => {
    const nodes = [node(41), node(42), node(43)];
    const t = setup(nodes);
    const shell = t.deps.shell;
    const deps: PreflightDeps = {
      ...t.deps,
      shell: (instance, script, o) =>
        script.includes(' recv ') && script.trimEnd().endsWith(' 2 10.0.0.1')
          ? Promise.resolve(tag(['recv-failed timeout']))
          : shell(instance, script, o),
    };
    const out = await checkCluster(deps, { label: 'demo', nodes });
    assert.equal(out?.verdict, 'failed');
    assert.deepEqual(out?.lines, ['node 0 ↔ node 1: 12.5 Gbit/s']);
    assert.match(out!.notice.text, /^GPU Rental: the bandwidth of node 0 ↔ node 2 could not be measured \(recv-failed timeout, sent\)/);
  });

  it('a node alone has no network to check, and no ssh runs', async () => {
    const t = setup([node(41)]);
    const out = await t.check();
    assert.equal(out?.verdict, 'fast');
    assert.equal(out?.notice.text, 'GPU Rental: demo has one node, so there is no network between nodes to check.');
    assert.equal(t.calls.length, 0);
  });

  it("nodes without eth0 that share this machine's loopback (the simulator without root) are checked there, and the notice says so", async () => {
    const local = { ssh_host: '127.0.0.1' };
    const t = setup([node(41, local), node(42, local)], { eth0: () => '\n' });
    const out = await t.check();
    assert.equal(out?.verdict, 'fast');
    assert.deepEqual(t.calls.find((c) => c.mode === 'reach')?.words.slice(4), ['127.0.0.1', '127.0.0.2']);
    assert.match(out!.notice.text, /share this machine's loopback .* say nothing about a real network\.$/);
  });

  it('refuses a node that is not running, and a node without python3, by name', async () => {
    const stopped = setup([node(41), node(42, { actual_status: 'exited', intended_status: 'stopped' })]);
    const out = await stopped.check();
    assert.match(out!.notice.text, /node 1 \(#42\) is not running/);
    assert.equal(stopped.calls.length, 0);
    const bare = await setup([node(41), node(42)], { noPython: 42 }).check();
    assert.equal(bare?.verdict, 'failed');
    assert.match(bare!.notice.text, /needs python3 on every node, and node 1 \(#42\) has none/);
  });

  it('a cancel while the probe runs ends it and resolves nothing; no later step starts', async () => {
    const t = setup([node(41), node(42)], { hang: (c) => c.mode === 'reach' });
    const pending = t.check();
    while (t.calls.filter((c) => c.mode === 'reach').length < 2) await new Promise((r) => setImmediate(r));
    t.controller.abort();
    assert.equal(await pending, undefined);
    assert.deepEqual(
      t.calls.map((c) => c.mode),
      ['eth0', 'eth0', 'reach', 'reach'],
    );
  });

  it('refuses injected values: an address with shell words is no address, a port at or below 1000 is no port', async () => {
    const t = setup([node(41), node(42)], { eth0: (id) => (id === 42 ? '10.0.0.2; touch /tmp/owned\n' : '10.0.0.1\n') });
    const out = await t.check();
    assert.equal(out?.verdict, 'failed');
    assert.ok(t.calls.every((c) => !c.script.includes('owned')));
    await assert.rejects(
      checkCluster(t.deps, { label: 'demo', nodes: [node(41), node(42)] }, { port: 80 }),
      /cannot be the rendezvous port/,
    );
    // The probe's words are quoted for the shell, whatever they hold.
    assert.match(probeScript(['reach', "a'b"]), / reach 'a'\\''b'\n$/);
    // Lines that do not carry the probe's tag, or a shape it prints, are not answers.
    assert.deepEqual(parseProbe('Welcome!\nreach 1 ok\ngpu-rental-preflight reach 1 ok; rm\ngpu-rental-preflight reach 1 ok\n'), [
      { kind: 'reach', peer: 1, result: 'ok' },
    ]);
  });
});

describe('jobs/cluster: the check before the first job', () => {
  it('goes on without a question when the cluster is fast', async () => {
    const nodes = [node(41), node(42)];
    const t = setup(nodes);
    const ask = scriptedAsk([]);
    assert.equal(await preflightBeforeJob({ ...t.deps, ask }, { label: 'demo', nodes }), 'go');
    assert.equal(ask.asked.length, 0);
  });

  it('shows a slow cluster and starts the job only on Run Anyway', async () => {
    const nodes = [node(41), node(42)];
    const run = async (choose: string | undefined) => {
      const t = setup(nodes, { gbits: () => 0.8 });
      const ask = scriptedAsk([{ choose }]);
      const gate = await preflightBeforeJob({ ...t.deps, ask }, { label: 'demo', nodes });
      assert.match(ask.asked[0]!.text, /^GPU Rental: the slowest link \(node 0 ↔ node 1\) carries 0\.8 Gbit\/s/);
      assert.deepEqual(ask.asked[0]!.options, ['Run Anyway']);
      return gate;
    };
    assert.equal(await run('Run Anyway'), 'go');
    assert.equal(await run(undefined), undefined);
  });
});

describe('jobs/cluster: Run on Cluster waits on the check', () => {
  const runWith = async (gate: 'go' | undefined) => {
    const nodes = [node(41), node(42)];
    const order: string[] = [];
    const ask = scriptedAsk([
      { pick: 'torchrun (static rendezvous)' },
      { input: 'train.py' },
      { pick: 'Upload the workspace first' },
      { pick: 'Keep the cluster running' },
    ]);
    const deps: RunClusterDeps = {
      ask,
      memory: { uploadFirst: () => undefined, setUploadFirst: () => Promise.resolve() },
      upload: () => (order.push('upload'), Promise.resolve('/root/project')),
      uploadDestination: () => '/root/project',
      remoteFolder: '',
      shell: (instance) => Promise.resolve(`10.0.0.${instance.id - 40}\n`),
      start: () => (order.push('start'), Promise.resolve()),
      stop: () => Promise.resolve(true),
      newJobId: () => '20261126-152000-abcdef',
      logger: new MemoryLogger(),
      preflight: (cluster) => (order.push(`check ${cluster.label} after ${ask.asked.length} questions`), Promise.resolve(gate)),
    };
    const outcome = await runOnCluster(deps, { label: 'demo', nodes }, { workspaceDir: '/home/me/project' }, {});
    return { outcome, order };
  };

  it('checks the network after the questions and before the upload; a check not passed starts nothing', async () => {
    const stopped = await runWith(undefined);
    assert.equal(stopped.outcome, undefined);
    assert.deepEqual(stopped.order, ['check demo after 4 questions']);
    const went = await runWith('go');
    assert.equal(went.outcome?.kind, 'started');
    assert.deepEqual(went.order, ['check demo after 4 questions', 'upload', 'upload', 'start', 'start']);
  });
});
