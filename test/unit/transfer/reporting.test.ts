// What a transfer's progress shows, decided in core (core/transfer/progress.ts's reportTransfer):
// a line at most every 250 ms (the last, 100%, always), the bar moved by the percent gained and
// never back, a notice as a line and then in front of the lines after it, Cancel as the signal.
import assert from 'node:assert/strict';
import type { ProgressUpdate } from '../../../src/core/progress';
import { PROGRESS_EVERY_MS, reportTransfer } from '../../../src/core/transfer/progress';

function task() {
  const updates: ProgressUpdate[] = [];
  const abort = new AbortController();
  return { updates, abort, task: { signal: abort.signal, report: (u: ProgressUpdate) => void updates.push(u) } };
}

describe('transfer: the progress a transfer reports', () => {
  it('shows a line at most every 250 ms, and always the 100% one', () => {
    let now = 1_000;
    const t = task();
    const r = reportTransfer(t.task, () => now);
    r.onProgress({ bytes: 100, total: 1_000, percent: 10 });
    now += PROGRESS_EVERY_MS - 1;
    r.onProgress({ bytes: 200, total: 1_000, percent: 20 });
    now += 1;
    r.onProgress({ bytes: 300, total: 1_000, percent: 30 });
    now += 10;
    r.onProgress({ bytes: 1_000, total: 1_000, percent: 100 });
    assert.deepEqual(
      t.updates.map((u) => u.message),
      ['10% · 100 B of 1.0 kB', '30% · 300 B of 1.0 kB', '100% · 1.0 kB of 1.0 kB'],
    );
  });

  it('moves the bar by the percent gained since the last line, never back, adding up to 100', () => {
    let now = 0;
    const t = task();
    const r = reportTransfer(t.task, () => now);
    for (const percent of [5, 40, 35, 35, 80, 100]) {
      now += PROGRESS_EVERY_MS;
      r.onProgress({ bytes: percent, percent });
    }
    assert.deepEqual(
      t.updates.map((u) => u.increment),
      [5, 35, 0, 0, 40, 20],
    );
    assert.equal(
      t.updates.reduce((sum, u) => sum + (u.increment ?? 0), 0),
      100,
    );
  });

  it('a line without a percent (tar: bytes only) leaves the bar where it is', () => {
    let now = 0;
    const t = task();
    const r = reportTransfer(t.task, () => now);
    r.onProgress({ bytes: 4_000_000, bytesPerSecond: 2_000_000 });
    now += PROGRESS_EVERY_MS;
    r.onProgress({ bytes: 8_000_000 });
    assert.deepEqual(t.updates, [
      { message: '4.0 MB · 2.0 MB/s', increment: 0 },
      { message: '8.0 MB', increment: 0 },
    ]);
  });

  it('shows a notice as a line, then in front of each line after it', () => {
    let now = 0;
    const t = task();
    const r = reportTransfer(t.task, () => now);
    r.onNotice('The instance has no rsync: sending everything with tar.');
    now += PROGRESS_EVERY_MS;
    r.onProgress({ bytes: 500, total: 1_000, percent: 50 });
    assert.deepEqual(
      t.updates.map((u) => u.message),
      [
        'The instance has no rsync: sending everything with tar.',
        'The instance has no rsync: sending everything with tar. 50% · 500 B of 1.0 kB',
      ],
    );
  });

  it('hands the transfer the progress’s Cancel', () => {
    const t = task();
    const r = reportTransfer(t.task);
    assert.equal(r.signal.aborted, false);
    t.abort.abort();
    assert.equal(r.signal.aborted, true);
  });
});
