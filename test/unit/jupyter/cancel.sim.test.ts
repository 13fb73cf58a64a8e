// Cancel on Open Jupyter, pressed through the one Progress port while the servers are listed over
// ssh: the lookup ends, its ssh process is ended, nothing is forwarded and nothing more is said.
// ssh is a stand-in that connects and never finishes (test/support/slowSsh.ts).
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { findJupyter } from '../../../src/core/jupyter/find';
import { reachJupyter, type ReachJupyterDeps } from '../../../src/core/jupyter/open';
import type { PortForward } from '../../../src/core/ssh/forward';
import { MemoryLogger, tempDirForSuite } from '../../support';
import { scriptedProgress } from '../../support/scriptedProgress';
import { slowSsh } from '../../support/slowSsh';

const INSTANCE = {
  id: 3,
  label: 'nb',
  gpu_name: 'RTX 4090',
  num_gpus: 1,
  actual_status: 'running',
  intended_status: 'running',
  jupyter_token: 'tok',
} as unknown as Instance;

describe('jupyter: Cancel on Open Jupyter (ssh stand-in)', function () {
  this.timeout(30_000);
  const dir = tempDirForSuite('gpu-rental-jupyter-cancel-');

  it('ends the lookup and its ssh; forwards nothing and says nothing', async () => {
    const ssh = await slowSsh(dir());
    const progress = scriptedProgress({ once: ssh.started });
    const forwarded: PortForward[] = [];
    let startedForwards = 0;
    const deps: ReachJupyterDeps = {
      show: () => Promise.resolve(INSTANCE),
      sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: `gpu-rental-${i.id}`, args: [] }),
      progress,
      lookup: (target, token, signal) => findJupyter(target, token, { signal, ssh: ssh.path }),
      forwards: { find: () => undefined, add: (f) => void forwarded.push(f) },
      startForward: () => {
        startedForwards++;
        return Promise.reject(new Error('no forward after a Cancel'));
      },
      status: () => Promise.resolve(200),
      logger: new MemoryLogger(),
    };
    const reached = await reachJupyter(deps, INSTANCE);
    assert.ok(progress.cancelled(), 'the scripted user pressed Cancel');
    assert.deepEqual(reached, { kind: 'cancelled' }, 'no notice and no question: the user knows they cancelled');
    await ssh.gone(await ssh.started);
    assert.deepEqual(
      progress.shown.map((p) => [p.title, p.cancellable, p.ended]),
      [['looking for Jupyter on "nb" (RTX 4090, #3)', true, 'rejected']],
    );
    assert.equal(startedForwards, 0);
    assert.deepEqual(forwarded, []);
  });
});
