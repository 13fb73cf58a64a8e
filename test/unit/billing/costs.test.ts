import assert from 'node:assert/strict';
import { permissionsFor } from '../../../src/core/api/permissions';
import { CostTracker, costsByInstance } from '../../../src/core/billing/costs';
import { clientFor, DEMO_KEY, MemoryLogger, startSimulator } from '../../support';

describe('instance costs so far', () => {
  it('sums charges per instance and ignores other sources', () => {
    const costs = costsByInstance([
      { source: 'instance-7', amount: 1.5 },
      { source: 'instance-7', amount: 0.25 },
      { source: 'volume-3', amount: 9 },
      { source: 'instance-8', amount: 0.1 },
    ]);
    assert.deepEqual(
      [...costs],
      [
        [7, 1.75],
        [8, 0.1],
      ],
    );
  });

  it('reads the simulator charges at most once per interval, and stays quiet without billing permission', async () => {
    const sim = await startSimulator();
    try {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const [offer] = await client.offers.search({
        query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
        limit: 1,
      });
      const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 });
      await new Promise((r) => setTimeout(r, 600));
      let now = Date.now();
      let reads = 0;
      const tracker = new CostTracker({
        charges: (r) => (reads++, client.billing.charges(r)),
        logger: new MemoryLogger(),
        now: () => now,
        minIntervalMs: 60_000,
      });
      assert.equal(await tracker.refresh(), true);
      assert.ok((tracker.costOf(instanceId) ?? -1) >= 0, 'the instance has a cost');
      await tracker.refresh();
      assert.equal(reads, 1, 'not read again within the interval');
      now += 61_000;
      await tracker.refresh();
      assert.equal(reads, 2);
      await tracker.refresh([instanceId]);
      assert.equal(reads, 3, 'an instance not seen at the last read makes the charges stale');
      await tracker.refresh([instanceId]);
      assert.equal(reads, 3);

      const scoped = await client.apiKeys.create({ name: 'no billing', permissions: permissionsFor(['instance_read']) });
      const logger = new MemoryLogger();
      const limited = new CostTracker({ charges: (r) => clientFor(sim.url, scoped.key).client.billing.charges(r), logger, now: () => now });
      assert.equal(await limited.refresh(), false);
      now += 120_000;
      assert.equal(await limited.refresh(), false);
      assert.equal(logger.lines.filter((l) => l.includes('may not read billing')).length, 1);
      assert.equal(limited.costOf(instanceId), undefined);
    } finally {
      await sim.stop();
    }
  });
});
