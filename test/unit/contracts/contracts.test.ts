import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/api/errors';
import { isNotPending, type DepositRecord, type PendingIncreaseRecord } from '../../../src/core/api/contracts';
import type { Instance } from '../../../src/core/api/instances';
import { answerIncreaseFlow, type AnswerIncreaseDeps } from '../../../src/core/contracts/answer';
import { increaseShort, priceIncreaseOf } from '../../../src/core/contracts/increase';
import { documentedDiscount, monthsCovered, reserveFlow, type ReserveDeps } from '../../../src/core/contracts/reserve';
import { contractExtra, tooltipWithDeposit } from '../../../src/core/contracts/rows';
import { ContractWatch, contractFacts } from '../../../src/core/contracts/watch';
import { presentInstance } from '../../../src/core/instances/present';
import { MemoryLogger } from '../../support/logger';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const DAY = 86_400;

const running = (over: Partial<Instance> = {}): Instance => ({
  id: 7,
  label: 'train',
  gpu_name: 'RTX 4090',
  num_gpus: 1,
  actual_status: 'running',
  intended_status: 'running',
  is_bid: false,
  dph_total: 0.5,
  end_date: NOW / 1000 + 10 * DAY,
  ...over,
});

/** A row as the service lists it: $/s prices, a null new disk price (unchanged). */
const row = (over: Partial<PendingIncreaseRecord> = {}): PendingIncreaseRecord => ({
  pending_price_increase_id: 31,
  contract_id: 7,
  host_id: 900,
  old_gpu_costpersec: 0.4 / 3600,
  new_gpu_costpersec: 0.52 / 3600,
  old_disk_ram_costpersec: 0.1 / 3600,
  new_disk_ram_costpersec: null,
  contract_end_date: NOW / 1000 + 5 * DAY,
  ask_end_date: NOW / 1000 + 35 * DAY,
  created_at: NOW / 1000 - 60,
  ...over,
});

const lost = () =>
  new ApiError({ kind: 'timeout', action: 'x', method: 'PUT', path: '/api/v0/instances/accept-price-increase/', outcomeUnknown: true });

describe('contracts: a host price increase, read for people', () => {
  it('reads $ per second as $ per hour, and a null new part as unchanged', () => {
    const inc = priceIncreaseOf(row());
    assert.equal(inc.id, 31);
    assert.equal(inc.instanceId, 7);
    assert.ok(Math.abs(inc.gpuOld! - 0.4) < 1e-9 && Math.abs(inc.gpuNew! - 0.52) < 1e-9);
    assert.equal(inc.diskNew, inc.diskOld);
    assert.equal(increaseShort(inc), 'price rises to $0.620/h from 2026-12-04');
  });

  it('shows the increase on the row, in the tooltip and as a context tag for Accept and Reject', () => {
    const inc = priceIncreaseOf(row());
    const extra = contractExtra(contractFacts(running(), inc, NOW, 3));
    const p = presentInstance(running(), { nowMs: NOW, extra });
    assert.match(p.description, /price rises to \$0\.620\/h from 2026-12-04/);
    assert.match(p.contextValue, /(^|\+)priceIncrease(\+|$)/);
    assert.match(p.contextValue, /(^|\+)canReserve(\+|$)/);
    assert.match(p.tooltip, /\| Price increase \| \$0\.500\/h → \$0\.620\/h \|/);
    assert.match(p.tooltip, /\| New price from \| 2026-12-04 12:00 UTC \(the contract ends then\) \|/);
    assert.match(p.tooltip, /\| Contract end if accepted \| 2027-01-03 12:00 UTC \|/);
  });

  it('says a contract ends soon within the notice days, and not at all with 0', () => {
    const soon = running({ end_date: NOW / 1000 + 2 * DAY - 60 });
    assert.equal(contractFacts(soon, undefined, NOW, 3)?.endsInDays, 2);
    assert.equal(contractFacts(soon, undefined, NOW, 0), undefined);
    assert.equal(contractFacts(running(), undefined, NOW, 3), undefined);
    const p = presentInstance(soon, { nowMs: NOW, extra: contractExtra(contractFacts(soon, undefined, NOW, 3)) });
    assert.match(p.description, /contract ends in 2 days/);
    assert.match(p.contextValue, /contractEnds/);
  });

  it('offers Reserve only on a running on-demand instance', () => {
    assert.doesNotMatch(presentInstance(running({ is_bid: true }), { nowMs: NOW }).contextValue, /canReserve/);
    assert.doesNotMatch(
      presentInstance(running({ actual_status: 'exited', intended_status: 'stopped' }), { nowMs: NOW }).contextValue,
      /canReserve/,
    );
  });

  it('reads a 404 no_pending_price_increase and an older server 409 as "not pending", nothing else', () => {
    const err = (status: number, kind: ApiError['kind'], code?: string) =>
      new ApiError({ kind, action: 'a', method: 'PUT', path: '/p', status, code });
    assert.equal(isNotPending(err(404, 'not_found', 'no_pending_price_increase')), true);
    assert.equal(isNotPending(err(409, 'bad_request')), true);
    assert.equal(isNotPending(err(400, 'bad_request')), false);
    assert.equal(isNotPending(err(500, 'server')), false);
  });
});

