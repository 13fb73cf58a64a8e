import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { checkSpendCap, formatHours, hoursLeft } from '../../../src/core/billing/burn';
import { LowCreditWatch } from '../../../src/core/billing/lowCredit';
import { burnRate } from '../../../src/core/instances/rates';

const inst = (id: number, actual: string | null, intended: string, dph: number, storage: number, label?: string) =>
  ({
    id,
    actual_status: actual,
    intended_status: intended,
    dph_total: dph,
    storage_total_cost: storage,
    num_gpus: 1,
    gpu_name: 'RTX 4090',
    label: label ?? null,
  }) as unknown as Instance;

describe('billing: burn rate, projection, cap', () => {
  it('adds running instances at their full rate and stopped or failed ones at their disk rate', () => {
    const burn = burnRate([
      inst(1, 'running', 'running', 0.5, 0.02, 'train'),
      inst(2, 'stopped', 'stopped', 0.4, 0.03),
      inst(3, 'exited', 'running', 0.3, 0.01),
      inst(4, 'loading', 'running', 0.2, 0.01),
    ]);
    assert.equal(burn.computePerHour.toFixed(2), '0.70');
    assert.equal(burn.storagePerHour.toFixed(2), '0.04');
    assert.equal(burn.perHour.toFixed(2), '0.74');
    assert.deepEqual(
      burn.shares.map((s) => [s.id, s.kind]),
      [
        [1, 'compute'],
        [4, 'compute'],
        [2, 'storage'],
        [3, 'storage'],
      ],
    );
    assert.deepEqual(
      burn.failed.map((f) => f.id),
      [3],
    );
    assert.equal(burn.shares[0]!.name, 'train');
  });

  it('names the ten largest of a large account and sums the rest, the same totals as one by one', () => {
    const list = Array.from({ length: 5000 }, (_, k) =>
      inst(
        k + 1,
        k % 7 === 0 ? 'stopped' : 'running',
        k % 7 === 0 ? 'stopped' : 'running',
        0.1 + ((k * 37) % 1000) / 1000,
        0.01,
        `n${k + 1}`,
      ),
    );
    const burn = burnRate(list);
    const rate = (i: Instance) => (i.actual_status === 'stopped' ? 0.01 : i.dph_total!);
    const byRate = [...list].sort((a, b) => rate(b) - rate(a) || a.id - b.id);
    assert.deepEqual(
      burn.shares.map((s) => s.id),
      byRate.slice(0, 10).map((i) => i.id),
    );
    const total = list.reduce((t, i) => t + rate(i), 0);
    assert.ok(Math.abs(burn.perHour - total) < 1e-6);
    assert.equal(burn.rest.count, 4990);
    const named = burn.shares.reduce((t, s) => t + s.perHour, 0);
    assert.ok(Math.abs(burn.rest.perHour - (total - named)) < 1e-6);
    assert.deepEqual(burnRate(list.slice(0, 3)).rest, { count: 0, perHour: 0 });
  });

  it('leaves destroyed instances out and is zero for none', () => {
    assert.equal(burnRate([inst(1, 'destroyed', 'stopped', 0.5, 0.02)]).perHour, 0);
    assert.equal(burnRate([]).perHour, 0);
  });

  it('projects how long the credit lasts', () => {
    assert.equal(hoursLeft(10, 0.5), 20);
    assert.equal(hoursLeft(10, 0), Infinity);
    assert.equal(hoursLeft(-3, 1), 0);
    assert.equal(formatHours(20), '20 h');
    assert.equal(formatHours(49.5), '2 d 1 h');
    assert.equal(formatHours(0.75), '45 min');
    assert.equal(formatHours(1.25), '1 h 15 min');
    assert.equal(formatHours(0.001), 'under a minute');
    assert.equal(formatHours(Infinity), 'indefinitely');
  });

  it('refuses only what would go over the cap', () => {
    assert.deepEqual(checkSpendCap(1, 0.5, 2), { allowed: true, total: 1.5 });
    assert.equal(checkSpendCap(1, 1, 2).allowed, true, 'exactly the cap is allowed');
    assert.equal(checkSpendCap(1.5, 0.6, 2).allowed, false);
    assert.equal(checkSpendCap(100, 100, undefined).allowed, true, 'no cap');
  });
});

describe('billing: low-credit warning', () => {
  const limits = { hours: 24, amount: 5 };
  it('warns once per crossing, not on every poll, and again after a top-up and a new crossing', () => {
    const w = new LowCreditWatch(() => limits);
    assert.equal(w.update(100, 1, 0), undefined, '100 h left');
    const first = w.update(20, 1, 1);
    assert.equal(first?.reason, 'hours');
    assert.equal(first?.hoursLeft, 20);
    assert.equal(w.update(19, 1, 2), undefined, 'still low: no second warning');
    assert.equal(w.update(200, 1, 3), undefined, 'topped up: re-armed');
    assert.equal(w.update(10, 1, 4)?.reason, 'hours');
  });

  it('warns below the amount even when nothing bills', () => {
    const w = new LowCreditWatch(() => limits);
    assert.equal(w.update(4, 0, 0)?.reason, 'amount');
    assert.equal(new LowCreditWatch(() => ({ hours: 24, amount: 0 })).update(4, 0, 0), undefined, 'amount 0: off');
  });

  it('a snooze silences it until it ends; a credit still low then warns again', () => {
    const w = new LowCreditWatch(() => limits);
    assert.ok(w.update(10, 1, 0));
    w.snooze(1000);
    assert.equal(w.update(9, 1, 500), undefined);
    assert.ok(w.update(8, 1, 1500), 'after the snooze');
  });
});
