// Check Cluster Network's all-reduce for real: 2 nodes of one seeded cluster rented into an overlay
// through the simulator's API (each a container with its own sshd and eth0), the check run over
// real ssh as the command runs it, and Debian's torch (python3-torch) all-reducing with gloo across
// them. Nothing the check started is left on a node afterwards, and a Cancel while rank 0 waits
// for a peer ends it on the node at once rather than at its timeout.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import { checkCluster, type PreflightDeps } from '../../../../src/core/jobs/cluster/preflight';
import { bashCommand } from '../../../../src/core/shell';
import { silentProgress } from '../../../../src/core/progress';
import { runRemote } from '../../../../src/core/ssh/remote';
import { containerSuite, eventually, MemoryLogger } from '../../../support';
import { simCluster, skipWithoutCluster } from '../../../support/cluster';

describe('jobs/cluster: Check Cluster Network all-reduces with torch on simulated nodes', function () {
  this.timeout(90_000);
  skipWithoutCluster('torch');
  const kit = containerSuite('preflight-allreduce', { seed: 41 });
  const sim = simCluster(kit);
  let nodes: Instance[] = [];

  before(async function () {
    nodes = await sim.rent('pf-allreduce', ['ubuntu:22.04', 'ubuntu:22.04'], { oneGpu: true });
  });

  after(() => sim.destroyAll());

  /** The check's shell as the command wires it: bash over ssh, a non-zero exit an error. */
  const shell: PreflightDeps['shell'] = async (instance, script, o) => {
    const result = await runRemote(await sim.sshTarget(instance), bashCommand(script), o);
    if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
    return result.stdout;
  };

  /** The names of the processes that run on the node now (its own PID namespace), other than the session's. */
  async function processes(node: Instance): Promise<string[]> {
    const out = await shell(node, 'for f in /proc/[0-9]*/comm; do cat "$f"; done 2>/dev/null\n', { timeoutMs: 15_000 });
    return out.split('\n').filter((name) => /python|torch|timeout/.test(name));
  }

  it('lists an all-reduce across both nodes with a positive Gbit/s, and leaves no python on the nodes', async () => {
    const logger = new MemoryLogger();
    const out = await checkCluster(
      { shell, logger },
      { label: 'pf-allreduce', nodes },
      { port: 29421, waitSeconds: 10, bytes: 8 * 1024 * 1024 },
    );
    assert.ok(out, 'not cancelled');
    assert.notEqual(out.verdict, 'failed', out.notice.text);
    assert.equal(out.allReduce?.kind, 'measured', out.notice.text);
    const line = out.lines.at(-1)!;
    const said = /^all-reduce across 2 nodes \(gloo\): (\d+\.\d) Gbit\/s$/.exec(line);
    assert.ok(said, line);
    assert.ok(out.allReduce.gbits > 0 && Number(said[1]) >= 0, line);
    for (const node of nodes) assert.deepEqual(await processes(node), [], `nothing the check started runs on #${node.id}`);
  });

  it('a Cancel while rank 0 waits for its peer ends rank 0 on its node at once, not at its timeout', async () => {
    const controller = new AbortController();
    const [first] = nodes as [Instance, Instance];
    const deps: PreflightDeps = {
      // Rank 1 never starts its all-reduce: rank 0 waits for it (30 s) until the Cancel.
      shell: (instance, script, o) => {
        const ours = script.includes(' gpu-rental-allreduce allreduce ');
        if (ours && instance.id !== first.id)
          return new Promise((_, reject) => o.signal?.addEventListener('abort', () => reject(new Error('Cancelled.')), { once: true }));
        return shell(instance, script, o);
      },
      logger: new MemoryLogger(),
      progress: silentProgress(controller.signal),
    };
    const pending = checkCluster(deps, { label: 'pf-allreduce', nodes }, { port: 29422, waitSeconds: 30, bytes: 8 * 1024 * 1024 });
    const pidFile = '/tmp/gpu-rental-allreduce-allreduce-29422-0.pid';
    await eventually(
      async () => (await shell(first, `test -f ${pidFile} && echo yes || true\n`, { timeoutMs: 15_000 })).includes('yes'),
      'rank 0 runs',
      60_000,
    );
    controller.abort();
    assert.equal(await pending, undefined);
    await eventually(async () => (await processes(first)).length === 0, "rank 0's all-reduce ends on its node", 10_000);
    assert.equal((await shell(first, `test -e ${pidFile} && echo left || true\n`, { timeoutMs: 15_000 })).trim(), '');
  });
});
