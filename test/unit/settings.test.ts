import assert from 'node:assert/strict';
import { SETTINGS } from '../../src/core/ids';
import { MAX_HOURLY_SPEND, MAX_IDLE_MINUTES, NUMBER_RULES, boundedNumber, spendCap, userOrDefault } from '../../src/core/settings';

describe('settings: what the reader takes', () => {
  it("takes the user's value or the default, never a workspace's or a folder's", () => {
    assert.equal(userOrDefault({ defaultValue: 30, globalValue: 45, workspaceValue: 100_000, workspaceFolderValue: 9 }), 45);
    assert.equal(userOrDefault({ defaultValue: true, workspaceValue: false }), true, 'a cloned repo cannot turn idle stop off');
    assert.equal(userOrDefault({ defaultValue: null, workspaceValue: 1e9 }), null, 'nor lift the spend cap');
    assert.equal(userOrDefault({ defaultValue: true, globalValue: false }), false, 'the user can');
    assert.equal(userOrDefault(undefined), undefined);
  });

  it('clamps idle minutes to a week, keeps fractions, and reads nonsense as the default', () => {
    const rule = NUMBER_RULES[SETTINGS.idleStopMinutes];
    assert.equal(boundedNumber(45, rule), 45);
    assert.equal(boundedNumber(0.002, rule), 0.002);
    assert.equal(boundedNumber(1.6e17, rule), MAX_IDLE_MINUTES);
    // JSON.parse reads 1e400 as Infinity: still a week, not "never".
    assert.equal(boundedNumber(JSON.parse('1e400') as number, rule), MAX_IDLE_MINUTES);
    assert.equal(boundedNumber(0, rule), 30);
    assert.equal(boundedNumber(-5, rule), 30);
    assert.equal(boundedNumber(Number.NaN, rule), 30);
    assert.equal(boundedNumber('45', rule), 30, 'a string in settings.json');
    assert.equal(boundedNumber(undefined, rule), 30);
  });

  it('clamps the other numbers to their bounds', () => {
    assert.equal(boundedNumber(250, NUMBER_RULES[SETTINGS.idleGpuThreshold]), 100);
    assert.equal(boundedNumber(-1, NUMBER_RULES[SETTINGS.idleGpuThreshold]), 5);
    assert.equal(boundedNumber(0, NUMBER_RULES[SETTINGS.idleGpuThreshold]), 0);
    assert.equal(boundedNumber(1e12, NUMBER_RULES[SETTINGS.idleCountdownSeconds]), 3600);
    assert.equal(boundedNumber(0, NUMBER_RULES[SETTINGS.idleCountdownSeconds]), 0);
    assert.equal(boundedNumber(1, NUMBER_RULES[SETTINGS.pollIntervalSeconds]), 10, 'below the minimum: the default');
    assert.equal(boundedNumber(1e6, NUMBER_RULES[SETTINGS.pollIntervalSeconds]), 600);
    assert.equal(boundedNumber(1e9, NUMBER_RULES[SETTINGS.sshReadyTimeoutSeconds]), 3600);
    assert.equal(boundedNumber(1e9, NUMBER_RULES[SETTINGS.lowCreditHours]), 1_000_000);
    assert.equal(boundedNumber(1e9, NUMBER_RULES[SETTINGS.lowCreditAmount]), 1_000_000);
  });

  it('reads the spend cap: empty or 0 is no cap, a huge one is the largest cap', () => {
    assert.equal(spendCap(null), undefined);
    assert.equal(spendCap(0), undefined);
    assert.equal(spendCap(-3), undefined);
    assert.equal(spendCap('2'), undefined);
    assert.equal(spendCap(2.5), 2.5);
    assert.equal(spendCap(1e300), MAX_HOURLY_SPEND);
  });
});
