// Check Cluster Network's probe for real: the Python that runs on each node, in the network
// namespaces an overlay's nodes get (eth0 on a bridge of their own). Every pair of one overlay
// connects and node 0's link is measured; a node of another overlay is named as unreachable. The
// shell is the node's own bash (no ssh: what reaches the node is tested in the ssh suites).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { Instance } from '../../../src/core/api/instances';
import { checkCluster, type PreflightDeps } from '../../../src/core/jobs/cluster/preflight';
import { nodeNetwork, OverlayNet, overlayNetAvailable, type NetNode } from '../../marketplace/overlayNet';
import { MemoryLogger } from '../../support';

const notRoot = process.getuid?.() !== 0 ? 'not root: nodes share loopback' : undefined;
const noNet = notRoot ?? (overlayNetAvailable() ? undefined : 'no network namespaces here (ip, nsenter, unshare, or the kernel)');

const instance = (id: number) =>
  ({ id, gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.5, actual_status: 'running', intended_status: 'running' }) as unknown as Instance;

(noNet ? describe.skip : describe)(
  `marketplace: the cluster check's probe on real overlay nodes${noNet ? ` (skipped: ${noNet})` : ''}`,
  function () {
    // With torch on the nodes the check also all-reduces across them (importing torch takes seconds).
    this.timeout(40_000);
    let net: OverlayNet;
    beforeEach(() => (net = new OverlayNet()));
    afterEach(() => net.close());

    /** Runs each instance's scripts in its node, as ssh would, killed at the check's timeout. */
    function deps(nodes: ReadonlyMap<number, NetNode>): PreflightDeps {
      return {
        shell: (target, script, o) =>
          new Promise((resolve, reject) => {
            const [command = '', ...args] = net.command(nodes.get(target.id)!, ['/bin/bash', '-c', script]);
            const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
            const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('timed out'))), o.timeoutMs);
            child.once('close', () => (clearTimeout(timer), resolve(out)));
          }),
        logger: new MemoryLogger(),
      };
    }

    const attach = (name: string, overlay: string, address: string) =>
      net.attach(name, nodeNetwork({ name: overlay, subnet: '10.46.0.0/24', address }, name));

    it('connects every pair of one overlay and measures node 0 ↔ node 1; a node outside it is named', async () => {
      const a = attach('pa', 'pf-one', '10.46.0.1');
      const b = attach('pb', 'pf-one', '10.46.0.2');
      const c = attach('pc', 'pf-two', '10.46.0.3');
      const good = await checkCluster(
        deps(
          new Map([
            [1, a],
            [2, b],
          ]),
        ),
        { label: 'one', nodes: [instance(1), instance(2)] },
        { port: 29411, waitSeconds: 3, bytes: 8 * 1024 * 1024 },
      );
      assert.equal(good?.verdict, 'fast', good?.notice.text);
      assert.equal(good?.links.length, 1);
      assert.ok(good!.links[0]!.gbits > 0);
      assert.match(good!.lines[0]!, /^node 0 ↔ node 1: \d+\.\d Gbit\/s$/);

      const split = await checkCluster(
        deps(
          new Map([
            [1, a],
            [2, b],
            [3, c],
          ]),
        ),
        { label: 'split', nodes: [instance(1), instance(2), instance(3)] },
        { port: 29412, waitSeconds: 3 },
      );
      assert.equal(split?.verdict, 'failed');
      assert.deepEqual(split?.lines, [
        'node 0 (10.46.0.1) cannot reach node 2 (10.46.0.3)',
        'node 1 (10.46.0.2) cannot reach node 2 (10.46.0.3)',
        'node 2 (10.46.0.3) cannot reach node 0 (10.46.0.1)',
        'node 2 (10.46.0.3) cannot reach node 1 (10.46.0.2)',
      ]);
    });
  },
);
