// The idle watchdog end to end: the simulator runs each instance's start-up script as a real
// bash process with the container's variables; a fake nvidia-smi on its PATH reports the GPU
// utilisation a test chooses. An idle instance must stop itself through the API; a busy one
// must stay up.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withWatchdog } from '../../../src/core/idle/watchdog';
import {
  clientFor,
  containerPath,
  DEMO_KEY,
  eventually,
  simulatorForSuite,
  startSimulator,
  type Marketplace,
  instanceIn,
} from '../../support';

describe('idle: the watchdog on the host stops an idle instance and leaves a busy one running', function () {
  this.timeout(60_000);
  let sim: Marketplace;
  let bin: string;
  before(async () => {
    bin = mkdtempSync(join(tmpdir(), 'gpu-rental-fake-gpu-'));
    // Each instance's utilisation is a file the test writes; none means an idle GPU.
    writeFileSync(join(bin, 'nvidia-smi'), `#!/bin/sh\ncat "${bin}/util-$CONTAINER_ID" 2>/dev/null || echo 0\n`);
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
    sim = await startSimulator({ onstart: true, onstartPath: [bin], bootSeconds: 0.2, seed: 21 });
  });
  after(() => sim.stop());

  it('idle for the limit: stops itself and logs why; busy: keeps running; the user script runs too', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const offers = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 3 });
    const marker = join(bin, 'user-script-ran');
    const onstart = withWatchdog(`touch ${marker}-$CONTAINER_ID`, {
      baseUrl: sim.url,
      idleMinutes: 4 / 60,
      gpuThreshold: 5,
      checkSeconds: 1,
    });
    const idle = (await client.instances.create(offers[0]!.id, { image: 'ubuntu:22.04', disk: 8, onstart })).instanceId;
    const busy = (await client.instances.create(offers[1]!.id, { image: 'ubuntu:22.04', disk: 8, onstart })).instanceId;
    writeFileSync(join(bin, `util-${busy}`), '93\n');
    // Idle GPU, no SSH session, but a GPU Rental job running (its wrapper's pid, no exit code yet).
    const jobScript = 'mkdir -p ~/.gpu-rental/jobs/j1 && { sleep 600 & echo $! >~/.gpu-rental/jobs/j1/wpid; }';
    const withJob = (
      await client.instances.create(offers[2]!.id, {
        image: 'ubuntu:22.04',
        disk: 8,
        onstart: withWatchdog(jobScript, { baseUrl: sim.url, idleMinutes: 4 / 60, gpuThreshold: 5, checkSeconds: 1 }),
      })
    ).instanceId;

    const stoppedAt = await eventually(
      async () => ((await client.instances.show(idle)).actual_status === 'stopped' ? Date.now() : undefined),
      'the idle one to stop itself',
      20_000,
    );
    assert.ok(existsSync(`${marker}-${idle}`) && existsSync(`${marker}-${busy}`), "the user's own script ran on both");
    // Give the busy one as long again: it must still run.
    await new Promise((r) => setTimeout(r, 5_000));
    assert.equal((await client.instances.show(busy)).actual_status, 'running', 'busy GPU: kept');
    assert.equal((await client.instances.show(withJob)).actual_status, 'running', 'a running job: kept');
    assert.ok(Date.now() - stoppedAt >= 5_000);

    // The instance's own home, read through this simulator (ids repeat across simulators of other tests).
    const logFile = containerPath(sim, idle, '/root/gpu-rental-idle.log');
    assert.ok(existsSync(logFile), 'the log is in the instance');
    const log = readFileSync(logFile, 'utf8');
    assert.match(log, /idle stop on: instance \d+ stops after 4s with GPU<=5%, no SSH session, no job/);
    assert.match(log, /idle for \d+s \(GPU 0%, no SSH session, no job\): stopping instance \d+/);
    // The stop ends the container, and the watchdog with it, before it can write the answer down.
    assert.doesNotMatch(log, new RegExp(DEMO_KEY));
    await client.instances.destroy(idle);
    await client.instances.destroy(busy);
    await client.instances.destroy(withJob);
  });
});

