// The job wrapper and the instance's own key (CONTAINER_API_KEY): the job never gets it in its
// environment, even when the SSH session (or the tmux server) that starts it has it; and the stop at
// the end sends it without putting it on a command line, which ps and /proc/*/cmdline show to every
// process, nor keeping the service's answer, which may echo it. The wrapper runs here in real bash,
// as it would on the instance, against a loopback server that holds the request while the test reads
// every process's command line.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newJobId, startScript } from '../../../src/core/jobs/scripts';
import { eventually } from '../../support';
import { echoServer, heldStopKeepsKeyHidden, onlyTools } from '../../support/keyProbe';

/** An instance key as the service might make one; nothing else on the machine holds it. */
const KEY = 'ik-9b2e7d41c6a85f03e1d4b7a29c6f8e50';
/** What the start script and the wrapper use besides the HTTP client. */
const TOOLS = ['bash', 'mkdir', 'cat', 'setsid', 'nohup', 'sleep', 'date', 'head', 'mv', 'tr', 'sed', 'tail', 'printenv', 'mktemp', 'rm'];

let seq = 0;
/** Job ids made from a counter: tests never use Math.random. */
const jobId = () => newJobId(Date.UTC(2026, 10, 26, 0, 0, seq++), () => (seq % 36) / 36);

/** Ends the wrapper of a job if it still runs (a failed test must not leave it waiting). */
function endWrapper(dir: string): void {
  const wpid = Number(existsSync(join(dir, 'wpid')) ? readFileSync(join(dir, 'wpid'), 'utf8').trim() : NaN);
  if (!Number.isInteger(wpid) || wpid <= 1) return;
  try {
    process.kill(wpid, 'SIGKILL');
  } catch {
    // already ended
  }
}

describe('jobs: the instance key stays out of the job and off command lines', function () {
  this.timeout(60_000);

  for (const launcher of ['setsid', 'tmux'] as const) {
    it(`${launcher}: the job's environment has no CONTAINER_API_KEY although the session that starts it has one`, async function () {
      const tmux = spawnSync('bash', ['-c', 'command -v tmux']).status === 0;
      if (launcher === 'tmux' && !tmux) this.skip();
      const root = mkdtempSync(join(tmpdir(), 'gpu-rental-job-key-env-'));
      const id = jobId();
      // A tmux server of this test's own (its socket in the test's folder), started from this environment.
      const env = { ...process.env, TMUX_TMPDIR: root, CONTAINER_API_KEY: KEY, CONTAINER_ID: '77', GPU_RENTAL_SESSION_VAR: 'kept' };
      try {
        const started = execFileSync(
          'bash',
          ['-c', startScript({ jobId: id, cwd: root, label: 'env', stopAtEnd: false, forceSetsid: launcher === 'setsid', jobsDir: root })],
          { input: 'env\necho "key=${CONTAINER_API_KEY-unset}"\n', env, encoding: 'utf8' },
        );
        assert.match(started, new RegExp(`started ${launcher}`));
        const log = await eventually(
          () => (existsSync(join(root, id, 'exit')) ? readFileSync(join(root, id, 'log'), 'utf8') : undefined),
          'the job to end',
          15_000,
        );
        assert.match(log, /^GPU_RENTAL_SESSION_VAR=kept$/m, "the session's other variables reach the job");
        assert.match(log, /^CONTAINER_ID=77$/m);
        assert.match(log, /^key=unset$/m);
        assert.doesNotMatch(log, /CONTAINER_API_KEY=/);
        assert.ok(!log.includes(KEY), 'the key is nowhere in what the job saw');
      } finally {
        endWrapper(join(root, id));
        if (launcher === 'tmux') spawnSync('tmux', ['kill-server'], { env, stdio: 'ignore' });
        rmSync(root, { recursive: true, force: true });
      }
    });
  }

  for (const client of ['curl', 'wget', 'python3']) {
    it(`stop at the end with ${client}: no command line holds the key while the request runs; only the status is kept`, async function () {
      const bin = mkdtempSync(join(tmpdir(), `gpu-rental-job-key-${client}-`));
      const root = mkdtempSync(join(tmpdir(), 'gpu-rental-job-key-'));
      const temp = join(root, 'tmp');
      mkdirSync(temp);
      const server = await echoServer();
      const id = jobId();
      try {
        if (onlyTools(bin, [...TOOLS, client]).length > 0) this.skip();
        const script = startScript({
          jobId: id,
          cwd: root,
          label: 'x',
          stopAtEnd: true,
          baseUrl: server.url,
          forceSetsid: true,
          jobsDir: root,
        });
        execFileSync('/bin/bash', ['-c', script], {
          input: 'echo trained',
          env: { PATH: bin, HOME: root, TMPDIR: temp, CONTAINER_API_KEY: KEY, CONTAINER_ID: '77' },
        });

        const held = await heldStopKeepsKeyHidden(server, { key: KEY, client, temp });

        held.answer(200);
        const answer = await eventually(
          () => (existsSync(join(root, id, 'stop-answer')) ? readFileSync(join(root, id, 'stop-answer'), 'utf8') : undefined),
          'the answer recorded',
          10_000,
        );
        assert.equal(answer, 'HTTP 200\n', 'the status, not the echoed body');
        for (const file of readdirSync(join(root, id)))
          assert.ok(!readFileSync(join(root, id, file), 'utf8').includes(KEY), `${file} does not hold the key`);
        if (client === 'wget') assert.deepEqual(readdirSync(temp), [], 'the header file is removed');
      } finally {
        endWrapper(join(root, id));
        await server.close();
        rmSync(bin, { recursive: true, force: true });
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
