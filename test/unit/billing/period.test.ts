import assert from 'node:assert/strict';
import { customPeriod, dayProblem, exportFileName, lastDayProblem, lastDays, parseDay, periodOf } from '../../../src/core/billing/period';

const at = (iso: string) => Date.parse(iso);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('spend periods: UTC calendar ranges for Export Spend', () => {
  it('this month runs from the first of the month, UTC, to now, and names the month', () => {
    const p = periodOf('thisMonth', at('2026-10-15T08:30:00.400Z'));
    assert.equal(iso(p.from), '2026-10-01T00:00:00.000Z');
    assert.equal(iso(p.to), '2026-10-15T08:30:01.000Z');
    assert.equal(p.name, 'October 2026');
    assert.equal(exportFileName(p, 'csv'), 'gpu-rental-spend-2026-10.csv');
  });

  it('last month ends at the last second of its last day, also across a new year', () => {
    const p = periodOf('lastMonth', at('2027-01-01T00:00:05Z'));
    assert.equal(iso(p.from), '2026-12-01T00:00:00.000Z');
    assert.equal(iso(p.to), '2026-12-31T23:59:59.000Z');
    assert.equal(p.name, 'December 2026');
    assert.equal(exportFileName(p, 'json'), 'gpu-rental-spend-2026-12.json');
  });

  it('takes the month in UTC, not in the local time zone, just after midnight UTC', () => {
    // 2026-11-01 00:30 UTC is still October in the Americas: the service's days are UTC.
    const p = periodOf('thisMonth', at('2026-11-01T00:30:00Z'));
    assert.equal(p.name, 'November 2026');
    assert.equal(iso(p.from), '2026-11-01T00:00:00.000Z');
  });

  it('last month in a leap year ends on 29 February; in another year on the 28th', () => {
    assert.equal(iso(periodOf('lastMonth', at('2028-03-10T12:00:00Z')).to), '2028-02-29T23:59:59.000Z');
    assert.equal(iso(periodOf('lastMonth', at('2026-03-10T12:00:00Z')).to), '2026-02-28T23:59:59.000Z');
  });

  it('the last 30 and 90 days are that many UTC days, today included, end now and name both days', () => {
    const p = periodOf('last30', at('2026-10-31T10:00:00Z'));
    assert.equal(iso(p.from), '2026-10-02T00:00:00.000Z');
    assert.equal(iso(p.to), '2026-10-31T10:00:00.000Z');
    assert.deepEqual({ from: p.from, to: p.to }, lastDays(at('2026-10-31T10:00:00Z'), 30));
    assert.equal(p.name, '2026-10-02 to 2026-10-31');
    assert.equal(exportFileName(p, 'csv'), 'gpu-rental-spend-2026-10-02-to-2026-10-31.csv');
    const q = periodOf('last90', at('2026-10-31T10:00:00Z'));
    assert.equal(iso(q.from), '2026-08-03T00:00:00.000Z');
  });

  it('this year starts on 1 January UTC', () => {
    const p = periodOf('thisYear', at('2026-10-31T10:00:00Z'));
    assert.equal(iso(p.from), '2026-01-01T00:00:00.000Z');
    assert.equal(exportFileName(p, 'csv'), 'gpu-rental-spend-2026.csv');
  });

  it('reads a typed day only when it exists on the calendar', () => {
    assert.equal(parseDay('2028-02-29'), Date.parse('2028-02-29T00:00:00Z') / 1000);
    assert.equal(parseDay('2026-02-29'), undefined, 'not a leap year');
    assert.equal(parseDay('2026-13-01'), undefined);
    assert.equal(parseDay('2026-1-01'), undefined);
    assert.equal(parseDay('yesterday'), undefined);
    assert.match(dayProblem('2026-02-30')!, /YYYY-MM-DD/);
    assert.equal(dayProblem(' 2026-02-28 '), undefined);
  });

  it('a custom period covers whole UTC days, both included, and refuses a last day before the first', () => {
    const p = customPeriod('2026-09-15', '2026-10-14')!;
    assert.equal(iso(p.from), '2026-09-15T00:00:00.000Z');
    assert.equal(iso(p.to), '2026-10-14T23:59:59.000Z');
    assert.equal(exportFileName(p, 'csv'), 'gpu-rental-spend-2026-09-15-to-2026-10-14.csv');
    assert.equal(customPeriod('2026-10-14', '2026-10-13'), undefined);
    assert.match(lastDayProblem('2026-10-14', '2026-10-13')!, /not be before/);
    assert.equal(lastDayProblem('2026-10-14', '2026-10-14'), undefined);
    assert.equal(exportFileName(customPeriod('2026-10-14', '2026-10-14')!, 'csv'), 'gpu-rental-spend-2026-10-14.csv');
  });
});