describe('contracts: notices are told once, in one window', () => {
  function watch(rows: PendingIncreaseRecord[], told: Record<string, number> = {}) {
    const store = { told, writes: 0 };
    const w = new ContractWatch({
      account: () => ({ baseUrl: 'http://sim', profileId: 'default' }),
      list: () => Promise.resolve({ rows, truncated: false }),
      told: {
        get: () => store.told,
        change: (update) => {
          store.writes++;
          store.told = update(store.told);
          return Promise.resolve();
        },
      },
      logger: new MemoryLogger(),
      now: () => NOW,
    });
    return { w, store };
  }

  it('tells a new increase with Accept, Reject and Rent Like This Elsewhere, then never again', async () => {
    const { w, store } = watch([row()]);
    await w.refresh(true);
    const first = await w.toTell([running()], 3);
    assert.equal(first.length, 1);
    assert.deepEqual(first[0]!.notice.actions, ['accept', 'reject', 'rentElsewhere']);
    assert.match(first[0]!.notice.text, /asks \$0\.620\/h instead of \$0\.500\/h from 2026-12-04 12:00 UTC/);
    assert.deepEqual(await w.toTell([running()], 3), []);
    // A poll with nothing new writes nothing (polls come every few seconds).
    assert.equal(store.writes, 1);
    // Another window, sharing the record, says nothing either.
    const other = watch([row()], store.told);
    await other.w.refresh(true);
    assert.deepEqual(await other.w.toTell([running()], 3), []);
  });

  it('tells a contract end once per end date: a new end (an accepted increase) is told again', async () => {
    const { w } = watch([]);
    const soon = running({ end_date: NOW / 1000 + DAY });
    const told = await w.toTell([soon], 3);
    assert.equal(told.length, 1);
    assert.match(told[0]!.notice.text, /ends within a day/);
    assert.deepEqual(await w.toTell([soon], 3), []);
    assert.equal((await w.toTell([{ ...soon, end_date: NOW / 1000 + 2 * DAY }], 3)).length, 1);
  });

  it('keeps the newest row of a contract, and forgets the listing when signed out', async () => {
    const { w } = watch([row(), row({ pending_price_increase_id: 40 })]);
    await w.refresh(true);
    assert.equal(w.increaseOf(7)?.id, 40);
    w.forget();
    assert.equal(w.increaseOf(7), undefined);
  });
});

