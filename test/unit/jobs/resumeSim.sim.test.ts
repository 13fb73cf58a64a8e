// A resumable job in the simulator's containers, where a stop kills every process of the instance
// and the start-up script runs again on every start: the job is stopped with its instance, and comes
// back by itself through the resume hook that every rent's start-up script carries, from its newest
// checkpoint. Slow (sshd, containers): left out of test:fast.
import assert from 'node:assert/strict';
import { listJobs, readLog, startJob } from '../../../src/core/jobs/remoteJobs';
import { hasResumeHook } from '../../../src/core/jobs/resumeScripts';
import { jobRows } from '../../../src/core/jobs/rows';
import { newJobId } from '../../../src/core/jobs/scripts';
import { jobPhase } from '../../../src/core/jobs/status';
import { rentOnstart } from '../../../src/core/rent/flow';
import { runRemote } from '../../../src/core/ssh/remote';
import { containerSuite, eventually, instanceIn } from '../../support';
import { rentableOffers } from '../../support/client';

describe('jobs: a resumable job comes back by itself after a stop (simulator, containers)', function () {
  this.timeout(120_000);
  const kit = containerSuite('jobs-resume', { onstart: true, seed: 35 });

  it('stopped with its instance, resumed by the start-up hook from its newest checkpoint, and its row says "resumed ×1"', async () => {
    const plan = { image: 'ubuntu:22.04', disk: 8, label: 'resume' };
    const script = rentOnstart(plan, { enabled: false, minutes: 30, gpuThreshold: 5 }, kit.sim.url);
    assert.ok('onstart' in script && hasResumeHook(script.onstart), 'the rent carries the hook');
    const [offer] = await rentableOffers(kit.client);
    const { instanceId: id } = await kit.client.instances.create(offer!.id, {
      image: plan.image,
      disk: plan.disk,
      onstart: script.onstart,
    });
    let target = await kit.reach(id);
    assert.ok(hasResumeHook((await instanceIn(kit.client, id, 'running', 10_000)).onstart), "the instance record's onstart has it");

    assert.equal((await runRemote(target, 'mkdir -p run')).code, 0);
    const jobId = newJobId(Date.UTC(2026, 10, 26, 2, 0, 0), () => 0.5);
    await startJob(target, 'touch "ckpt/step 1"; echo epoch 1; sleep 300', {
      jobId,
      cwd: '~/run',
      label: 'train.py',
      stopAtEnd: false,
      resumable: {
        spec: { checkpointDir: 'ckpt', resumeCommand: 'echo resuming from {latest}; sleep 300', policy: { kind: 'wait' } },
        createCheckpointDir: true,
      },
    });
    await eventually(
      async () => (await listJobs(target)).find((s) => s.jobId === jobId && s.resume?.latest?.name === 'step 1'),
      'the first checkpoint',
      20_000,
    );

    await kit.client.instances.stop(id);
    await instanceIn(kit.client, id, 'stopped', 20_000);
    await kit.client.instances.start(id);
    target = await kit.reach(id);

    const resumed = await eventually(
      async () => (await listJobs(target)).find((s) => s.jobId === jobId && jobPhase(s) === 'running' && s.resume?.recoveryCount === 1),
      'the hook to resume the job',
      45_000,
    );
    const log = await eventually(async () => {
      const text = await readLog(target, jobId);
      return text.includes('resuming from') && text;
    }, 'the resume command to run');
    assert.equal(log, 'epoch 1\nGPU Rental: resumed (×1) from /root/run/ckpt/step 1\nresuming from /root/run/ckpt/step 1\n');
    assert.equal(resumed.resume?.recoveries[0]?.movedFrom, undefined);
    const [row] = jobRows(id, [resumed], [], true, Date.now());
    assert.match(row!.description, /^running .* · resumed ×1 · wait$/);
    await kit.client.instances.destroy(id);
  });
});
