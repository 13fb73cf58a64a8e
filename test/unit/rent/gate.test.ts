import assert from 'node:assert/strict';
import { RentGate } from '../../../src/core/rent/gate';

describe('rent gate (one rent at a time in a window)', () => {
  it('refuses a second rent while the first is asked for, saying so, and lets the next one in afterwards', async () => {
    const told: string[] = [];
    const gate = new RentGate({ busy: false }, (text) => told.push(text));
    let finish!: () => void;
    const first = gate.run(() => new Promise<number>((resolve) => (finish = () => resolve(1))));
    let ran = false;
    assert.equal(await gate.run(async () => ((ran = true), 2)), undefined);
    assert.equal(ran, false, 'the second click opens nothing');
    assert.deepEqual(told, ['GPU Rental: a rent is already in progress. Wait for it to finish.']);
    finish();
    assert.equal(await first, 1);
    assert.equal(await gate.run(() => Promise.resolve(3)), 3, 'free again once the first has ended');
  });

  it('is free again after a rent that failed, and refuses while the renter itself is busy', async () => {
    const renter = { busy: false };
    const told: string[] = [];
    const gate = new RentGate(renter, (text) => told.push(text));
    await assert.rejects(gate.run(() => Promise.reject(new Error('boom'))));
    assert.equal(gate.busy, false);
    renter.busy = true;
    assert.equal(await gate.run(() => Promise.resolve(1)), undefined);
    assert.equal(told.length, 1);
  });
});