describe('contracts: Accept and Reject', () => {
  function kit(answers: readonly Answer[], over: Partial<AnswerIncreaseDeps['contracts']> = {}) {
    const ask = scriptedAsk(answers);
    const sent: Array<[string, number]> = [];
    const deps: AnswerIncreaseDeps = {
      ask,
      contracts: {
        acceptIncrease: (id) => (sent.push(['accept', id]), Promise.resolve({ kind: 'done' as const, contractId: 7 })),
        rejectIncrease: (id) => (sent.push(['reject', id]), Promise.resolve({ kind: 'done' as const, contractId: 7 })),
        pendingIncreases: () => Promise.resolve({ rows: [], truncated: false }),
        ...over,
      },
    };
    return { ask, sent, deps };
  }
  const inc = priceIncreaseOf(row());

  it('confirms Accept with the old and new prices and the date, then sends it', async () => {
    const { ask, sent, deps } = kit([{ confirm: true }]);
    const end = await answerIncreaseFlow(deps, 'accept', inc, running());
    assert.match(ask.asked[0]!.text, /Accept the higher price for "train" \(RTX 4090, #7\) \(\$0\.500\/h → \$0\.620\/h\)\?/);
    assert.match(ask.asked[0]!.detail, /From 2026-12-04 12:00 UTC the instance bills at the new price/);
    assert.deepEqual(sent, [['accept', 31]]);
    assert.match(end!.notice.text, /accepted\. "train" \(RTX 4090, #7\) bills \$0\.620\/h from 2026-12-04/);
  });

  it('sends nothing when the confirmation is dismissed', async () => {
    const { sent, deps } = kit([{ confirm: false }]);
    assert.equal(await answerIncreaseFlow(deps, 'reject', inc, running()), undefined);
    assert.deepEqual(sent, []);
  });

  it('reads a row no longer pending as "nothing pending any more", not an error', async () => {
    const { deps } = kit([{ confirm: true }], { rejectIncrease: () => Promise.resolve({ kind: 'notPending' as const }) });
    const end = await answerIncreaseFlow(deps, 'reject', inc, running());
    assert.equal(end!.notice.severity, 'info');
    assert.match(end!.notice.text, /nothing pending any more/);
  });

  it('after a lost answer, lists again: still pending says the answer was not taken', async () => {
    const { deps } = kit([{ confirm: true }], {
      acceptIncrease: () => Promise.reject(lost()),
      pendingIncreases: () => Promise.resolve({ rows: [row()], truncated: false }),
    });
    const end = await answerIncreaseFlow(deps, 'accept', inc, running());
    assert.equal(end!.notice.severity, 'warning');
    assert.match(end!.notice.text, /still pending: your answer was not taken/);
  });

  it('after a lost answer and a failed listing, says it is not known', async () => {
    const { deps } = kit([{ confirm: true }], {
      acceptIncrease: () => Promise.reject(lost()),
      pendingIncreases: () => Promise.reject(lost()),
    });
    const end = await answerIncreaseFlow(deps, 'accept', inc, running());
    assert.match(end!.notice.text, /it is not known whether the service took your answer/);
  });
});

describe('contracts: Reserve (prepay)', () => {
  function kit(answers: readonly Answer[], deposit: DepositRecord | undefined, over: Partial<ReserveDeps['contracts']> = {}) {
    const ask = scriptedAsk(answers);
    const prepaid: Array<[number, number]> = [];
    const deps: ReserveDeps = {
      ask,
      credit: () => Promise.resolve(1000),
      contracts: {
        deposit: () => (deposit ? Promise.resolve(deposit) : Promise.reject(new Error('no'))),
        prepay: (id, amount) => (prepaid.push([id, amount]), Promise.resolve({ timescale: 1.1, discount_rate: 0.2 })),
        ...over,
      },
    };
    return { ask, prepaid, deps };
  }

  it('estimates months from the on-demand rate and names the documented discount', () => {
    assert.ok(Math.abs(monthsCovered(365, 0.5) - 1) < 1e-9);
    assert.equal(documentedDiscount(0.5), undefined);
    assert.equal(documentedDiscount(1), 0.2);
    assert.equal(documentedDiscount(3.2), 0.3);
  });

  it('asks the amount, shows months, discount and the lock to the host, then prepays and says what the service set', async () => {
    const { ask, prepaid, deps } = kit([{ input: '400' }, { confirm: true }], { refundable_deposit: 0 });
    const notice = await reserveFlow(deps, running());
    assert.match(ask.asked[0]!.text, /one month is about \$365\.00/);
    assert.match(ask.asked[1]!.detail, /\$400\.00 covers about 1\.1 months at \$0\.500\/h/);
    assert.match(ask.asked[1]!.detail, /Discount: about 20 %/);
    assert.match(ask.asked[1]!.detail, /locked to this host/);
    assert.deepEqual(prepaid, [[7, 400]]);
    assert.match(notice!.text, /\$400\.00 prepaid on "train" \(RTX 4090, #7\)\. It covers 1\.1 months\. Discount: 20 %\./);
  });

  it('warns when a second deposit would shorten the term, and so can lower the discount', async () => {
    const { ask, deps } = kit([{ input: '50' }, { confirm: false }], { refundable_deposit: 200, discount_months: 3 });
    assert.equal(await reserveFlow(deps, running()), undefined);
    assert.match(ask.asked[1]!.detail, /Warning: a new deposit recalculates the discount over what remains\. Now the term is 3 months/);
  });

  it('refuses an interruptible instance and one not running, asking nothing', async () => {
    const { ask, deps } = kit([], undefined);
    assert.match((await reserveFlow(deps, running({ is_bid: true })))!.text, /only an on-demand instance can be reserved/);
    assert.match((await reserveFlow(deps, running({ actual_status: 'exited', intended_status: 'stopped' })))!.text, /not running/);
    assert.equal(ask.asked.length, 0);
  });

  it('says what the service refused: not enough credit (411)', async () => {
    const refused = new ApiError({
      kind: 'bad_request',
      action: 'prepay',
      method: 'PUT',
      path: '/p',
      status: 411,
      serverMessage: 'Insufficient credit',
    });
    const { deps } = kit([{ input: '100' }, { confirm: true }], undefined, { prepay: () => Promise.reject(refused) });
    const notice = await reserveFlow(deps, running());
    assert.equal(notice!.severity, 'error');
    assert.match(notice!.text, /not enough credit\. Add credit, or prepay less/);
  });

  it('after a lost answer, the deposit says whether the money went in; nothing is sent twice', async () => {
    let reads = 0;
    const { prepaid, deps } = kit([{ input: '100' }, { confirm: true }], undefined, {
      deposit: () => Promise.resolve({ refundable_deposit: reads++ === 0 ? 0 : 100 }),
      prepay: (id, amount) => (prepaid.push([id, amount]), Promise.reject(lost())),
    });
    const notice = await reserveFlow(deps, running());
    assert.equal(prepaid.length, 1);
    assert.match(notice!.text, /the deposit on "train" \(RTX 4090, #7\) is now \$100\.00: the prepay went through/);
  });

  it('shows the deposit in the tooltip, as text', () => {
    const md = tooltipWithDeposit('**x**', { refundable_deposit: 120, discount_months: 3, total_discount: 4.5 });
    assert.match(md, /\*\*Reserved:\*\* \$120\.00 deposited \(locked to this host\)/);
    assert.match(md, /\*\*Reservation term:\*\* 3 months/);
    assert.equal(tooltipWithDeposit('**x**', { refundable_deposit: 0 }), '**x**');
  });
});
