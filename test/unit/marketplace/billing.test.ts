import assert from 'node:assert/strict';
import { call, obj, q, rentOne, show, simulatorForSuite } from '../../support';

/** The account's credit, as the user record shows it. */
const creditOf = async (sim: { url: string }) => obj(await call(sim, 'GET', '/api/v0/users/current/')).credit as number;
const near = (a: number, b: number, eps = 1e-4) => assert.ok(Math.abs(a - b) < eps, `${a} is not ${b}`);

describe('marketplace: credit and billing', () => {
  const sim = simulatorForSuite({ bootSeconds: 10, credit: 100 }, { each: true, clock: true });
  const credit = () => creditOf(sim);

  it('drains dph_total per hour while running and storage only otherwise', async () => {
    assert.equal(await credit(), 100);
    const { id } = await rentOne(sim, { disk: 50 });
    const r = (await show(sim, id))!;
    const total = r.dph_total as number;
    const disk = r.storage_total_cost as number;
    assert.ok(total > disk && disk > 0);
    // 10 s of boot (storage only), then one hour running.
    await sim.clock.advance(10_000);
    near(await credit(), 100 - (disk * 10) / 3600);
    await sim.clock.advance(3_600_000);
    near(await credit(), 100 - (disk * 10) / 3600 - total);
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'stopped' });
    const atStop = await credit();
    await sim.clock.advance(2 * 3_600_000);
    near(await credit(), atStop - 2 * disk, 1e-6);
    await call(sim, 'DELETE', `/api/v0/instances/${id}/`, {});
    const atDestroy = await credit();
    await sim.clock.advance(10 * 3_600_000);
    assert.equal(await credit(), atDestroy, 'destroying ends all billing');
  });

  it('itemises charges per instance into gpu and disk from real usage', async () => {
    const { id } = await rentOne(sim, { disk: 20, label: 'billed' });
    const r = (await show(sim, id))!;
    await sim.clock.advance(10_000 + 7_200_000);
    const nowSec = sim.clock.now() / 1000;
    const res = obj(await call(sim, 'GET', `/api/v0/charges/?select_filters=${q({ day: { gte: nowSec - 86_400, lte: nowSec } })}`));
    assert.equal(res.success, true);
    assert.equal(res.total, 1);
    assert.equal(res.next_token, null);
    const [row] = res.results as Array<Record<string, unknown>>;
    assert.equal(row!.source, `instance-${id}`);
    assert.equal(row!.type, 'instance');
    assert.deepEqual(row!.metadata, { label: 'billed' });
    const items = row!.items as Array<{ type: string; amount: number; description: string }>;
    const gpu = items.find((i) => i.type === 'gpu')!;
    const disk = items.find((i) => i.type === 'disk')!;
    near(gpu.amount, Math.round(((r.dph_total as number) - (r.storage_total_cost as number)) * 2 * 1000) / 1000, 1e-3);
    near(disk.amount, Math.round((r.storage_total_cost as number) * (7210 / 3600) * 1000) / 1000, 1e-3);
    assert.match(gpu.description, /^2\.000 hours at \$\d+\.\d{3}\/hour$/);
    near(row!.amount as number, 100 - (await credit()), 2e-3);
    const missing = await call(sim, 'GET', `/api/v0/charges/?select_filters=${q({ day: { gte: 0 } })}`);
    assert.equal(missing.status, 400);
    assert.match(String(obj(missing).msg), /day/);
    const before = obj(await call(sim, 'GET', `/api/v0/charges/?select_filters=${q({ day: { gte: 0, lte: 1000 } })}`));
    assert.equal(before.total, 0);
  });

  it('lists the opening credit and top-ups as invoices', async () => {
    await sim.clock.advance(60_000);
    sim.control.addCredit(sim.accountId, 25);
    const nowSec = sim.clock.now() / 1000;
    const res = obj(await call(sim, 'GET', `/api/v1/invoices/?select_filters=${q({ when: { gte: nowSec - 3600, lte: nowSec + 1 } })}`));
    assert.equal(res.success, true);
    assert.equal(res.count, 2);
    const rows = res.results as Array<{ amount: number; type: string; start: number; metadata: { service: string } }>;
    assert.deepEqual(
      rows.map((r) => r.amount),
      [-25, -100],
      'newest first; credit bought shows negative, as the service does',
    );
    assert.ok(rows.every((r) => r.type === 'credit' && r.metadata.service === 'stripe_payments'));
    assert.equal(await credit(), 125);
    const bad = obj(await call(sim, 'GET', '/api/v1/invoices/'));
    assert.deepEqual([bad.success, bad.error], [false, 'Invalid date range']);
  });

  it('hands invoices out in pages of at most 100, whatever limit asks, with a token for the next', async () => {
    for (let i = 0; i < 120; i++) {
      await sim.clock.advance(1000);
      sim.control.addCredit(sim.accountId, 1);
    }
    const nowSec = sim.clock.now() / 1000;
    const filters = q({ when: { gte: nowSec - 3600, lte: nowSec + 1 } });
    const first = obj(await call(sim, 'GET', `/api/v1/invoices/?select_filters=${filters}&limit=500`));
    assert.equal(first.count, 100);
    assert.equal(first.total, 121);
    assert.equal(typeof first.next_token, 'string');
    const rest = obj(await call(sim, 'GET', `/api/v1/invoices/?select_filters=${filters}&limit=500&after_token=${q(first.next_token)}`));
    assert.equal(rest.count, 21);
    assert.equal(rest.next_token, null);
    assert.equal(obj(await call(sim, 'GET', `/api/v1/invoices/?select_filters=${filters}`)).count, 60, 'the default page');
  });
});

describe('marketplace: running out of credit', () => {
  const sim = simulatorForSuite({ bootSeconds: 0, credit: 1 }, { clock: true });

  it('stops running instances when the credit runs out, and refuses to rent without credit', async () => {
    const { id } = await rentOne(sim);
    const rate = (await show(sim, id))!.dph_total as number;
    await sim.clock.advance(((2 * 3600) / rate + 3600) * 1000);
    const r = (await show(sim, id))!;
    assert.equal(r.actual_status, 'stopped');
    assert.match(String(r.status_msg), /credit/);
    const left = await creditOf(sim);
    assert.ok(left <= 0 && left > -0.05, `credit ${left} ran out around zero`);
    const refused = await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'running' });
    assert.equal(refused.status, 400);
    const offers = obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, limit: 1 })).offers as Array<{ id: number }>;
    assert.equal((await call(sim, 'PUT', `/api/v0/asks/${offers[0]!.id}/`, { image: 'ubuntu', disk: 10 })).status, 400);
  });
});
