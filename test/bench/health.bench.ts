// npm run bench (part): the health check after a rent, on the simulator with real containers and
// sshd: from the first list that shows a rent running (what the poller sees) to the verdict, for
// 6 rents, with where the time goes (the wait for sshd, the script) and the automatic check's write
// (64 MiB) against Check Machine Health's (256 MiB). Target: <= 5 s. Nothing asserts a time.
// Needs root and an OpenSSH sshd; skipped otherwise.
import { StoredState } from '../../src/core/state/storedState';
import { STORED } from '../../src/core/stored';
import { MemoryStore } from '../unit/state/memoryStore';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HealthAfterRent } from '../../src/core/health/afterRent';
import { SCRIPT_TIMEOUT_MS, healthScript } from '../../src/core/health/probe';
import { silentLogger } from '../../src/core/log';
import { generateKey } from '../../src/core/ssh/localKeys';
import { runRemote } from '../../src/core/ssh/remote';
import { sshdAvailable } from '../marketplace/sshd';
import { clientFor, DEMO_KEY, reachableInstance, startSimulator } from '../support';

const ROUNDS = 6;
const TARGET_MS = 5_000;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const worst = (xs: number[]) => sorted(xs)[xs.length - 1]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  if (!sshdAvailable()) {
    console.log('health bench: skipped (needs root and an OpenSSH sshd)');
    return;
  }
  const sim = await startSimulator({ ssh: true, bootSeconds: 0.2, seed: 63 });
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-health-bench-'));
  // The download test's server: 25 MB, as the default URL sends; the containers share the host's network.
  const body = Buffer.alloc(25_000_000);
  const server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const speedUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/blob`;
  try {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const key = await generateKey(join(dir, 'key'), 'bench');
    await client.sshKeys.create(key.publicKey);
    const offers = await client.offers.search({
      query: { filters: { rentable: { eq: true }, num_gpus: { gte: 1 } }, order: [], type: 'on-demand' },
      limit: ROUNDS,
    });
    const total: number[] = [];
    const reach: number[] = [];
    const script: number[] = [];
    const write256: number[] = [];
    for (const offer of offers.slice(0, ROUNDS)) {
      const id = (await client.instances.create(offer.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
      try {
        let reachMs = 0;
        let scriptMs = 0;
        const health = new HealthAfterRent({
          store: new StoredState(STORED, new MemoryStore()),
          owner: 'bench',
          enabled: () => true,
          speedTestUrl: () => speedUrl,
          reach: async (instance) => {
            const t = performance.now();
            const target = await reachableInstance(client, instance.id, key.privateKeyPath);
            reachMs = performance.now() - t;
            return target;
          },
          run: async (target, text, timeoutMs, signal) => {
            const t = performance.now();
            const result = await runRemote(target, text, { timeoutMs, signal });
            scriptMs = performance.now() - t;
            return result;
          },
          now: () => Date.now(),
          logger: silentLogger,
        });
        await health.expect(id);
        let started: number | undefined;
        let kind = '';
        while (started === undefined) {
          const list = await client.instances.list();
          const [check] = health.update(list.filter((i) => i.id === id));
          if (check) {
            started = performance.now();
            kind = (await check).kind;
          } else await sleep(50);
        }
        total.push(performance.now() - started);
        reach.push(reachMs);
        script.push(scriptMs);
        console.log(
          `  #${id} ${offer.gpu_name}: ${kind} in ${Math.round(total.at(-1)!)} ms (sshd ${Math.round(reachMs)} ms, script ${Math.round(scriptMs)} ms)`,
        );
        // Check Machine Health's own size, for comparison: the same script with a 256 MiB write.
        const target = await reachableInstance(client, id, key.privateKeyPath);
        const t = performance.now();
        await runRemote(target, healthScript('bench', { speedTestUrl: speedUrl }), { timeoutMs: SCRIPT_TIMEOUT_MS });
        write256.push(performance.now() - t);
      } finally {
        await client.instances.destroy(id).catch(() => undefined);
      }
    }
    const ms = (x: number) => `${Math.round(x)} ms`;
    console.log(
      `health after rent, "running" to verdict (${total.length} rents): median ${ms(median(total))}, worst ${ms(worst(total))} (target <= ${TARGET_MS} ms)`,
    );
    console.log(`  of which the wait for sshd: median ${ms(median(reach))}, worst ${ms(worst(reach))}`);
    console.log(`  of which the script (64 MiB write, 25 MB download beside it): median ${ms(median(script))}, worst ${ms(worst(script))}`);
    console.log(
      `  the same script with Check Machine Health's 256 MiB write: median ${ms(median(write256))}, worst ${ms(worst(write256))}`,
    );
  } finally {
    server.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
