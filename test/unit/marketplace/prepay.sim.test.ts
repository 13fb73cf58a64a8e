// Reserved instances (service notes §15.2, openapi `prepay` and `show deposit`): money prepaid on an
// on-demand instance buys a discount that grows with the months it covers, is drawn from first while
// it lasts, and is worked out again from what remains at every new deposit.
import assert from 'node:assert/strict';
import { discountFor } from '../../marketplace/reservations';
import { call, control, obj, q, rentOne, show, simulatorForSuite, rentBid } from '../../support';

const near = (a: number, b: number, eps = 1e-4) => assert.ok(Math.abs(a - b) <= eps, `${a} is not ${b} (±${eps})`);
const HOUR = 3_600_000;
const MONTH_HOURS = 730;

describe('marketplace: the discount schedule of a reservation', () => {
  it('is 0.20 for a month, 0.30 for three, 0.40 for six, 0.50 from twelve, linear between, none below a week or so', () => {
    assert.deepEqual(
      [0, 0.2, 0.24, 1, 3, 6, 12, 30].map((m) => Math.round(discountFor(m) * 1e6) / 1e6),
      [0, 0, 0, 0.2, 0.3, 0.4, 0.5, 0.5],
    );
    near(discountFor(0.25), 0.05, 1e-9);
    near(discountFor(2), 0.25, 1e-9);
    near(discountFor(4.5), 0.35, 1e-9);
    near(discountFor(9), 0.45, 1e-9);
  });
});

