// Host price increases (service notes §15.1): the control API plays the host asking more, the renter
// lists what is pending and accepts or rejects one; an accepted price applies from the contract's
// old end, and every row that is no longer pending answers 404 no_pending_price_increase.
import assert from 'node:assert/strict';
import { call, control, obj, rentOne, show, simulatorForSuite, rentBid } from '../../support';

const near = (a: number, b: number, eps = 1e-6) => assert.ok(Math.abs(a - b) <= eps, `${a} is not ${b} (±${eps})`);

const ROW_FIELDS = [
  'pending_price_increase_id',
  'contract_id',
  'host_id',
  'old_gpu_costpersec',
  'new_gpu_costpersec',
  'old_disk_ram_costpersec',
  'new_disk_ram_costpersec',
  'old_bwu_cost',
  'new_bwu_cost',
  'old_bwd_cost',
  'new_bwd_cost',
  'old_platform_fee',
  'new_platform_fee',
  'contract_end_date',
  'ask_end_date',
  'created_at',
].sort();

interface Row {
  pending_price_increase_id: number;
  contract_id: number;
  host_id: number;
  old_gpu_costpersec: number;
  new_gpu_costpersec: number | null;
  old_disk_ram_costpersec: number;
  new_disk_ram_costpersec: number | null;
  contract_end_date: number;
  ask_end_date: number | null;
  created_at: number;
}

