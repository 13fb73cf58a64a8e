// Cancel on Check Machine Health, pressed through the one Progress port while the script runs on
// the instance: the check ends, its ssh process is ended, nothing is said and no destroy is offered.
// ssh is a stand-in that connects and never finishes (test/support/slowSsh.ts).
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { checkHealth, type HealthDeps } from '../../../src/core/health/check';
import { silentLogger } from '../../../src/core/log';
import { runRemote } from '../../../src/core/ssh/remote';
import { tempDirForSuite } from '../../support';
import { scriptedAsk } from '../../support/scriptedAsk';
import { scriptedProgress } from '../../support/scriptedProgress';
import { slowSsh } from '../../support/slowSsh';

const INSTANCE = {
  id: 7,
  label: 'train',
  actual_status: 'running',
  intended_status: 'running',
  gpu_name: 'H100 SXM',
  num_gpus: 1,
  start_date: 1_000_000,
  dph_total: 2.4,
} as Instance;

describe('health: Cancel on Check Machine Health (ssh stand-in)', function () {
  this.timeout(30_000);
  const dir = tempDirForSuite('gpu-rental-health-cancel-');

  it('ends the check and the ssh running its script; says nothing, asks nothing, destroys nothing', async () => {
    const ssh = await slowSsh(dir());
    const progress = scriptedProgress({ once: ssh.started });
    const ask = scriptedAsk([]);
    const destroyed: number[] = [];
    const deps: HealthDeps = {
      ask,
      instances: {
        show: () => Promise.resolve(INSTANCE),
        destroy: (id: number) => (destroyed.push(id), Promise.resolve()),
        stop: () => Promise.reject(new Error('not asked')),
      } as unknown as HealthDeps['instances'],
      sshTarget: () => Promise.resolve({ instanceId: 7, alias: 'gpu-rental-7', args: [] }),
      run: (target, script, timeoutMs, signal) => runRemote(target, script, { timeoutMs, signal, ssh: ssh.path }),
      progress,
      now: () => Date.now(),
      logger: silentLogger,
    };
    const end = await checkHealth(deps, INSTANCE);
    assert.ok(progress.cancelled(), 'the scripted user pressed Cancel');
    assert.deepEqual(end, { kind: 'cancelled' }, 'no notice: the user knows they cancelled');
    await ssh.gone(await ssh.started);
    assert.deepEqual(
      progress.shown.map((p) => [p.title, p.cancellable, p.ended]),
      [['checking the GPUs and disk of "train" (H100 SXM, #7)…', true, 'rejected']],
    );
    assert.deepEqual(ask.asked, [], 'no destroy is offered');
    assert.deepEqual(destroyed, []);
  });
});
