import assert from 'node:assert/strict';
import { costText } from '../../../src/core/instances/costText';
import { make, stopped } from './fakes';

describe("this window's instance cost", () => {
  it('says the rate while it runs, how long it has been rented and what it cost so far', () => {
    assert.equal(
      costText(make(1, { start_date: 1_000 }), 0.87, (1_000 + 7_500) * 1000),
      `"m1" (RTX 4090, #1) bills $0.400/h while it runs; rented 2h 05m ago; $0.870 so far, from the account's charges.`,
    );
  });

  it('says a stopped one bills for its disk, and when the cost so far is not known', () => {
    assert.equal(
      costText(stopped(1), undefined, 0),
      '"m1" (RTX 4090, #1) bills $0.020/h while stopped (its disk); what it cost so far is not known (the charges could not be read with this key).',
    );
  });
});
