// Run on Cluster's copy from rank 0 for real: nodes of one seeded cluster rented into an overlay
// through the simulator's API, each a container with its own sshd and eth0; the workspace uploaded
// once, to rank 0, by Upload Folder's flow, and pulled by the other nodes from an rsync daemon on
// rank 0 over the overlay, through the same ports Run on Cluster is wired with (wiring.ts). The
// other nodes get exactly the files the upload sent: not the ignored ones, not what rank 0 wrote
// itself, and a file of their own stays. No daemon or daemon folder is left on rank 0. A node
// without rsync gets its own upload instead.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Instance } from '../../../../src/core/api/instances';
import { InstancePoller } from '../../../../src/core/instances/poller';
import { uploadToCluster } from '../../../../src/core/jobs/cluster/fanout';
import { nodeProbeScript } from '../../../../src/core/jobs/cluster/fanoutScripts';
import { clusterRunDeps } from '../../../../src/core/jobs/cluster/wiring';
import { JobMemory } from '../../../../src/core/jobs/memory';
import type { UploadRequest } from '../../../../src/core/jobs/run';
import { runRemote } from '../../../../src/core/ssh/remote';
import { uploadedFiles } from '../../../../src/core/transfer/runner';
import { suggestedRemoteDir } from '../../../../src/core/transfer/upload';
import { containerSuite, MemoryLogger } from '../../../support';
import { clusterUpload, simCluster, skipWithoutCluster } from '../../../support/cluster';
import { scriptedAsk } from '../../../support/scriptedAsk';

const EXCLUDES = ['.git/', 'node_modules/'];

