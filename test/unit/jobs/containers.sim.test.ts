// Jobs in the simulator's containers, where an instance has its own /root and PID 1, stop and
// destroy kill its processes, and the instance key is only in PID 1's environment: the job folder is
// the real ~/.gpu-rental/jobs, a minimal image has no tmux, and stop-at-end runs on the instance itself.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JobFollower } from '../../../src/core/jobs/follower';
import { listJobs, readLog, startJob } from '../../../src/core/jobs/remoteJobs';
import { newJobId } from '../../../src/core/jobs/scripts';
import { jobPhase, stopStatusCode, type JobStatus } from '../../../src/core/jobs/status';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { containerPath, containerSuite, DEMO_KEY, eventually, instanceIn } from '../../support';

let seq = 0;
const jobId = () => newJobId(Date.UTC(2026, 10, 24, 1, 0, seq++), () => (seq % 36) / 36);

describe('jobs: in the simulator containers', function () {
  this.timeout(90_000);
  const kit = containerSuite('jobs-containers', { seed: 33 });
  const { sim, rent, reach } = kit;

  const ended = (target: SshTarget, id: string) =>
    eventually(async () => (await listJobs(target)).find((s) => s.jobId === id && jobPhase(s) !== 'running'), `job ${id} to end`, 20_000);

  it('a minimal image without tmux: setsid, in ~/.gpu-rental/jobs of the instance itself', async () => {
    const { id, target } = await rent({ image: 'vastai/base-image:minimal' });
    assert.notEqual((await runRemote(target, 'command -v tmux')).code, 0, 'no tmux on this image');
    const job = jobId();
    assert.equal(await startJob(target, 'echo "in $PWD as $(whoami)"', { jobId: job, cwd: '~', label: 'x', stopAtEnd: false }), 'setsid');
    const s = await ended(target, job);
    assert.equal(s.exitCode, 0);
    assert.equal(await readLog(target, job), 'in /root as root\n');
    assert.ok(existsSync(containerPath(sim, id, `/root/.gpu-rental/jobs/${job}/exit`)), "in the instance's own /root");
    // A folder as Upload Folder reports it, relative to the home folder.
    assert.equal((await runRemote(target, 'mkdir -p data/run')).code, 0);
    const relative = jobId();
    await startJob(target, 'pwd', { jobId: relative, cwd: 'data/run', label: 'x', stopAtEnd: false });
    await ended(target, relative);
    assert.equal(await readLog(target, relative), '/root/data/run\n');
    await kit.client.instances.destroy(id);
  });

  it("the job sees the container's variables (the rent's env) that its SSH session lacks, but never the instance key", async () => {
    const { id, target } = await rent({ env: { HF_TOKEN: 'hf_test_token' } });
    assert.equal((await runRemote(target, 'printenv HF_TOKEN || echo unset')).stdout, 'unset\n', 'not in the SSH session');
    const job = jobId();
    await startJob(target, 'echo "token=$HF_TOKEN id=$CONTAINER_ID key=${CONTAINER_API_KEY:-none}"', {
      jobId: job,
      cwd: '~',
      label: 'x',
      stopAtEnd: false,
    });
    await ended(target, job);
    assert.equal(await readLog(target, job), `token=hf_test_token id=${id} key=none\n`);
    await kit.client.instances.destroy(id);
  });

  it('stop at the end: the job stops its own instance with the key from PID 1, while nobody follows it', async () => {
    const { id, target } = await rent();
    assert.equal((await runRemote(target, 'printenv CONTAINER_API_KEY || echo none')).stdout, 'none\n', 'the ssh session has no key');
    const job = jobId();
    await startJob(target, 'echo trained; exit 0', { jobId: job, cwd: '~', label: 'x', stopAtEnd: true, baseUrl: sim.url });
    await instanceIn(kit.client, id, 'stopped', 20_000);
    // The folder stays on the instance's disk. The stop ends the container, often before the wrapper can write the answer down.
    const dir = containerPath(sim, id, `/root/.gpu-rental/jobs/${job}`);
    assert.ok(existsSync(join(dir, 'stop-asked')), 'it recorded that it asked');
    if (existsSync(join(dir, 'stop-answer'))) assert.equal(readFileSync(join(dir, 'stop-answer'), 'utf8'), 'HTTP 200\n');
    for (const f of ['cmd', 'run', 'log', 'stop-asked', 'api'])
      assert.doesNotMatch(readFileSync(join(dir, f), 'utf8'), new RegExp(DEMO_KEY));
    await kit.client.instances.start(id);
    const again = await reach(id);
    const s = (await listJobs(again)).find((j) => j.jobId === job)!;
    assert.equal(s.exitCode, 0);
    assert.ok(s.stopAtEnd);
    assert.ok(stopStatusCode(s) === undefined || stopStatusCode(s) === 200);
    await kit.client.instances.destroy(id);
  });

  it('an instance stopped mid-job: the job is killed with it, then reads "interrupted" with its log kept', async () => {
    const { id, target } = await rent();
    const job = jobId();
    await startJob(target, 'echo epoch 1; sleep 60; echo never', { jobId: job, cwd: '~', label: 'x', stopAtEnd: false });
    const chunks: Buffer[] = [];
    let end: JobStatus | undefined;
    let current = target;
    const follower = new JobFollower({
      target: () => Promise.resolve(current),
      jobId: job,
      onData: (c) => chunks.push(c),
      onEnd: (s) => (end = s),
      backoffMs: [200],
    });
    const following = follower.start();
    await eventually(() => Buffer.concat(chunks).toString() === 'epoch 1\n', 'the first line', 10_000);
    await kit.client.instances.stop(id);
    await instanceIn(kit.client, id, 'stopped', 15_000);
    await kit.client.instances.start(id);
    current = await reach(id);
    follower.poke();
    await following;
    assert.equal(end && jobPhase(end), 'interrupted');
    assert.equal(Buffer.concat(chunks).toString(), 'epoch 1\n', 'nothing twice after reconnecting');
    assert.equal(await readLog(current, job), 'epoch 1\n');
    await kit.client.instances.destroy(id);
  });
});
