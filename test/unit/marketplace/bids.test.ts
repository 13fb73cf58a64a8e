import assert from 'node:assert/strict';
import { call, control, obj, show, simulatorForSuite } from '../../support';

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