describe('jobs/cluster: the copy from rank 0 over real ssh and a real overlay', function () {
  this.timeout(90_000);
  skipWithoutCluster();
  const kit = containerSuite('fanout-sim', { seed: 43 });
  const sim = simCluster(kit);
  const sshTarget = sim.sshTarget;

  let dir: string;
  let poller: InstancePoller;
  const logger = new MemoryLogger();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rental-fanout-sim-'));
    const ws = join(dir, 'ws');
    const files: Array<[string, string]> = [
      ['train.py', 'print("train")\n'],
      ['sub/data.txt', 'data\n'],
      ['sub/deeper/more.txt', 'more\n'],
      ['-dash name.txt', 'odd\n'],
      ['.gitignore', 'secret.log\nbuild/\n'],
      ['secret.log', 'ignored\n'],
      ['build/out.bin', 'ignored\n'],
      ['node_modules/x.js', 'excluded\n'],
    ];
    for (const [path, text] of files) {
      mkdirSync(join(ws, path, '..'), { recursive: true });
      writeFileSync(join(ws, path), text);
    }
    logger.lines.length = 0;
    poller = new InstancePoller({ fetch: (signal) => kit.client.instances.list({ signal }), intervalMs: () => 250, logger });
    poller.setEnabled(true);
  });

  afterEach(async () => {
    poller?.dispose();
    await sim.destroyAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Rents one node per image of one cluster into the overlay `name`; the poller lists them; rank order. */
  async function rentCluster(name: string, images: readonly string[]): Promise<Instance[]> {
    const nodes = await sim.rent(name, images);
    await poller.refresh();
    return nodes;
  }

  /** The ports Run on Cluster is wired with, Upload Folder's flow counted. */
  function clusterDeps() {
    const uploads: number[] = [];
    const toNode = clusterUpload({ listed: () => poller.snapshot?.instances, sshTarget, logger, excludes: EXCLUDES });
    const upload = (instanceId: number, request: UploadRequest) => {
      uploads.push(instanceId);
      return toNode(instanceId, request);
    };
    const deps = clusterRunDeps({
      ask: scriptedAsk([]),
      memory: new JobMemory({ get: () => undefined, update: () => Promise.resolve() }),
      upload,
      uploadDestination: (localDir) => suggestedRemoteDir('/root', localDir),
      remoteFolder: '',
      sshTarget,
      jobs: { run: () => Promise.reject(new Error('no job here')), stop: () => Promise.resolve(false) },
      baseUrl: kit.sim.url,
      logger,
      fanout: { files: (localDir) => uploadedFiles(localDir, EXCLUDES) },
    });
    return { deps, uploads };
  }

  const sh = async (node: Instance, script: string) => {
    const result = await runRemote(await sshTarget(node), `bash -c '${script}'`, { timeoutMs: 30_000 });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  /** Every file and folder under /root/ws on the node, relative, sorted. */
  const tree = async (node: Instance) =>
    (await sh(node, 'cd /root/ws && find . -mindepth 1 | sort'))
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(2));

  const SENT = ['-dash name.txt', '.gitignore', 'sub', 'sub/data.txt', 'sub/deeper', 'sub/deeper/more.txt', 'train.py'];

  it('uploads once to rank 0; the other nodes pull exactly the sent files, keep their own, and no daemon stays', async () => {
    const nodes = await rentCluster('fanout-sim', ['ubuntu:22.04', 'ubuntu:22.04', 'ubuntu:22.04']);
    const [root, ...peers] = nodes as [Instance, ...Instance[]];
    // Rank 0 holds what a job wrote there before; each other node has a file of its own, and a stale listed file.
    await sh(root, 'mkdir -p /root/ws/sub && echo ckpt > /root/ws/sub/checkpoint.pt && echo log > /root/ws/rank0.log');
    for (const peer of peers)
      await sh(peer, 'mkdir -p /root/ws/sub && echo mine > /root/ws/peer-only.txt && echo stale > /root/ws/train.py');

    const { deps, uploads } = clusterDeps();
    const probes = await Promise.allSettled(nodes.map((n) => deps.shell(n, nodeProbeScript())));
    const results = await uploadToCluster(deps, nodes, { localDir: join(dir, 'ws'), remoteDir: '/root/ws', quiet: true }, probes);

    assert.deepEqual(results, [...nodes.map(() => ({ kind: 'uploaded', dir: '/root/ws' }))]);
    assert.deepEqual(uploads, [root.id], 'the workspace left this machine once, to rank 0');
    assert.deepEqual(await tree(root), [...SENT, 'rank0.log', 'sub/checkpoint.pt'].sort());
    for (const peer of peers) {
      assert.deepEqual(await tree(peer), [...SENT, 'peer-only.txt'].sort(), `#${peer.id} holds the sent files and its own`);
      assert.equal(await sh(peer, 'cat /root/ws/train.py /root/ws/peer-only.txt'), 'print("train")\nmine\n');
    }
    const left = await sh(
      root,
      'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null; echo; done | grep -c "rsync [-]-daemon" || true; ls -d /tmp/gpu-rental-fanout-* 2>/dev/null || true',
    );
    assert.equal(left, '0\n', 'no rsync daemon and no daemon folder is left on rank 0');
    assert.ok(!logger.lines.some((l) => /directly/.test(l)), logger.lines.join('\n'));
  });

  it('a node without rsync gets its own upload; the others still copy from rank 0', async () => {
    const nodes = await rentCluster('fanout-sim-minimal', ['ubuntu:22.04', 'ubuntu-minimal:22.04', 'ubuntu:22.04']);
    const { deps, uploads } = clusterDeps();
    const probes = await Promise.allSettled(nodes.map((n) => deps.shell(n, nodeProbeScript())));
    const results = await uploadToCluster(deps, nodes, { localDir: join(dir, 'ws'), remoteDir: '/root/ws', quiet: true }, probes);

    assert.deepEqual(results, [...nodes.map(() => ({ kind: 'uploaded', dir: '/root/ws' }))]);
    assert.deepEqual([...uploads].sort(), [nodes[0]!.id, nodes[1]!.id].sort(), 'rank 0 and the node without rsync got uploads');
    assert.deepEqual(await tree(nodes[2]!), SENT);
    assert.ok(logger.lines.some((l) => l.includes(`#${nodes[1]!.id} cannot copy from node 0 (no rsync or timeout)`)));
  });
});
