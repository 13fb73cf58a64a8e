import assert from 'node:assert/strict';
import {
  call,
  FakeClock,
  obj,
  q,
  rentOne,
  show,
  simulatorForSuite,
  startSimulator,
  type Marketplace,
  type MarketplaceOptions,
} from '../../support';

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

describe('marketplace: months of billing history', function () {
  this.timeout(20_000);
  /** One fixed "now" (the catalogue's epoch, a FakeClock's start), so two simulators can be compared. */
  const NOW = new FakeClock().now();
  const DAYS = 120;
  let sims: Marketplace[] = [];
  afterEach(async () => {
    await Promise.all(sims.map((s) => s.stop()));
    sims = [];
  });
  const start = async (options: MarketplaceOptions) => {
    const sim = await startSimulator({ now: () => NOW, credit: 250, ...options });
    sims.push(sim);
    return sim;
  };

  interface Charge {
    start: number;
    end: number;
    type: string;
    source: string;
    amount: number;
    metadata: { label?: string; template_id?: number };
    items: Array<{ type: string; amount: number }>;
  }

  /** Every row of a listing, page after page with after_token; checks each page keeps to `limit`. */
  async function readAll<T>(sim: Marketplace, path: string, filters: unknown, limit: number): Promise<{ rows: T[]; pages: number }> {
    const rows: T[] = [];
    let token: unknown = null;
    let pages = 0;
    do {
      const after = token === null ? '' : `&after_token=${q(token)}`;
      const page = obj(await call(sim, 'GET', `${path}?select_filters=${q(filters)}&limit=${limit}${after}`));
      assert.equal(page.success, true);
      const results = page.results as T[];
      assert.ok(results.length <= limit && results.length === page.count, `a page of at most ${limit}`);
      rows.push(...results);
      token = page.next_token;
      pages += 1;
    } while (token !== null && pages < 100);
    return { rows, pages };
  }

  const nowSec = NOW / 1000;
  const charges = (sim: Marketplace, gte = nowSec - (DAYS + 10) * 86_400, lte = nowSec) =>
    readAll<Charge>(sim, '/api/v0/charges/', { day: { gte, lte } }, 7);
  const invoices = (sim: Marketplace) =>
    readAll<{ start: number; amount: number; type: string }>(sim, '/api/v1/invoices/', { when: { gte: 0, lte: nowSec } }, 5);
  const total = (rows: ReadonlyArray<{ amount: number }>) => rows.reduce((sum, r) => sum + r.amount, 0);
  const month = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 7);

  it('reads months of destroyed instances over pages, whose charges add up to what the balance used', async () => {
    const sim = await start({ billingHistoryDays: DAYS });
    const { rows, pages } = await charges(sim);
    assert.ok(rows.length >= 30 && pages >= 5, `${rows.length} rows in ${pages} pages`);
    assert.ok(new Set(rows.map((r) => month(r.start))).size >= 3, 'at least three months');
    assert.ok(
      rows.every((r) => /^(instance|volume)-\d+$/.test(r.source) && r.end < nowSec && r.amount > 0),
      'each row names its instance or volume, and all ended before now',
    );
    assert.ok(rows.some((r) => r.type === 'volume'));
    const labels = rows.filter((r) => r.type === 'instance').map((r) => r.metadata.label);
    assert.ok(labels.includes(undefined), 'some instances have no label');
    assert.ok(
      labels.some((l, i) => l !== undefined && labels.indexOf(l) !== i),
      'some labels repeat',
    );
    for (const r of rows) near(r.amount, total(r.items), 0.0021);

    // What the balance used: every top-up, less the credit left (which is still what was asked).
    const credit = await creditOf(sim);
    assert.equal(credit, 250);
    const { rows: bought } = await invoices(sim);
    assert.ok(bought.length >= 4 && bought.every((b) => b.type === 'credit' && b.amount < 0), 'monthly top-ups');
    const spent = -total(bought) - credit;
    near(total(rows), spent, 0.0005 * rows.length + 0.006);
    // The same money read month by month (rows clipped to each month).
    const edges = [nowSec - (DAYS + 10) * 86_400, ...[4, 3, 2, 1].map((k) => nowSec - k * 30 * 86_400), nowSec];
    let byMonth = 0;
    for (let i = 0; i + 1 < edges.length; i++) byMonth += total((await charges(sim, edges[i]!, edges[i + 1]! - 1)).rows);
    near(byMonth, spent, 0.001 * rows.length + 0.01);
    // The credit never ran out: before each top-up, what was bought so far covers what was spent.
    for (const b of bought) {
      const before = -total(bought.filter((x) => x.start < b.start));
      const used = total((await charges(sim, edges[0]!, b.start - 1)).rows);
      assert.ok(before - used > -0.01 * rows.length, `the balance before the top-up at ${b.start} is ${before - used}`);
    }
  });

  it('makes the same history from the same seed, another from another, and none by default', async () => {
    const [a, b, other, none] = await Promise.all([
      start({ billingHistoryDays: DAYS, seed: 1 }),
      start({ billingHistoryDays: DAYS, seed: 1 }),
      start({ billingHistoryDays: DAYS, seed: 2 }),
      start({ seed: 1 }),
    ]);
    const rowsA = (await charges(a)).rows;
    assert.deepEqual((await charges(b)).rows, rowsA);
    assert.deepEqual((await invoices(b)).rows, (await invoices(a)).rows);
    assert.notDeepEqual((await charges(other)).rows, rowsA);
    assert.deepEqual((await charges(none)).rows, [], 'no history unless asked');
    assert.equal((await invoices(none)).rows.length, 1, 'the opening credit only');
  });
});
