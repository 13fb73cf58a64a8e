// Check Cluster Network's all-reduce: when every node imports torch, torch.distributed all-reduces
// across the nodes and its bus bandwidth is one more line of the result, which the verdict weighs
// with the slowest link; a node without torch skips it with a line, never a failure; a Cancel
// stops the processes on the nodes. ssh is a fake that answers per node and per mode as the
// programs print; the programs run for real in preflightAllReduceSim.test.ts.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import RUN from '../../../../src/core/jobs/cluster/remote/allreduce-run.sh';
import { shellQuote } from '../../../../src/core/shell';
import { checkCluster, type PreflightDeps } from '../../../../src/core/jobs/cluster/preflight';
import { silentProgress } from '../../../../src/core/progress';
import {
  ALLREDUCE_PROGRAM,
  allReduceScript,
  busGbits,
  parseAllReduce,
  stopScript,
  torchCheckScript,
} from '../../../../src/core/jobs/cluster/preflightAllReduce';
import { MemoryLogger } from '../../../support';

const node = (id: number, fields: Partial<Instance> = {}) =>
  ({
    id,
    label: `demo-node${id - 40}`,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    dph_total: 0.5,
    actual_status: 'running',
    intended_status: 'running',
    ssh_host: `ssh${id}.example.net`,
    ...fields,
  }) as unknown as Instance;
const h100 = (id: number) => node(id, { gpu_name: 'H100 SXM', num_gpus: 8, dph_total: 10.4 });

const LINK_BYTES = 64 * 1024 * 1024;
const TENSOR = 16 * 1024 * 1024;
/** What the receiver prints for a link of `gbits`. */
const linkSeconds = (gbits: number) => ((LINK_BYTES * 8) / 1e9 / gbits).toFixed(6);
/** The seconds 5 all-reduces of 16 MiB across `n` nodes take at a bus bandwidth of `gbits`. */
const allReduceSeconds = (gbits: number, n: number) => ((5 * TENSOR * 8 * ((2 * (n - 1)) / n)) / (gbits * 1e9)).toFixed(6);

