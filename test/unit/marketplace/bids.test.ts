import assert from 'node:assert/strict';
import { call, control, eventually, obj, show, simulatorForSuite } from '../../support';

const near = (a: number, b: number, eps = 1e-4) => assert.ok(Math.abs(a - b) < eps, `${a} is not ${b}`);

interface Listed {
  id: number;
  machine_id: number;
  min_bid: number;
  dph_base: number;
  dph_total: number;
  storage_total_cost: number;
}

describe('marketplace: interruptible instances (bids)', () => {
  const sim = simulatorForSuite({ bootSeconds: 10, credit: 100 }, { each: true, clock: true });
  const credit = async () => obj(await call(sim, 'GET', '/api/v0/users/current/')).credit as number;

  /** The cheapest offer as a bid search lists it. */
  async function bidOffer(): Promise<Listed> {
    const body = { rentable: { eq: true }, order: [['dph_total', 'asc']], type: 'bid', allocated_storage: 10, limit: 1 };
    return (obj(await call(sim, 'POST', '/api/v0/bundles/', body)).offers as Listed[])[0]!;
  }

  /** Rents that offer with a bid of `price` and lets it boot. */
  async function rentBid(offer: Listed, price: number): Promise<number> {
    const res = obj(await call(sim, 'PUT', `/api/v0/asks/${offer.id}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 10, price }));
    const id = res.new_contract as number;
    await sim.clock.advance(11_000);
    return id;
  }

  it('lists a bid search at the minimum bid plus disk, keeping the on-demand GPU price in dph_base', async () => {
    const offer = await bidOffer();
    near(offer.dph_total, offer.min_bid + offer.storage_total_cost, 1e-5);
    assert.ok(offer.dph_base > offer.min_bid, 'on demand costs more than the minimum bid');
  });

  it('refuses a rent below the minimum bid, and bills a winning bid at the bid', async () => {
    const offer = await bidOffer();
    const low = await call(sim, 'PUT', `/api/v0/asks/${offer.id}/`, { client_id: 'me', image: 'x', disk: 10, price: offer.min_bid / 2 });
    assert.equal(low.status, 400);
    const bid = offer.min_bid + 0.05;
    const id = await rentBid(offer, bid);
    const r = (await show(sim, id))!;
    assert.deepEqual([r.actual_status, r.is_bid], ['running', true]);
    near(r.dph_base as number, bid);
    near(r.min_bid as number, offer.min_bid);
  });

  it('outbids: the instance stops wanting to run, only its disk bills, and the machine lists the new minimum', async () => {
    const offer = await bidOffer();
    const bid = offer.min_bid + 0.02;
    const id = await rentBid(offer, bid);
    const answer = obj(await call(sim, 'POST', `/__control/instances/${id}/outbid`, {}, null));
    const min = answer.min_bid as number;
    assert.ok(min > bid, 'the new minimum beats the bid');
    const r = (await show(sim, id))!;
    assert.deepEqual([r.actual_status, r.intended_status], ['stopped', 'running']);
    assert.match(String(r.status_msg), /outbid/i);
    near(r.min_bid as number, min);
    const before = await credit();
    await sim.clock.advance(3_600_000);
    near(before - (await credit()), r.storage_total_cost as number, 1e-5);
    const relisted = (
      obj(await call(sim, 'POST', '/api/v0/bundles/', { machine_id: { eq: offer.machine_id }, type: 'bid' })).offers as Listed[]
    )[0]!;
    near(relisted.min_bid, min);
    // Another renter's minimum does not let a start through: it keeps waiting.
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'running' });
    await sim.clock.advance(11_000);
    assert.deepEqual([(await show(sim, id))!.actual_status, (await show(sim, id))!.intended_status], ['stopped', 'running']);
  });

  it('a bid at the new minimum boots it again and bills at the new bid; a lower one leaves it waiting', async () => {
    const offer = await bidOffer();
    const id = await rentBid(offer, offer.min_bid + 0.01);
    const { min_bid: min } = (await control(sim, 'POST', `instances/${id}/outbid`, { minBid: offer.min_bid + 0.1 })) as { min_bid: number };
    const short = await call(sim, 'PUT', `/api/v0/instances/bid_price/${id}/`, { client_id: 'me', price: min - 0.01 });
    assert.equal(short.status, 200);
    await sim.clock.advance(11_000);
    assert.equal((await show(sim, id))!.actual_status, 'stopped');
    assert.equal(obj(await call(sim, 'PUT', `/api/v0/instances/bid_price/${id}/`, { client_id: 'me', price: min })).success, true);
    await sim.clock.advance(11_000);
    const r = (await show(sim, id))!;
    assert.deepEqual([r.actual_status, r.intended_status], ['running', 'running']);
    near(r.dph_base as number, min);
    const before = await credit();
    await sim.clock.advance(3_600_000);
    near(before - (await credit()), r.dph_total as number, 1e-5);
  });

  it('a user stop of an outbid instance ends the wait', async () => {
    const offer = await bidOffer();
    const id = await rentBid(offer, offer.min_bid + 0.01);
    await control(sim, 'POST', `instances/${id}/outbid`, {});
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'stopped' });
    assert.equal((await show(sim, id))!.intended_status, 'stopped');
  });

  it('validates a change of bid as the service does', async () => {
    const offer = await bidOffer();
    const id = await rentBid(offer, offer.min_bid + 0.01);
    for (const price of [0, 0.0001, 33, 'x', undefined]) {
      const res = await call(sim, 'PUT', `/api/v0/instances/bid_price/${id}/`, { client_id: 'me', price });
      assert.equal(res.status, 400, `price ${String(price)}`);
      assert.equal(obj(res).error, 'invalid_args');
    }
    const other = sim.control.addAccount({ credit: 10 });
    const theirs = await call(sim, 'PUT', `/api/v0/instances/bid_price/${id}/`, { client_id: 'me', price: 1 }, other.key);
    assert.equal(theirs.status, 404, "another account's instance is not found");
    const onDemand = obj(
      await call(sim, 'PUT', `/api/v0/asks/${(await bidOffer()).id}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 10 }),
    ).new_contract as number;
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/bid_price/${onDemand}/`, { client_id: 'me', price: 1 })).status, 400);
    const notBid = await call(sim, 'POST', `/__control/instances/${onDemand}/outbid`, {}, null);
    assert.equal(notBid.status, 400, 'an on-demand instance cannot be outbid');
  });
});

describe('marketplace: outbid instances resume when the other bids fall', () => {
  const sim = simulatorForSuite({ bootSeconds: 10, credit: 100, logReadyMs: 0 }, { each: true, clock: true });
  const credit = async () => obj(await call(sim, 'GET', '/api/v0/users/current/')).credit as number;
  const MACHINE = 990_001;

  /** Lists an offer on MACHINE (minimum bid 0.2 $/h), rents it with a bid of `price` and lets it boot. */
  async function rentOnMachine(price: number): Promise<number> {
    const { offer } = (await control(sim, 'POST', 'offers', { machine_id: MACHINE, dph_total: 1, min_bid: 0.2 })) as {
      offer: { id: number };
    };
    const res = obj(await call(sim, 'PUT', `/api/v0/asks/${offer.id}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 8, price }));
    await sim.clock.advance(11_000);
    return res.new_contract as number;
  }

  const lower = async (id: number, body: Record<string, unknown> = {}) =>
    (await control(sim, 'POST', `instances/${id}/bids-lowered`, body)) as { min_bid: number; resumed: number[] };
  const statuses = async (...ids: number[]) =>
    Promise.all(ids.map(async (id) => [(await show(sim, id))!.actual_status, (await show(sim, id))!.intended_status]));

  it('boots every outbid instance on the machine whose bid reaches the new minimum, and only those', async () => {
    const winner = await rentOnMachine(0.5);
    const userStopped = await rentOnMachine(0.5);
    const low = await rentOnMachine(0.3);
    for (const id of [winner, userStopped, low]) await control(sim, 'POST', `instances/${id}/outbid`, { minBid: 0.6 });
    await call(sim, 'PUT', `/api/v0/instances/${userStopped}/`, { state: 'stopped' });
    assert.deepEqual(await statuses(winner, userStopped, low), [
      ['stopped', 'running'],
      ['stopped', 'stopped'],
      ['stopped', 'running'],
    ]);

    const answer = await lower(winner, { minBid: 0.4 });
    assert.deepEqual([answer.min_bid, answer.resumed], [0.4, [winner]]);
    // Back through the boot, as a start goes: scheduling, then loading, then running.
    const booting = (await show(sim, winner))!;
    assert.deepEqual([booting.actual_status, booting.intended_status], [null, 'running']);
    assert.doesNotMatch(String(booting.status_msg), /outbid/i, 'the outbid message is gone');
    await sim.clock.advance(5_000);
    assert.equal((await show(sim, winner))!.actual_status, 'loading');
    await sim.clock.advance(6_000);
    const r = (await show(sim, winner))!;
    assert.deepEqual([r.actual_status, r.intended_status], ['running', 'running']);
    assert.match(String(r.status_msg), /^success, running/);
    near(r.min_bid as number, 0.4);
    near(r.dph_base as number, 0.5, 1e-6);
    assert.deepEqual(await statuses(userStopped, low), [
      ['stopped', 'stopped'],
      ['stopped', 'running'],
    ]);
    const before = await credit();
    await sim.clock.advance(3_600_000);
    // GPU billing resumed at the bid; the two still stopped bill their disks only.
    const disks = ((await show(sim, userStopped))!.storage_total_cost as number) + ((await show(sim, low))!.storage_total_cost as number);
    near(before - (await credit()), (r.dph_total as number) + disks, 1e-5);

    const { result_url: url } = obj(await call(sim, 'PUT', `/api/v0/instances/request_logs/${winner}/`, {}));
    const log = await eventually(async () => {
      const res = await fetch(String(url));
      return res.status === 200 ? res.text() : undefined;
    }, 'the log');
    assert.match(log, /Resuming: the other bids fell, so your bid 0\.5 is the highest again/);
    assert.match(log.slice(log.indexOf('Resuming')), /Container started/, 'the container starts again after it');

    // Down to the offer's listed minimum (the default): the low bid reaches it and resumes too.
    const back = await lower(winner);
    assert.deepEqual([back.min_bid, back.resumed], [0.2, [low]]);
    await sim.clock.advance(11_000);
    assert.deepEqual(await statuses(low, userStopped), [
      ['running', 'running'],
      ['stopped', 'stopped'],
    ]);
  });

  it('refuses a minimum it cannot set, and searches list the lowered one', async () => {
    const id = await rentOnMachine(0.5);
    await control(sim, 'POST', `instances/${id}/outbid`, { minBid: 0.8 });
    for (const [body, status] of [
      [{ minBid: 0.9 }, 400],
      [{ minBid: 0.0005 }, 400],
      [{ minBid: 'low' }, 400],
    ] as const) {
      const res = await call(sim, 'POST', `/__control/instances/${id}/bids-lowered`, body, null);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(obj(res).error, 'invalid_args');
    }
    assert.equal((await call(sim, 'POST', '/__control/instances/999999/bids-lowered', {}, null)).status, 404);
    assert.deepEqual(await statuses(id), [['stopped', 'running']], 'a refused lowering resumes nothing');
    // In process, as tests drive it: a minimum still above the bid leaves the instance waiting.
    assert.deepEqual(sim.control.lowerBids(id, 0.7), { minBid: 0.7, resumed: [] });
    const listed = obj(await call(sim, 'POST', '/api/v0/bundles/', { machine_id: { eq: MACHINE }, type: 'bid' })).offers as Listed[];
    assert.ok(listed.length > 0 && listed.every((o) => Math.abs(o.min_bid - 0.7) < 1e-9), 'every offer of the machine lists 0.7');
    assert.deepEqual(await statuses(id), [['stopped', 'running']]);
  });
});
