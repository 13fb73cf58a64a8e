import assert from 'node:assert/strict';
import { UserSchema } from '../../../src/core/api/account';
import { creditOf } from '../../../src/core/account/funds';
import { LowCreditWatch } from '../../../src/core/billing/lowCredit';
import { quoteRent } from '../../../src/core/rent/quote';
import { priceableOffer } from '../../support';

/** An account record as the service may send it: without credit, or with null. */
const noCredit = UserSchema.parse({ id: 3, email: 'a@b.c', credit: null });

describe('billing: an unknown credit is neither 0 nor plenty', () => {
  const offer = priceableOffer();

  it('a rent is not refused for an unknown credit, and no credit after a day is made up', () => {
    const q = quoteRent(offer, 40, creditOf(noCredit));
    assert.equal(q.affordable, true, 'not as 0, which would refuse every rent');
    assert.equal(q.creditAfterDay, undefined);
    assert.equal(quoteRent(offer, 40, 0).affordable, false, 'a known 0 still refuses');
  });

  it('the low-credit watch says once that it cannot check, while something bills', () => {
    const w = new LowCreditWatch(() => ({ hours: 24, amount: 5 }));
    const told = w.update(creditOf(noCredit), 1.5, 0);
    assert.deepEqual(told, { reason: 'unknown', credit: undefined, perHour: 1.5, hoursLeft: undefined });
    assert.equal(w.update(undefined, 1.5, 1), undefined, 'once, not on every poll');
    assert.equal(w.update(100, 1.5, 2), undefined, 'known again and plenty');
    assert.equal(w.update(undefined, 1.5, 3)?.reason, 'unknown', 'unknown again after it was known: told again');
  });

  it('nothing billing, or no limit set: nothing to say', () => {
    assert.equal(new LowCreditWatch(() => ({ hours: 24, amount: 5 })).update(undefined, 0, 0), undefined);
    assert.equal(new LowCreditWatch(() => ({ hours: 0, amount: 0 })).update(undefined, 2, 0), undefined);
  });

  it('an unknown credit never counts as a crossing: a known low credit after it still warns', () => {
    const w = new LowCreditWatch(() => ({ hours: 24, amount: 5 }));
    w.update(undefined, 1, 0);
    assert.equal(w.update(3, 1, 1)?.reason, 'amount');
  });
});
