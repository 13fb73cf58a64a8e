// Jobs over real ssh: the simulator's sshd per instance, the wrapper in real bash. Every job
// folder lives in a fresh temporary folder (jobsDir), never in a home folder.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { sshEndpoint } from '../../../src/core/instances/ssh';
import { JobFollower } from '../../../src/core/jobs/follower';
import { JobMissing, listJobs, readLog, startJob, stopJob } from '../../../src/core/jobs/remoteJobs';
import { newJobId, startScript } from '../../../src/core/jobs/scripts';
import { jobPhase, type JobStatus } from '../../../src/core/jobs/status';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { waitForSshBanner } from '../../../src/core/ssh/probe';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, eventually, instanceIn, simulatorForSuite, tempDirForSuite } from '../../support';

let seq = 0;
/** Job ids made from a counter: tests never use Math.random. */
const jobId = () => newJobId(Date.UTC(2026, 10, 24, 0, 0, seq++), () => (seq % 36) / 36);

/** Waits for the job's status to satisfy `done`. */
function until(target: SshTarget, id: string, jobsDir: string, done: (s: JobStatus) => boolean, what: string): Promise<JobStatus> {
  return eventually(async () => (await listJobs(target, { jobsDir })).find((s) => s.jobId === id && done(s)), what, 15_000);
}