describe('idle: the watchdog without curl', function () {
  this.timeout(60_000);
  const sim = simulatorForSuite({ bootSeconds: 0.2, seed: 22 });

  // Images often lack curl: it falls back to wget, then python3. Each is checked with a PATH
  // holding only what the script needs and that one client.
  for (const client of ['wget', 'python3']) {
    it(`stops the instance with ${client}`, async function () {
      const found = ['/usr/bin', '/bin'].map((d) => join(d, client)).find((p) => existsSync(p));
      if (!found) this.skip();
      const { client: api } = clientFor(sim.url, DEMO_KEY);
      const [offer] = await api.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
      const id = (await api.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
      await instanceIn(api, id, 'running', 10_000);
      const bin = mkdtempSync(join(tmpdir(), `gpu-rental-only-${client}-`));
      for (const tool of ['bash', 'sleep', 'date', 'tr', 'grep', 'sort', 'tail', 'cat', 'sed', 'mktemp', 'rm', client]) {
        const path = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
        if (path) writeFileSync(join(bin, tool), `#!/bin/sh\nexec ${path} "$@"\n`, { mode: 0o755 });
      }
      const home = mkdtempSync(join(tmpdir(), 'gpu-rental-wd-home-'));
      const script = withWatchdog(undefined, { baseUrl: sim.url, idleMinutes: 2 / 60, gpuThreshold: 5, checkSeconds: 1 });
      const { spawn } = await import('node:child_process');
      const shell = spawn('/bin/bash', ['-c', script], {
        env: { PATH: bin, HOME: home, CONTAINER_ID: String(id), CONTAINER_API_KEY: DEMO_KEY },
        stdio: 'ignore',
        detached: true,
      });
      // Out here nothing stops the container, so end the watchdog (its whole group) at the end.
      const kill = () => {
        try {
          process.kill(-shell.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      };
      try {
        await instanceIn(api, id, 'stopped', 15_000);
        // The service stops it before the script writes down the answer's status (never its body).
        await eventually(
          async () =>
            /the service answered HTTP 200\n/.test(
              existsSync(join(home, 'gpu-rental-idle.log')) ? readFileSync(join(home, 'gpu-rental-idle.log'), 'utf8') : '',
            ) || undefined,
          'the answer in the log',
          5_000,
        );
      } finally {
        kill();
      }
      await api.instances.destroy(id);
    });
  }
});

describe('idle: the watchdog with an idle time bash cannot hold', function () {
  this.timeout(60_000);
  const sim = simulatorForSuite({ bootSeconds: 0.2, seed: 23 });

  // 1.6e17 minutes is 9.6e18 seconds, past bash's 64-bit integers: every comparison then fails, which
  // the loop read as "idle" and stopped the instance at its first check. The extension refuses such a
  // value, and the script on the host refuses it again (a template's script can be edited by hand).
  it('stays off, says so in its log, and never stops the instance', async () => {
    assert.throws(() => withWatchdog(undefined, { baseUrl: sim.url, idleMinutes: 1.6e17, gpuThreshold: 5 }), /at most 10080 minutes/);
    const { client: api } = clientFor(sim.url, DEMO_KEY);
    const [offer] = await api.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    const id = (await api.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
    await instanceIn(api, id, 'running', 10_000);
    const script = withWatchdog(undefined, { baseUrl: sim.url, idleMinutes: 2 / 60, gpuThreshold: 5, checkSeconds: 1 }).replace(
      ' N=2 ',
      ' N=9600000000000000000 ',
    );
    assert.match(script, / N=9600000000000000000 /);
    const home = mkdtempSync(join(tmpdir(), 'gpu-rental-wd-home-'));
    const { spawn } = await import('node:child_process');
    const shell = spawn('/bin/bash', ['-c', script], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CONTAINER_ID: String(id), CONTAINER_API_KEY: DEMO_KEY },
      stdio: 'ignore',
      detached: true,
    });
    try {
      const log = join(home, 'gpu-rental-idle.log');
      await eventually(
        async () => (existsSync(log) && /idle stop off: bad idle time N=9600000000000000000/.test(readFileSync(log, 'utf8'))) || undefined,
        'the refusal in the log',
        5_000,
      );
      // Several check periods: an instance that was going to be stopped would be by now.
      await new Promise((r) => setTimeout(r, 4_000));
      assert.equal((await api.instances.show(id)).actual_status, 'running', 'still running');
      assert.doesNotMatch(readFileSync(log, 'utf8'), /stopping instance/);
    } finally {
      try {
        process.kill(-shell.pid!, 'SIGKILL');
      } catch {
        // already gone: the guard ended it
      }
    }
    await api.instances.destroy(id);
  });
});