describe('marketplace: reserved instances (prepay)', () => {
  const sim = simulatorForSuite({ bootSeconds: 1, credit: 100_000 }, { each: true, clock: true });
  const credit = async (key?: string) => obj(await call(sim, 'GET', '/api/v0/users/current/', undefined, key)).credit as number;
  const prepay = (id: number, body: unknown, key?: string) => call(sim, 'PUT', `/api/v0/instances/prepay/${id}/`, body, key);
  const deposit = async (id: number, key?: string) => {
    const res = await call(sim, 'GET', `/api/v0/instances/balance/${id}/?owner=me`, undefined, key);
    assert.equal(res.status, 200, res.text);
    return obj(res) as { success: boolean; refundable_deposit: number; total_discount: number; discount_months: number };
  };

  /** An on-demand instance, booted, and its price in $/hour. */
  async function rented(key?: string): Promise<{ id: number; perHour: number }> {
    const { id } = await rentOne(sim, {}, key);
    await sim.clock.advance(2_000);
    return { id, perHour: (await show(sim, id, key))!.dph_total as number };
  }

  async function paid(id: number, amount: number): Promise<{ timescale: number; discount_rate: number }> {
    const res = await prepay(id, { amount });
    assert.equal(res.status, 200, res.text);
    const body = obj(res);
    assert.equal(body.success, true);
    assert.deepEqual(Object.keys(body).sort(), ['discount_rate', 'success', 'timescale']);
    return body as unknown as { timescale: number; discount_rate: number };
  }

  it('answers the months a deposit covers and its discount, takes it from the credit and shows it as an invoice', async () => {
    const { id, perHour } = await rented();
    const before = await credit();
    const amount = Math.round(perHour * MONTH_HOURS * 3 * 100) / 100;
    const answer = await paid(id, amount);
    near(answer.timescale, 3, 0.01);
    near(answer.discount_rate, 0.3, 0.001);
    assert.equal(answer.timescale, Math.round(answer.timescale * 100) / 100, 'two decimals');
    near(before - (await credit()), amount, 1e-6);
    const now = sim.clock.now() / 1000;
    const invoices = obj(await call(sim, 'GET', `/api/v1/invoices/?select_filters=${q({ when: { gte: now - 60, lte: now + 60 } })}`))
      .results as Array<Record<string, unknown>>;
    const row = invoices.find((r) => (r.metadata as { service: string }).service === 'instance_prepay');
    assert.ok(row, JSON.stringify(invoices));
    assert.deepEqual([row.type, row.source, row.amount], ['reserved', `instance-${id}`, amount]);
    const shown = await deposit(id);
    const months = Math.floor(amount / (perHour * MONTH_HOURS) + 1e-9);
    assert.ok(months === 2 || months === 3, `${months} whole months`);
    assert.deepEqual(shown, { success: true, refundable_deposit: amount, total_discount: 0, discount_months: months });
  });

  it('bills at the discount from the deposit, not the credit, and shows it on the record and in the charges', async () => {
    const { id, perHour } = await rented();
    const amount = perHour * MONTH_HOURS;
    const { discount_rate: rate } = await paid(id, amount);
    near(rate, 0.2, 1e-4);
    const start = await credit();
    await sim.clock.advance(10 * HOUR);
    near(await credit(), start, 1e-6);
    const shown = await deposit(id);
    const saved = perHour * 10 * rate;
    near(shown.total_discount, saved);
    near(shown.refundable_deposit, amount - perHour * 10 * (1 - rate) - saved);
    const record = (await show(sim, id))!;
    near(record.credit_balance as number, amount - perHour * 10 * (1 - rate));
    assert.equal(record.credit_discount, rate);
    const breakdown = record.instance as { discountTotalHour: number; discountedTotalPerHour: number };
    near(breakdown.discountTotalHour, perHour * rate, 1e-6);
    near(breakdown.discountedTotalPerHour, perHour * (1 - rate), 1e-6);
    const day = Math.floor(sim.clock.now() / 1000);
    const charges = obj(await call(sim, 'GET', `/api/v0/charges/?select_filters=${q({ day: { gte: day - 86_400, lte: day } })}`))
      .results as Array<{ source: string; amount: number }>;
    const charged = charges.find((c) => c.source === `instance-${id}`)!;
    // Two seconds of boot before the deposit at the full price (disk only), then ten hours discounted.
    near(charged.amount, perHour * 10 * (1 - rate), 0.002);
  });

  it('once the deposit runs dry the instance bills its full price from the credit again', async () => {
    const { id, perHour } = await rented();
    const amount = perHour * 50;
    const { discount_rate: rate, timescale } = await paid(id, amount);
    assert.equal(rate, 0, 'fifty hours is below a week: no discount');
    near(timescale, 50 / MONTH_HOURS, 0.01);
    const start = await credit();
    await sim.clock.advance(80 * HOUR);
    near(start - (await credit()), perHour * 30, 1e-3);
    assert.deepEqual(await deposit(id), { success: true, refundable_deposit: 0, total_discount: 0, discount_months: 0 });
    assert.equal((await show(sim, id))!.credit_balance, null);
  });

  it('works the discount out again at every deposit: a small top-up late in a long term lowers it', async () => {
    const { id, perHour } = await rented();
    const year = perHour * MONTH_HOURS * 12;
    const first = await paid(id, year);
    near(first.discount_rate, 0.5, 1e-4);
    near(first.timescale, 12, 0.01);
    // At half price the year's deposit lasts 24 months; 22 months on, one month's worth remains.
    await sim.clock.advance(22 * MONTH_HOURS * HOUR);
    near((await show(sim, id))!.credit_balance as number, perHour * MONTH_HOURS, 0.01);
    const topUp = await paid(id, 1);
    near(topUp.timescale, (perHour * MONTH_HOURS + 1) / (perHour * MONTH_HOURS), 0.01);
    assert.ok(topUp.discount_rate < first.discount_rate, `${topUp.discount_rate} is lower than ${first.discount_rate}`);
    near(topUp.discount_rate, discountFor((perHour * MONTH_HOURS + 1) / (perHour * MONTH_HOURS)), 1e-4);
    // From the top-up on, the remaining deposit draws at the new discount.
    const remaining = (await show(sim, id))!.credit_balance as number;
    await sim.clock.advance(10 * HOUR);
    near(remaining - ((await show(sim, id))!.credit_balance as number), perHour * 10 * (1 - topUp.discount_rate), 1e-3);
  });

  it('keeps a prepaid instance running when the credit runs out, and stops the others', async () => {
    const account = (await control(sim, 'POST', 'accounts', { credit: 200 })) as { id: number; key: string };
    const reserved = await rented(account.key);
    const plain = await rented(account.key);
    assert.equal((await prepay(reserved.id, { amount: reserved.perHour * 100 }, account.key)).status, 200);
    await control(sim, 'POST', `accounts/${account.id}/low-credit`, { balance: 0.01 });
    await sim.clock.advance(HOUR);
    assert.equal((await show(sim, plain.id, account.key))!.actual_status, 'stopped');
    assert.equal((await show(sim, reserved.id, account.key))!.actual_status, 'running');
  });

  it('returns the refundable part of the deposit to the credit when the instance is destroyed', async () => {
    const { id, perHour } = await rented();
    const amount = perHour * MONTH_HOURS * 3;
    await paid(id, amount);
    await sim.clock.advance(100 * HOUR);
    const { refundable_deposit: refundable } = await deposit(id);
    const before = await credit();
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${id}/`)).status, 200);
    near((await credit()) - before, refundable, 1e-3);
    const now = sim.clock.now() / 1000;
    const invoices = obj(await call(sim, 'GET', `/api/v1/invoices/?select_filters=${q({ when: { gte: now - 60, lte: now + 60 } })}`))
      .results as Array<Record<string, unknown>>;
    assert.ok(invoices.some((r) => r.type === 'refund' && (r.metadata as { service: string }).service === 'instance_prepay'));
    assert.equal((await call(sim, 'GET', `/api/v0/instances/balance/${id}/`)).status, 404);
  });

  it('refuses an interruptible, unknown, other account’s or booting instance and a bad amount with 400, too little credit with 411', async () => {
    const { id } = await rented();
    const refused = async (res: Awaited<ReturnType<typeof prepay>>, status: number, msg?: RegExp) => {
      assert.equal(res.status, status, res.text);
      const body = obj(res);
      assert.equal(body.success, false);
      assert.equal(typeof body.msg, 'string');
      if (msg) assert.match(String(body.msg), msg);
    };
    await refused(await prepay(987_654, { amount: 10 }), 400, /No such instance/);
    const other = (await control(sim, 'POST', 'accounts', { credit: 1000 })) as { key: string };
    const theirs = (await rentOne(sim, {}, other.key)).id;
    await refused(await prepay(theirs, { amount: 10 }), 400, /No such instance/);
    await refused(await prepay(theirs, { amount: 10 }, other.key), 400, /running or stopped/);
    for (const body of [{}, { amount: 0 }, { amount: -5 }, { amount: 'lots' }, { amount: null }])
      await refused(await prepay(id, body), 400);
    await refused(await prepay(id, { amount: 1_000_000 }), 411, /^Insufficient credit$/);

    const bid = await rentBid(sim, 0.05);
    await sim.clock.advance(2_000);
    await refused(await prepay(bid, { amount: 10 }), 400, /interruptible/);
    const before = await credit();
    assert.deepEqual(await deposit(id), { success: true, refundable_deposit: 0, total_discount: 0, discount_months: 0 });
    assert.equal(await credit(), before, 'nothing was taken');
  });

  it('shows the deposit only to its account (404 otherwise), and a stopped instance can be prepaid', async () => {
    const { id, perHour } = await rented();
    const other = (await control(sim, 'POST', 'accounts', { credit: 1000 })) as { key: string };
    assert.equal((await call(sim, 'GET', `/api/v0/instances/balance/${id}/`, undefined, other.key)).status, 404);
    assert.equal((await call(sim, 'GET', '/api/v0/instances/balance/987654/')).status, 404);
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'stopped' });
    const answer = await paid(id, perHour * MONTH_HOURS * 6);
    near(answer.discount_rate, 0.4, 1e-4);
    // Stopped, only its disk draws from the deposit.
    const disk = (await show(sim, id))!.storage_total_cost as number;
    await sim.clock.advance(10 * HOUR);
    near((await deposit(id)).total_discount, disk * 10 * 0.4, 1e-4);
  });
});