(sshdAvailable() && process.getuid?.() === 0 ? describe : describe.skip)('jobs: run detached on an instance over ssh', function () {
  this.timeout(60_000);
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2, seed: 31 });
  const home = tempDirForSuite('gpu-rental-jobs-test-');
  let client: GpuRentalClient;
  let target: SshTarget;
  let instanceId: number;
  let jobsDir: string;

  before(async () => {
    ({ client } = clientFor(sim.url, DEMO_KEY));
    const key = await generateKey(join(home(), 'key'), 'jobs');
    await client.sshKeys.create(key.publicKey);
    const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    instanceId = (await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
    const running = await instanceIn(client, instanceId, 'running', 10_000);
    const at = sshEndpoint(running)!;
    await waitForSshBanner(at.host, at.port, { timeoutMs: 10_000, intervalMs: 50 });
    target = {
      instanceId,
      alias: `root@${at.host}`,
      args: ['-i', key.privateKeyPath, '-p', String(at.port), '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=no'],
    };
    target = { ...target, args: [...target.args, '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'] };
    jobsDir = join(home(), 'jobs');
  });

  it('runs a command with quotes, $(...) and newlines exactly as typed, in tmux, and records its exit code', async () => {
    const id = jobId();
    const command = `echo "it's \\"quoted\\""; echo '$(not run)' "$(echo ran)"\nprintf 'second line\\n'\nexit 3`;
    assert.equal(await startJob(target, command, { jobId: id, cwd: jobsDir, label: 'quoting', stopAtEnd: false, jobsDir }), 'tmux');
    const s = await until(target, id, jobsDir, (s) => jobPhase(s) === 'exited', 'the job to end');
    assert.equal(s.exitCode, 3);
    assert.equal(s.label, 'quoting');
    assert.equal((await runRemote(target, `cat ${jobsDir}/${id}/cmd`)).stdout, command, 'the command file holds exactly what was typed');
    assert.equal(await readLog(target, id, 0, { jobsDir }), `it's "quoted"\n$(not run) ran\nsecond line\n`);
  });

  it('a start retried after a lost connection never starts the job twice', async () => {
    const id = jobId();
    // The first connection fails as ssh does (255); the retry goes through.
    const tries = join(home(), `tries-${id}`);
    const ssh = join(home(), `flaky-ssh-${id}`);
    writeFileSync(ssh, `#!/bin/sh\necho x >>${tries}\n[ "$(wc -l <${tries})" -gt 1 ] || exit 255\nexec ssh "$@"\n`, { mode: 0o755 });
    const options = { jobId: id, cwd: jobsDir, label: 'x', stopAtEnd: false, jobsDir, retryDelaysMs: [50] };
    await startJob(target, 'echo once', { ...options, ssh });
    assert.equal(readFileSync(tries, 'utf8'), 'x\nx\n');
    // The same start again (its answer lost on the way back): it is not started a second time.
    assert.equal(await startJob(target, 'echo once', options), 'setsid');
    await until(target, id, jobsDir, (s) => jobPhase(s) === 'exited', 'the job to end');
    assert.equal(await readLog(target, id, 0, { jobsDir }), 'once\n');
  });

  it('without tmux: setsid, output in the log, and the job survives the ssh session that started it', async () => {
    const id = jobId();
    await startJob(target, 'sleep 4; echo done in $PWD; exit 0', {
      jobId: id,
      cwd: jobsDir,
      label: 'x',
      stopAtEnd: false,
      forceSetsid: true,
      jobsDir,
    });
    // Four seconds: the list must see it running even on a loaded machine (one second was not always enough).
    const running = (await listJobs(target, { jobsDir })).find((s) => s.jobId === id)!;
    assert.equal(jobPhase(running), 'running');
    const s = await until(target, id, jobsDir, (s) => jobPhase(s) === 'exited', 'the job to end');
    assert.equal(s.exitCode, 0);
    assert.equal(await readLog(target, id, 0, { jobsDir }), `done in ${jobsDir}\n`);
  });

  it('a command that exits at once: its output and exit code are there right away; a missing folder says so', async () => {
    const id = jobId();
    await startJob(target, 'echo "no such file: data.csv" >&2; exit 2', { jobId: id, cwd: jobsDir, label: 'x', stopAtEnd: false, jobsDir });
    const s = await until(target, id, jobsDir, (s) => jobPhase(s) === 'exited', 'the job to end');
    assert.equal(s.exitCode, 2);
    assert.equal(await readLog(target, id, 0, { jobsDir }), 'no such file: data.csv\n');

    const lost = jobId();
    await startJob(target, 'echo never', { jobId: lost, cwd: join(jobsDir, 'not-there'), label: 'x', stopAtEnd: false, jobsDir });
    const l = await until(target, lost, jobsDir, (s) => jobPhase(s) === 'exited', 'the job to end');
    assert.equal(l.exitCode, 1);
    assert.match(await readLog(target, lost, 0, { jobsDir }), /the folder .*not-there does not exist on the instance/);
    await assert.rejects(readLog(target, 'no-such-job', 0, { jobsDir }), JobMissing);
  });

  it('Stop Job ends the command and what it started; the instance keeps running', async () => {
    const id = jobId();
    const marker = join(jobsDir, `child-${id}`);
    // A child of the command that would outlive a plain kill of its parent.
    await startJob(target, `(sleep 30; touch ${marker}) & echo started; sleep 30`, {
      jobId: id,
      cwd: jobsDir,
      label: 'x',
      stopAtEnd: true,
      baseUrl: sim.url,
      jobsDir,
    });
    await eventually(async () => (await readLog(target, id, 0, { jobsDir })) === 'started\n' || undefined, 'the job to print', 10_000);
    assert.equal(await stopJob(target, id, false, { jobsDir }), true);
    const s = await until(target, id, jobsDir, (s) => jobPhase(s) === 'exited' && !s.alive, 'the job to end');
    assert.equal(s.exitCode, 143, 'ended by SIGTERM');
    assert.equal(s.cancelled, 'keep');
    assert.match(s.stopAnswer ?? '', /not asked/);
    assert.equal((await client.instances.show(instanceId)).actual_status, 'running');
    assert.equal(await stopJob(target, id, false, { jobsDir }), false, 'stopping it again: it had ended');
    const group = await runRemote(target, `kill -0 -- -$(cat ${jobsDir}/${id}/pid) 2>/dev/null && echo alive || echo gone`);
    assert.equal(group.stdout, 'gone\n', 'no process of its group is left');
    assert.equal((await runRemote(target, `test -e ${marker} && echo made || echo none`)).stdout, 'none\n');
  });

  it('follows the log live from an offset, and after the connection drops resumes without a duplicated or lost line', async () => {
    const id = jobId();
    await startJob(target, 'for i in $(seq 1 30); do echo "line $i"; sleep 0.1; done; exit 5', {
      jobId: id,
      cwd: jobsDir,
      label: 'x',
      stopAtEnd: false,
      jobsDir,
    });
    const chunks: Buffer[] = [];
    let ended: JobStatus | undefined;
    let retries = 0;
    let drop = true;
    // ssh through a wrapper that notes its pid (exec keeps it), so the test can cut exactly that connection.
    const pids = join(home(), `ssh-pids-${id}`);
    const ssh = join(home(), `ssh-${id}`);
    writeFileSync(ssh, `#!/bin/sh\necho $$ >>${pids}\nexec ssh "$@"\n`, { mode: 0o755 });
    const follower = new JobFollower({
      ssh,
      target: () => Promise.resolve(target),
      jobId: id,
      jobsDir,
      onData: (c) => {
        chunks.push(c);
        // The first time a few lines came in, the connection drops (the ssh process dies, as on a lost network).
        if (drop && Buffer.concat(chunks).toString().includes('line 5\n')) {
          drop = false;
          const pid = readFileSync(pids, 'utf8').trim().split('\n').pop()!;
          process.kill(Number(pid), 'SIGKILL');
        }
      },
      onEnd: (s) => (ended = s),
      onRetry: () => retries++,
      backoffMs: [100],
    });
    await follower.start();
    assert.equal(ended?.exitCode, 5);
    assert.ok(retries >= 1, 'it reconnected');
    const expected = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join('');
    assert.equal(Buffer.concat(chunks).toString(), expected);
    assert.equal(follower.offset, Buffer.byteLength(expected));

    // The next day, from where it was: only what came after.
    const later: Buffer[] = [];
    await new JobFollower({
      target: () => Promise.resolve(target),
      jobId: id,
      jobsDir,
      offset: 7 * 20,
      onData: (c) => later.push(c),
      onEnd: () => {},
    }).start();
    assert.equal(Buffer.concat(later).toString(), expected.slice(7 * 20));
  });

  it('the follower waits while the instance cannot be reached and ends with the job', async () => {
    const id = jobId();
    await startJob(target, 'echo one; sleep 1; echo two', { jobId: id, cwd: jobsDir, label: 'x', stopAtEnd: false, jobsDir });
    let reachable = false;
    const out: Buffer[] = [];
    const errors: string[] = [];
    const follower = new JobFollower({
      target: () => (reachable ? Promise.resolve(target) : Promise.reject(new Error('instance #1 is not running'))),
      jobId: id,
      jobsDir,
      onData: (c) => out.push(c),
      onEnd: () => {},
      onRetry: (e) => {
        errors.push(e.message);
        reachable = errors.length >= 2;
      },
      backoffMs: [50],
    });
    await follower.start();
    assert.deepEqual(errors, ['instance #1 is not running', 'instance #1 is not running']);
    assert.equal(Buffer.concat(out).toString(), 'one\ntwo\n');

    const missing = new JobFollower({
      target: () => Promise.resolve(target),
      jobId: 'gone-1',
      jobsDir,
      onData: () => {},
      onEnd: () => {},
      onMissing: () => {},
    });
    await missing.start();
    assert.ok(missing.done);
  });

  it('stop at the end: the wrapper stops its instance through the API with the instance key, and records the status code only', async function () {
    // The wrapper runs here in real bash with the container's variables, as it would in the container.
    const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-job-stop-'));
    const id = jobId();
    try {
      execFileSync(
        'bash',
        ['-c', startScript({ jobId: id, cwd: dir, label: 'x', stopAtEnd: true, baseUrl: sim.url, forceSetsid: true, jobsDir: dir })],
        {
          input: 'echo trained',
          env: { ...process.env, CONTAINER_API_KEY: DEMO_KEY, CONTAINER_ID: String(instanceId) },
        },
      );
      await instanceIn(client, instanceId, 'stopped', 15_000);
      const answer = await eventually(
        () => (existsSync(join(dir, id, 'stop-answer')) ? readFileSync(join(dir, id, 'stop-answer'), 'utf8') : undefined),
        'the answer recorded',
        10_000,
      );
      assert.equal(answer, 'HTTP 200\n');
      assert.equal(readFileSync(join(dir, id, 'exit'), 'utf8'), '0\n');
      for (const f of ['cmd', 'run', 'log', 'stop-answer', 'stop-asked', 'api']) {
        assert.doesNotMatch(readFileSync(join(dir, id, f), 'utf8'), new RegExp(DEMO_KEY), `${f} does not hold the key`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a job that ran when its instance stopped: interrupted, its log readable once it runs again', async () => {
    // A job folder with no exit file and a dead wrapper is what a stop in the middle of a job leaves.
    const id = jobId();
    const dir = join(jobsDir, id);
    await client.instances.start(instanceId);
    const running = await instanceIn(client, instanceId, 'running', 15_000);
    const at = sshEndpoint(running)!;
    await waitForSshBanner(at.host, at.port, { timeoutMs: 10_000, intervalMs: 50 });
    target = { ...target, args: target.args.map((a, i) => (target.args[i - 1] === '-p' ? String(at.port) : a)) };
    const made = `mkdir -p ${dir} && echo 'sleep 1' >${dir}/cmd && echo partial >${dir}/log && echo 999999 >${dir}/wpid && date +%s >${dir}/started`;
    assert.equal((await runRemote(target, made)).code, 0);
    const s = (await listJobs(target, { jobsDir })).find((j) => j.jobId === id)!;
    assert.equal(jobPhase(s), 'interrupted');
    assert.equal(await readLog(target, id, 0, { jobsDir }), 'partial\n');
    let ended: JobStatus | undefined;
    await new JobFollower({
      target: () => Promise.resolve(target),
      jobId: id,
      jobsDir,
      onData: () => {},
      onEnd: (e) => (ended = e),
    }).start();
    assert.equal(ended && jobPhase(ended), 'interrupted');
  });
});
