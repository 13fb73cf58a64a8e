// The extension's own client and flows for a contract (src/core/api/contracts.ts, core/contracts/)
// against the simulator's price-increase and prepay routes: the exact body each answer sends, a
// stale row read as "nothing pending any more", the deposit as the service keeps it.
import assert from 'node:assert/strict';
import { answerIncreaseFlow } from '../../../src/core/contracts/answer';
import { priceIncreaseOf } from '../../../src/core/contracts/increase';
import { reserveFlow } from '../../../src/core/contracts/reserve';
import { clientFor, DEMO_KEY, rentOne, show, simulatorForSuite } from '../../support';
import { scriptedAsk } from '../../support/scriptedAsk';

describe('contracts against the simulator', function () {
  this.timeout(30_000);
  const sim = simulatorForSuite({ bootSeconds: 1, credit: 10_000 }, { each: true, clock: true });

  async function running() {
    const { id } = await rentOne(sim, {});
    await sim.clock.advance(2_000);
    return (await clientFor(sim.url, DEMO_KEY).client.instances.show(id))!;
  }

  it('lists a pending increase, rejects it with exactly its id, and a second answer reads "nothing pending any more"', async () => {
    const instance = await running();
    const { client } = clientFor(sim.url, DEMO_KEY);
    sim.control.priceIncrease(instance.id, { gpu_costpersec: 0.0004 });
    const { rows } = await client.contracts.pendingIncreases();
    assert.equal(rows.length, 1);
    const inc = priceIncreaseOf(rows[0]!);
    assert.equal(inc.instanceId, instance.id);
    assert.ok(Math.abs(inc.gpuNew! - 1.44) < 1e-9, `new GPU price ${inc.gpuNew}`);

    const first = await answerIncreaseFlow({ ask: scriptedAsk([{ confirm: true }]), contracts: client.contracts }, 'reject', inc, instance);
    assert.match(first!.notice.text, /rejected\./);
    const [logged] = sim.control.priceIncreases();
    assert.equal(logged!.status, 'rejected');
    assert.deepEqual(logged!.answer_body, { pending_price_increase_id: inc.id });
    assert.deepEqual((await client.contracts.pendingIncreases()).rows, []);

    const again = await answerIncreaseFlow({ ask: scriptedAsk([{ confirm: true }]), contracts: client.contracts }, 'accept', inc, instance);
    assert.equal(again!.notice.severity, 'info');
    assert.match(again!.notice.text, /nothing pending any more/);
  });

  it('accepts with exactly the id: the contract gets the end the host asked', async () => {
    const instance = await running();
    const { client } = clientFor(sim.url, DEMO_KEY);
    const row = sim.control.priceIncrease(instance.id, {});
    assert.equal(await client.contracts.acceptIncrease(row.pending_price_increase_id).then((a) => a.kind), 'done');
    const accepted = sim.control.priceIncreases().find((r) => r.pending_price_increase_id === row.pending_price_increase_id)!;
    assert.deepEqual(accepted.answer_body, { pending_price_increase_id: row.pending_price_increase_id });
    assert.equal(Math.round(((await show(sim, instance.id))!.end_date as number) ?? 0), Math.round(row.ask_end_date as number));
  });

  it('reserves with the amount asked, and the deposit reads back', async () => {
    const instance = await running();
    const { client } = clientFor(sim.url, DEMO_KEY);
    const month = Math.ceil(instance.dph_total! * 730);
    const ask = scriptedAsk([{ input: String(month) }, { confirm: true }]);
    const notice = await reserveFlow({ ask, contracts: client.contracts, credit: () => Promise.resolve(10_000) }, instance);
    assert.match(notice!.text, /It covers 1 month\. Discount: 20 %\./);
    const deposit = await client.contracts.deposit(instance.id);
    assert.equal(deposit.refundable_deposit, month);
  });

  it('says what the service refused: more than the credit is a 411, not enough credit', async () => {
    const instance = await running();
    const { client } = clientFor(sim.url, DEMO_KEY);
    const ask = scriptedAsk([{ input: '50000' }, { confirm: true }]);
    // The credit the flow was told is stale: the service refuses.
    const notice = await reserveFlow({ ask, contracts: client.contracts, credit: () => Promise.resolve(undefined) }, instance);
    assert.equal(notice!.severity, 'error');
    assert.match(notice!.text, /not enough credit/);
  });
});
