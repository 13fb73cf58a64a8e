import assert from 'node:assert/strict';
import { lowCreditNotice, spendButtonLabel, spendCapRefusal } from '../../../src/core/billing/notices';

describe('billing: what the money safeguards tell the user', () => {
  it('the spend cap refuses what would go over it, naming the total, its parts, the cap and the setting', () => {
    const refusal = spendCapRefusal(1.5, 0.75, 2, 'renting RTX 4090');
    assert.deepEqual(refusal, {
      severity: 'error',
      text: 'GPU Rental: not renting RTX 4090. It would bring the hourly spend to $2.25/h ($1.50/h now + $0.750/h), over your cap of $2.00/h set in gpuRental.maxHourlySpend. Stop something first, or raise the cap.',
      actions: ['Open Settings'],
    });
  });

  it('the spend cap lets through what fits, and everything without a cap', () => {
    assert.equal(spendCapRefusal(1.5, 0.5, 2, 'x'), undefined, 'exactly at the cap');
    assert.equal(spendCapRefusal(100, 100, undefined, 'x'), undefined);
  });

  it('low credit by hours left says how long it lasts and that running instances are stopped when it runs out', () => {
    const n = lowCreditNotice({ reason: 'hours', credit: 5, perHour: 2, hoursLeft: 2.5 }, 0);
    assert.equal(
      n.text,
      'GPU Rental: low credit: at $2.00/h the credit of $5.00 lasts about 2 h 30 min. When it runs out, running instances are stopped. Add credit, or stop what you do not need.',
    );
    assert.deepEqual(n.actions, ['Show Instances', 'Snooze 1 Hour', 'Snooze 1 Day']);
  });

  it('low credit by amount names the limit; with nothing billing it does not speak of stopping', () => {
    const n = lowCreditNotice({ reason: 'amount', credit: 3, perHour: 0, hoursLeft: Infinity }, 10);
    assert.equal(
      n.text,
      'GPU Rental: low credit: the credit is down to $3.00, below your $10.00 limit. Add credit, or stop what you do not need.',
    );
  });

  it('an unknown credit says the warnings cannot work, with what bills now, and offers no snooze', () => {
    const n = lowCreditNotice({ reason: 'unknown', credit: undefined, perHour: 0.4, hoursLeft: undefined }, 10);
    assert.match(n.text, /^GPU Rental: the service did not report the account's credit, .* Instances bill \$0\.400\/h now;/);
    assert.deepEqual(n.actions, ['Show Instances']);
    assert.equal(spendButtonLabel('Snooze 1 Day'), 'Snooze 1 Day');
  });
});