describe('marketplace: host price increases', () => {
  const sim = simulatorForSuite({ bootSeconds: 1, credit: 100_000 }, { each: true, clock: true });
  const credit = async (key?: string) => obj(await call(sim, 'GET', '/api/v0/users/current/', undefined, key)).credit as number;

  async function pending(key?: string): Promise<{ count: number; truncated: boolean; rows: Row[] }> {
    const answer = await call(sim, 'GET', '/api/v0/instances/pending-price-increases/', undefined, key);
    assert.equal(answer.status, 200, answer.text);
    const body = obj(answer);
    assert.equal(body.success, true);
    return { count: body.count as number, truncated: body.truncated as boolean, rows: body.pending_price_increases as Row[] };
  }

  /** An on-demand instance, booted. */
  async function rented(key?: string): Promise<number> {
    const { id } = await rentOne(sim, {}, key);
    await sim.clock.advance(2_000);
    return id;
  }

  /** The host asks more (the control route); answers the new row. */
  async function ask(id: number, body: Record<string, unknown> = {}): Promise<Row> {
    const answered = (await control(sim, 'POST', `instances/${id}/price-increase`, body)) as {
      success: boolean;
      pending_price_increase: Row;
    };
    assert.equal(answered.success, true);
    return answered.pending_price_increase;
  }

  const answer = (how: 'accept' | 'reject', body: unknown, key?: string) =>
    call(sim, 'PUT', `/api/v0/instances/${how}-price-increase/`, body, key);

  async function notPending(how: 'accept' | 'reject', id: number, key?: string): Promise<void> {
    const res = await answer(how, { pending_price_increase_id: id }, key);
    assert.equal(res.status, 404, res.text);
    const body = obj(res);
    assert.deepEqual([body.success, body.error], [false, 'no_pending_price_increase']);
    assert.equal(typeof body.msg, 'string');
  }

  it('lists only the caller’s pending rows, with the reference’s fields and the instance’s prices per second', async () => {
    const id = await rented();
    const record = (await show(sim, id))!;
    const row = await ask(id);
    const listed = await pending();
    assert.deepEqual([listed.count, listed.truncated], [1, false]);
    assert.deepEqual(listed.rows, [row]);
    assert.deepEqual(Object.keys(row).sort(), ROW_FIELDS);
    assert.equal(row.contract_id, id);
    assert.equal(row.host_id, record.host_id);
    near(row.old_gpu_costpersec, (record.dph_base as number) / 3600, 1e-9);
    near(row.new_gpu_costpersec!, row.old_gpu_costpersec * 1.2, 1e-9);
    near(row.old_disk_ram_costpersec, (record.storage_total_cost as number) / 3600, 1e-9);
    assert.equal(row.new_disk_ram_costpersec, null, 'the disk price is unchanged by default');
    near(row.contract_end_date, record.end_date as number, 1e-3);
    near(row.ask_end_date!, row.contract_end_date + 30 * 86_400, 1e-3);
    assert.equal(row.created_at, Math.floor(sim.clock.now() / 1000));

    const other = (await control(sim, 'POST', 'accounts', { credit: 1000 })) as { key: string };
    assert.equal((await pending(other.key)).count, 0, 'another account sees none of them');
    const theirs = await ask(await rented(other.key));
    assert.deepEqual((await pending(other.key)).rows, [theirs]);
    assert.deepEqual(
      (await pending()).rows.map((r) => r.pending_price_increase_id),
      [row.pending_price_increase_id],
    );
  });

  it('accepting moves the end to ask_end_date at once, and bills the new price from the old end on', async () => {
    const id = await rented();
    const before = (await show(sim, id))!;
    const row = await ask(id, { gpu_costpersec: 0.0005, disk_ram_costpersec: 0.00001 });
    const res = await answer('accept', { pending_price_increase_id: row.pending_price_increase_id });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(obj(res), { success: true, pending_price_increase_id: row.pending_price_increase_id, contract_id: id });
    assert.equal((await pending()).count, 0);
    const after = (await show(sim, id))!;
    near(after.end_date as number, row.ask_end_date!, 1e-3);
    assert.equal(after.dph_total, before.dph_total, 'the price is the old one until the old end');

    // An hour before the old end, then two hours across it: one at the old price, one at the new.
    await sim.clock.advance(row.contract_end_date * 1000 - sim.clock.now() - 3_600_000);
    assert.equal((await show(sim, id))!.dph_total, before.dph_total);
    const start = await credit();
    await sim.clock.advance(2 * 3_600_000);
    const newTotal = 0.0005 * 3600 + 0.00001 * 3600;
    near(start - (await credit()), (before.dph_total as number) + newTotal, 1e-4);
    const changed = (await show(sim, id))!;
    near(changed.dph_base as number, 0.0005 * 3600);
    near(changed.dph_total as number, newTotal);
    near(changed.end_date as number, row.ask_end_date!, 1e-3);
  });

  it('a null new price leaves that part alone, and a boot after the change bills at the new price', async () => {
    const id = await rented();
    const before = (await show(sim, id))!;
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'stopped' });
    const row = await ask(id, { gpu_costpersec: 0.001 });
    assert.equal((await answer('accept', { pending_price_increase_id: row.pending_price_increase_id })).status, 200);
    await sim.clock.advance(row.contract_end_date * 1000 - sim.clock.now() + 60_000);
    const stopped = (await show(sim, id))!;
    near(stopped.dph_base as number, 3.6);
    assert.equal(stopped.storage_total_cost, before.storage_total_cost, 'the disk price did not change');
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'running' });
    await sim.clock.advance(2_000);
    const start = await credit();
    await sim.clock.advance(3_600_000);
    near(start - (await credit()), 3.6 + (before.storage_total_cost as number), 1e-4);
  });

  it('rejecting changes nothing on the contract', async () => {
    const id = await rented();
    const before = (await show(sim, id))!;
    const row = await ask(id);
    const res = await answer('reject', { pending_price_increase_id: row.pending_price_increase_id });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(obj(res), { success: true, pending_price_increase_id: row.pending_price_increase_id, contract_id: id });
    assert.equal((await pending()).count, 0);
    await sim.clock.advance(row.contract_end_date * 1000 - sim.clock.now() + 3_600_000);
    const after = (await show(sim, id))!;
    assert.deepEqual([after.dph_total, after.end_date], [before.dph_total, before.end_date]);
    await notPending('accept', row.pending_price_increase_id);
  });

  it('the control lists every row of every account with its status and the body that answered it', async () => {
    const id = await rented();
    const rejected = await ask(id);
    await answer('reject', { pending_price_increase_id: rejected.pending_price_increase_id });
    const accepted = await ask(id);
    await answer('accept', { pending_price_increase_id: accepted.pending_price_increase_id });
    const acceptedAt = Math.floor(sim.clock.now() / 1000);
    const replaced = await ask(id);
    await ask(id);
    const other = (await control(sim, 'POST', 'accounts', { credit: 1000 })) as { id: number; key: string };
    await ask(await rented(other.key));
    const log = ((await control(sim, 'GET', 'price-increases')) as { price_increases: Array<Record<string, unknown>> }).price_increases;
    assert.deepEqual(
      log.map((r) => [r.status, r.account_id]),
      [
        ['rejected', sim.accountId],
        ['accepted', sim.accountId],
        ['expired', sim.accountId],
        ['pending', sim.accountId],
        ['pending', other.id],
      ],
    );
    assert.deepEqual(log[0]!.answer_body, { pending_price_increase_id: rejected.pending_price_increase_id });
    assert.deepEqual(log[1]!.answer_body, { pending_price_increase_id: accepted.pending_price_increase_id });
    assert.equal(log[1]!.answered_at, acceptedAt);
    assert.equal(log[1]!.applied_at, null, 'the price rises only at the old end');
    assert.ok(!('answer_body' in log[2]!), `${replaced.pending_price_increase_id} was never answered`);
    assert.deepEqual(sim.control.priceIncreases(), log);
  });

  it('refuses an answer whose body is not exactly {"pending_price_increase_id": <integer>}', async () => {
    const id = await rented();
    const row = await ask(id);
    const pid = row.pending_price_increase_id;
    for (const body of [
      {},
      { pending_price_increase_id: String(pid) },
      { pending_price_increase_id: pid + 0.5 },
      { pending_price_increase_id: null },
      { pending_price_increase_id: pid, client_id: 'me' },
      { pending_price_increase_id: pid, instance_id: id },
      [pid],
    ]) {
      for (const how of ['accept', 'reject'] as const) {
        const res = await answer(how, body);
        assert.equal(res.status, 400, `${how} ${JSON.stringify(body)}: ${res.text}`);
        const refusal = obj(res);
        assert.deepEqual([refusal.success, refusal.error], [false, 'invalid_args']);
        assert.equal(typeof refusal.msg, 'string');
      }
    }
    assert.deepEqual(
      (await pending()).rows.map((r) => r.pending_price_increase_id),
      [pid],
      'still pending',
    );
  });

  it('answers 404 no_pending_price_increase for a row accepted, replaced, expired, another account’s or unknown', async () => {
    const id = await rented();
    const first = await ask(id);
    const second = await ask(id);
    assert.deepEqual(
      (await pending()).rows.map((r) => r.pending_price_increase_id),
      [second.pending_price_increase_id],
      'a newer increase replaces the pending one',
    );
    await notPending('accept', first.pending_price_increase_id);
    await notPending('reject', first.pending_price_increase_id);
    assert.equal((await answer('accept', { pending_price_increase_id: second.pending_price_increase_id })).status, 200);
    await notPending('accept', second.pending_price_increase_id);
    await notPending('reject', second.pending_price_increase_id);
    await notPending('accept', 987_654_321);

    const other = (await control(sim, 'POST', 'accounts', { credit: 1000 })) as { key: string };
    const theirs = await ask(await rented(other.key));
    await notPending('accept', theirs.pending_price_increase_id);
    await notPending('reject', theirs.pending_price_increase_id);
    assert.equal((await pending(other.key)).count, 1, 'still pending for its own account');

    // Left unanswered past the contract's end, it expires.
    await sim.clock.advance(theirs.contract_end_date * 1000 - sim.clock.now() + 1_000);
    assert.equal((await pending(other.key)).count, 0);
    await notPending('accept', theirs.pending_price_increase_id, other.key);

    // So does one whose instance is destroyed.
    const gone = await rented();
    const orphan = await ask(gone);
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${gone}/`)).status, 200);
    await notPending('accept', orphan.pending_price_increase_id);
  });

  it('reads the pending list with instance_read and answers with instance_write', async () => {
    const id = await rented();
    const row = await ask(id);
    const key = async (permissions: unknown) =>
      obj(await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'scoped', permissions })).key as string;
    const reader = await key({ api: { instance_read: {} } });
    const writer = await key({ api: { instance_write: {} } });
    assert.equal((await pending(reader)).count, 1);
    assert.equal((await call(sim, 'GET', '/api/v0/instances/pending-price-increases/', undefined, writer)).status, 403);
    assert.equal((await answer('accept', { pending_price_increase_id: row.pending_price_increase_id }, reader)).status, 403);
    assert.equal((await answer('reject', { pending_price_increase_id: row.pending_price_increase_id }, writer)).status, 200);
  });

  it('the control asks what it is given, in process too, and refuses a bid instance or an end before the contract’s', async () => {
    const id = await rented();
    const end = (await show(sim, id))!.end_date as number;
    const row = await ask(id, { gpu_costpersec: 0.0002, disk_ram_costpersec: 0.000003, ask_end_date: end + 86_400 });
    assert.deepEqual([row.new_gpu_costpersec, row.new_disk_ram_costpersec, row.ask_end_date], [0.0002, 0.000003, end + 86_400]);
    const inProcess = sim.control.priceIncrease(id, { gpu_costpersec: 0.0003 });
    assert.equal(inProcess.new_gpu_costpersec, 0.0003);
    assert.deepEqual(
      (await pending()).rows.map((r) => r.pending_price_increase_id),
      [inProcess.pending_price_increase_id],
    );
    const early = await call(sim, 'POST', `/__control/instances/${id}/price-increase`, { ask_end_date: end - 60 }, null);
    assert.equal(early.status, 400, early.text);
    const bad = await call(sim, 'POST', `/__control/instances/${id}/price-increase`, { gpu_costpersec: 'more' }, null);
    assert.equal(bad.status, 400, bad.text);
    assert.equal((await call(sim, 'POST', '/__control/instances/999999/price-increase', {}, null)).status, 404);

    const bid = await rentBid(sim, 0.05);
    const refused = await call(sim, 'POST', `/__control/instances/${bid}/price-increase`, {}, null);
    assert.equal(refused.status, 400, refused.text);
  });
});