interface Call {
  readonly id: number;
  /** eth0, reach, recv, send, torch, allreduce or stop. */
  readonly mode: string;
  readonly words: string[];
  readonly script: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

interface Fake {
  /** The backend node `id`'s torch would use; undefined: it has no torch (default gloo). */
  torch?: (id: number) => 'nccl' | 'gloo' | undefined;
  /** What rank `rank` prints for the all-reduce (default: rank 0 measures 4 Gbit/s of bus bandwidth). */
  allReduce?: (rank: number, n: number, backend: string) => string;
  /** Every link's Gbit/s (default 25). */
  linkGbits?: number;
  /** A call that never resolves until aborted. */
  hang?: (call: Call) => boolean;
}

const tag = (lines: string[]) => lines.map((l) => `gpu-rental-preflight ${l}\n`).join('');

function modeOf(script: string): { mode: string; words: string[] } {
  if (script.includes('kill -TERM')) return { mode: 'stop', words: [] };
  const ours = /^set -- gpu-rental-allreduce (torch|allreduce) (.*)$/m.exec(script);
  if (ours) return { mode: ours[1]!, words: ours[2]!.split(' ') };
  if (!script.includes('exec python3 -c')) return { mode: 'eth0', words: [] };
  const words = script.trimEnd().split('\n').pop()!.slice(2).split(' ');
  return { mode: words[0]!, words };
}

function setup(nodes: Instance[], fake: Fake = {}) {
  const calls: Call[] = [];
  const logger = new MemoryLogger();
  const controller = new AbortController();
  const n = nodes.length;
  const deps: PreflightDeps = {
    shell: (instance, script, o) => {
      const call: Call = { id: instance.id, ...modeOf(script), script, timeoutMs: o.timeoutMs, signal: o.signal };
      calls.push(call);
      if (fake.hang?.(call))
        return new Promise((_, reject) => o.signal?.addEventListener('abort', () => reject(new Error('Cancelled.')), { once: true }));
      const rank = nodes.indexOf(instance);
      const peers = nodes.map((_, r) => r).filter((r) => r !== rank);
      const answer: Record<string, () => string> = {
        eth0: () => `10.0.0.${rank + 1}\n`,
        reach: () => tag(peers.map((p) => `reach ${p} ok`)),
        recv: () => tag([`recv ${LINK_BYTES} ${linkSeconds(fake.linkGbits ?? 25)}`]),
        send: () => tag([`sent ${LINK_BYTES}`]),
        torch: () => {
          const backend = fake.torch ? fake.torch(instance.id) : 'gloo';
          return tag([backend ? `torch ${backend}` : 'no-torch']);
        },
        allreduce: () =>
          fake.allReduce
            ? fake.allReduce(rank, n, call.words[5]!)
            : tag([`allreduce ${TENSOR} 5 ${allReduceSeconds(4, n)} ${call.words[5]}`]),
        stop: () => '',
      };
      return Promise.resolve(answer[call.mode]!());
    },
    logger,
    progress: silentProgress(controller.signal),
  };
  return { deps, calls, logger, controller, check: () => checkCluster(deps, { label: 'demo', nodes }) };
}

describe('jobs/cluster: Check Cluster Network, the all-reduce', () => {
  it('all-reduces across 3 nodes after the links and lists its bus bandwidth as one more line; the verdict names both figures', async () => {
    const t = setup([node(41), node(42), node(43)]);
    const out = await t.check();
    assert.equal(out?.verdict, 'fast', out?.notice.text);
    assert.deepEqual(out?.lines, [
      'node 0 ↔ node 1: 25.0 Gbit/s',
      'node 0 ↔ node 2: 25.0 Gbit/s',
      'all-reduce across 3 nodes (gloo): 4.0 Gbit/s',
    ]);
    assert.equal(
      out?.notice.text,
      'GPU Rental: every node of demo reaches every other, the slowest link carries 25.0 Gbit/s and an all-reduce across the nodes 4.0 Gbit/s, enough for what the cluster costs ($1.50/h). Measured: node 0 ↔ node 1: 25.0 Gbit/s; node 0 ↔ node 2: 25.0 Gbit/s; all-reduce across 3 nodes (gloo): 4.0 Gbit/s.',
    );
    assert.equal(out?.allReduce?.kind, 'measured');
    // The torch check on every node, then one all-reduce process per node: rank, world, rank 0's overlay address and the probe's port.
    assert.deepEqual(
      t.calls.filter((c) => c.mode === 'torch' || c.mode === 'allreduce').map((c) => `${c.mode}@${c.id}`),
      ['torch@41', 'torch@42', 'torch@43', 'allreduce@41', 'allreduce@42', 'allreduce@43'],
    );
    assert.deepEqual(
      t.calls.filter((c) => c.mode === 'allreduce').map((c) => c.words.slice(1, 7)),
      [0, 1, 2].map((rank) => [String(rank), '3', '10.0.0.1', '29400', 'gloo', String(TENSOR)]),
    );
    assert.ok(
      t.calls.every((c) => c.timeoutMs > 0 && c.timeoutMs <= 120_000 && c.signal === t.controller.signal),
      'every remote command has a timeout and the cancel signal',
    );
    assert.equal(t.calls.filter((c) => c.mode === 'stop').length, 0, 'nothing to stop: every process ended');
    assert.ok(t.logger.lines.some((l) => l.includes('all-reduce across 3 nodes (gloo): 4.0 Gbit/s')));
  });

  it('uses nccl only when every node has CUDA; one node without it makes every rank use gloo', async () => {
    const backends = async (torch: (id: number) => 'nccl' | 'gloo') => {
      const t = setup([node(41), node(42)], { torch });
      const out = await t.check();
      return { words: t.calls.filter((c) => c.mode === 'allreduce').map((c) => c.words[5]), line: out?.lines.at(-1) };
    };
    assert.deepEqual(await backends(() => 'nccl'), { words: ['nccl', 'nccl'], line: 'all-reduce across 2 nodes (nccl): 4.0 Gbit/s' });
    assert.deepEqual(await backends((id) => (id === 42 ? 'gloo' : 'nccl')), {
      words: ['gloo', 'gloo'],
      line: 'all-reduce across 2 nodes (gloo): 4.0 Gbit/s',
    });
  });

  it('is slow when the all-reduce is below what the nodes need even though every link passes', async () => {
    const nodes = [h100(41), h100(42)];
    const out = await setup(nodes, { linkGbits: 25 }).check();
    assert.equal(out?.verdict, 'slow');
    assert.equal(out?.notice.severity, 'warning');
    assert.equal(
      out?.notice.text,
      'GPU Rental: an all-reduce across the nodes (gloo) carries 4.0 Gbit/s, below the 10 Gbit/s that nodes with 8 data-centre GPUs need, though each link alone is faster; their gradients will wait on the network, and the cluster costs $20.80/h. Consider a cluster whose machines share a faster network. Measured: node 0 ↔ node 1: 25.0 Gbit/s; all-reduce across 2 nodes (gloo): 4.0 Gbit/s.',
    );
    // A link below the need is named first, whatever the all-reduce did.
    const link = await setup(nodes, {
      linkGbits: 5,
      allReduce: (_rank, n) => tag([`allreduce ${TENSOR} 5 ${allReduceSeconds(40, n)} gloo`]),
    }).check();
    assert.equal(link?.verdict, 'slow');
    assert.match(link!.notice.text, /^GPU Rental: the slowest link \(node 0 ↔ node 1\) carries 5\.0 Gbit\/s, below the 10 Gbit\/s/);
    // Both above the need: fast.
    const fast = await setup(nodes, { allReduce: (_rank, n) => tag([`allreduce ${TENSOR} 5 ${allReduceSeconds(12, n)} gloo`]) }).check();
    assert.equal(fast?.verdict, 'fast');
  });

  it('skips the all-reduce with a line when a node has no torch, never failing the check, and starts no all-reduce', async () => {
    const t = setup([node(41), node(42), node(43)], { torch: (id) => (id === 42 ? undefined : 'gloo') });
    const out = await t.check();
    assert.equal(out?.verdict, 'fast');
    assert.equal(out?.notice.severity, 'info');
    assert.equal(out?.lines.at(-1), 'all-reduce skipped: node 1 has no torch');
    assert.deepEqual(out?.allReduce, { kind: 'skipped', ranks: [1] });
    assert.match(out!.notice.text, /^GPU Rental: every node of demo reaches every other, and the slowest link carries 25\.0 Gbit\/s/);
    assert.equal(t.calls.filter((c) => c.mode === 'allreduce').length, 0);
    const none = await setup([node(41), node(42), node(43)], { torch: (id) => (id === 42 ? 'gloo' : undefined) }).check();
    assert.equal(none?.lines.at(-1), 'all-reduce skipped: nodes 0, 2 have no torch');
  });

  it('fails the check when the all-reduce did not finish, with why, since a job would hang there too', async () => {
    const out = await setup([node(41), node(42)], {
      allReduce: (rank) => (rank === 0 ? tag(['allreduce-failed timeout']) : ''),
    }).check();
    assert.equal(out?.verdict, 'failed');
    assert.equal(out?.lines.at(-1), 'all-reduce across 2 nodes (gloo) did not finish: timeout');
    assert.match(
      out!.notice.text,
      /^GPU Rental: every node of demo reaches every other, but an all-reduce across them with torch\.distributed \(gloo\) did not finish \(timeout\)\. A job across these nodes may hang/,
    );
  });

  it('a cancel during the all-reduce resolves nothing and stops its processes on every node', async () => {
    const t = setup([node(41), node(42)], { hang: (c) => c.mode === 'allreduce' });
    const pending = t.check();
    while (t.calls.filter((c) => c.mode === 'allreduce').length < 2) await new Promise((r) => setImmediate(r));
    t.controller.abort();
    assert.equal(await pending, undefined);
    const stops = t.calls.filter((c) => c.mode === 'stop');
    assert.deepEqual(
      stops.map((c) => c.id),
      [41, 42],
    );
    assert.deepEqual(
      stops.map((c) => c.script),
      [stopScript(29400, 0), stopScript(29400, 1)],
    );
    assert.ok(
      stops.every((c) => c.signal === undefined && c.timeoutMs <= 15_000),
      'the stop is not cancelled with the check, and has its own timeout',
    );
    assert.match(stopScript(29400, 1), /\/tmp\/gpu-rental-allreduce-allreduce-29400-1\.pid/);
  });
});

describe('jobs/cluster: the all-reduce scripts', () => {
  const run = { world: 2, master: '10.0.0.1', port: 29431, backend: 'nccl' as const, bytes: TENSOR, wait: 20, iface: 'eth0' };
  const golden = (rank: number) =>
    [
      'export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0',
      `f=/tmp/gpu-rental-allreduce-allreduce-29431-${rank}.pid limit=85 prog=${shellQuote(ALLREDUCE_PROGRAM)}`,
      `set -- gpu-rental-allreduce allreduce 80 ${rank} 2 10.0.0.1 29431 nccl 16777216 2 5 20`,
      // The static part (remote/allreduce-run.sh): python3 -c "$prog" "$@" under `timeout -k 5 $limit`, its pid in $f.
      RUN,
    ].join('\n');

  it('rank 0 and rank 1 run the same program on rank 0’s address and port, each with its rank, under a hard timeout', () => {
    assert.equal(allReduceScript({ ...run, rank: 0 }), golden(0));
    assert.equal(allReduceScript({ ...run, rank: 1 }), golden(1));
    // The program: an alarm first, a static rendezvous on rank 0, the slowest rank's time.
    const lines = ALLREDUCE_PROGRAM.split('\n');
    assert.ok(lines.indexOf('signal.alarm(limit)') < lines.findIndex((l) => l.includes('import torch')));
    assert.match(ALLREDUCE_PROGRAM, /init_method='tcp:\/\/%s:%d' % \(addr, port\), rank=rank, world_size=world,/);
    assert.match(ALLREDUCE_PROGRAM, /timeout=datetime\.timedelta\(seconds=wait\)/);
    assert.match(ALLREDUCE_PROGRAM, /dist\.all_reduce\(took, op=dist\.ReduceOp\.MAX\)/);
    // The torch check has its own timeout and pid file.
    assert.match(
      torchCheckScript(29431, 1),
      /^f=\/tmp\/gpu-rental-allreduce-torch-29431-1\.pid limit=65 prog='.*'\nset -- gpu-rental-allreduce torch 60\n/s,
    );
    assert.match(RUN, /t="timeout -k 5 \$limit"\n\$t python3 -c "\$prog" "\$@" <\/dev\/null &\n/);
  });

  it('takes the bus bandwidth as nccl-tests define it: algbw × 2(n − 1)/n', () => {
    assert.equal(busGbits(1e9, 1, 1, 2), 8, '2 nodes: busbw = algbw');
    assert.equal(busGbits(1e9, 2, 2, 4), 12, '4 nodes: × 1.5');
    assert.ok(Math.abs(busGbits(TENSOR, 5, Number(allReduceSeconds(4, 3)), 3) - 4) < 1e-3);
  });

  it('reads only tagged lines of a known shape', () => {
    assert.deepEqual(
      parseAllReduce(
        'Welcome!\nallreduce 1 1 1.0 gloo\ngpu-rental-preflight allreduce 16777216 5 0.5 gloo; rm\ngpu-rental-preflight torch nccl\ngpu-rental-preflight allreduce-failed RuntimeError\ngpu-rental-preflight allreduce 16777216 5 0.500000 gloo\n',
      ),
      [
        { kind: 'torch', backend: 'nccl' },
        { kind: 'allreduce', bytes: TENSOR, iterations: 5, seconds: 0.5, backend: 'gloo' },
      ],
    );
  });
});
