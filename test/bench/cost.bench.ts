// npm run bench (part): what the money-on-screen work adds to each poll with 50 instances.
// One poll = the instance list request (parse + validate included). On top of it, per poll, the
// extension computes the burn rate, the low-credit check, the idle check and each row's text.
// Printed: the cost work in microseconds and as a share of the poll itself (target: under 5 %),
// and, for scale, the rows' text.
import { Agent } from 'undici';
import { LowCreditWatch } from '../../src/core/billing/lowCredit';
import { IdleTracker } from '../../src/core/idle/idleTracker';
import { presentInstance } from '../../src/core/instances/present';
import { burnRate } from '../../src/core/instances/rates';
import { silentLogger } from '../../src/core/log';
import { searchRequest } from '../../src/core/offers/search';
import { clientFor, DEMO_KEY, startSimulator } from '../support';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const sim = await startSimulator({ seed: 17, credit: 100_000, offerCount: 200 });
  try {
    const { client } = clientFor(sim.url, DEMO_KEY, { dispatcher: new Agent(), logger: silentLogger, timeoutMs: 10_000 });
    const offers = await client.offers.search({ ...searchRequest({ query: '', sort: 'price', pages: 1 }), limit: 50 });
    const ids = [];
    for (const o of offers) ids.push((await client.instances.create(o.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId);
    // A mix, as a real account has: most running, some stopped.
    await new Promise((r) => setTimeout(r, 800));
    for (const id of ids.slice(0, 10)) await client.instances.stop(id);

    const watch = new LowCreditWatch(() => ({ hours: 24, amount: 5 }));
    const idle = new IdleTracker();
    const polls: number[] = [];
    const extra: number[] = [];
    const rows: number[] = [];
    let instances = await client.instances.listInOneRequest();
    for (let round = 0; round < 60; round++) {
      const t0 = performance.now();
      instances = await client.instances.listInOneRequest();
      const t1 = performance.now();
      const now = Date.now();
      const burn = burnRate(instances);
      watch.update(1000, burn.perHour, now);
      idle.update(instances, new Set(), { nowMs: now, idleMs: 1_800_000, gpuThreshold: 5 });
      const t2 = performance.now();
      for (const i of instances) presentInstance(i, { nowMs: now, costSoFar: 1.23 });
      const t3 = performance.now();
      if (round >= 10) {
        polls.push(t1 - t0);
        extra.push(t2 - t1);
        rows.push(t3 - t2);
      }
    }
    const p = median(polls);
    const e = median(extra);
    console.log(
      `\nCost on screen, per poll, ${instances.length} instances (${instances.filter((i) => i.actual_status === 'running').length} running), 50 polls`,
    );
    console.log(`  poll (request + parse + validate): median ${p.toFixed(2)} ms`);
    console.log(
      `  cost work (burn rate + projection + low-credit + idle check): median ${(e * 1000).toFixed(0)} µs = ${((e / p) * 100).toFixed(1)} % of the poll (target < 5 %)`,
    );
    console.log(`  for scale, the 50 rows' text with price and cost so far: median ${(median(rows) * 1000).toFixed(0)} µs`);
  } finally {
    await sim.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
