import { strict as assert } from 'node:assert';
import { LogTail, MAX_TAIL, MIN_FOLLOW_INTERVAL_MS, completeLines, followLog, overlapLength } from '../../../src/core/instances/logFollow';

const text = (...lines: string[]) => lines.map((l) => `${l}\n`).join('');
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line ${from + i}`);

describe('following an instance log', () => {
  describe('completeLines', () => {
    it('keeps every complete line and leaves a partial last line for the next read', () => {
      assert.deepEqual(completeLines('a\nb\n'), ['a', 'b']);
      assert.deepEqual(completeLines('a\nb\npart'), ['a', 'b']);
      assert.deepEqual(completeLines(''), []);
      assert.deepEqual(completeLines('a\r\n\n'), ['a', '']);
    });
  });

  describe('overlapLength', () => {
    it('finds the longest run ending what was shown that starts the read', () => {
      assert.equal(overlapLength(['a', 'b', 'c'], ['b', 'c', 'd']), 2);
      assert.equal(overlapLength(['a', 'b', 'c'], ['c', 'd']), 1);
      assert.equal(overlapLength(['a', 'b', 'c'], ['x', 'y']), 0);
      assert.equal(overlapLength([], ['x']), 0);
    });
  });

  describe('LogTail', () => {
    it('shows the first read whole, then only what overlapping reads add', () => {
      const tail = new LogTail();
      assert.deepEqual(tail.update(text(...range(0, 5)), 1000).fresh, range(0, 5));
      // The next read overlaps the last three lines and adds two.
      const step = tail.update(text(...range(2, 7)), 5);
      assert.deepEqual(step.fresh, ['line 5', 'line 6']);
      assert.equal(step.break, undefined);
      assert.deepEqual(tail.update(text(...range(2, 7)), 5).fresh, [], 'a read that adds nothing shows nothing');
    });

    it('keeps lines the log repeats on purpose', () => {
      const tail = new LogTail();
      tail.update(text('start', 'tick', 'tick'), 1000);
      // One more "tick" arrived: the read's window slid by one.
      assert.deepEqual(tail.update(text('tick', 'tick', 'tick'), 3).fresh, ['tick']);
      assert.deepEqual(tail.update(text('tick', 'tick', 'tick', 'done', 'done'), 5).fresh, ['done', 'done']);
      assert.deepEqual(tail.update(text('tick', 'done', 'done', 'done'), 4).fresh, ['done']);
    });

    it('says the log started over when a short read shares nothing with what was shown', () => {
      const tail = new LogTail();
      tail.update(text('boot', 'training epoch 1', 'training epoch 2'), 1000);
      const step = tail.update(text('boot again'), 100);
      assert.equal(step.break, 'reset');
      assert.deepEqual(step.fresh, ['boot again']);
      // After the restart, the old lines no longer count: "boot" is new again.
      assert.deepEqual(tail.update(text('boot again', 'boot'), 100).fresh, ['boot']);
    });

    it('says an emptied log started over, and shows what comes next whole', () => {
      const tail = new LogTail();
      tail.update(text('a', 'b'), 1000);
      assert.deepEqual(tail.update('', 100), { fresh: [], break: 'reset' });
      assert.deepEqual(tail.update(text('a'), 100).fresh, ['a']);
    });

    it('says lines were missed when a full read shares nothing with what was shown, and reads the most next time', () => {
      const tail = new LogTail();
      tail.update(text(...range(0, 10)), 1000);
      assert.equal(tail.tail, 100, 'a quiet log asks for the smallest tail');
      const step = tail.update(text(...range(500, 600)), 100);
      assert.equal(step.break, 'gap');
      assert.deepEqual(step.fresh, range(500, 600));
      assert.equal(tail.tail, MAX_TAIL);
    });

    it('asks for more lines when the log is busy', () => {
      const tail = new LogTail();
      tail.update(text(...range(0, 100)), 1000);
      tail.update(text(...range(0, 400)), 1000);
      assert.equal(tail.tail, 2 * 300 + 50);
    });

    it('waits for a partial last line to be completed rather than showing it twice', () => {
      const tail = new LogTail();
      assert.deepEqual(tail.update('a\nprogress 5', 1000).fresh, ['a']);
      assert.deepEqual(tail.update('a\nprogress 50%\nb\n', 1000).fresh, ['progress 50%', 'b']);
    });
  });

  describe('followLog', () => {
    const run = async (reads: Array<string | Error>, running: boolean[], options: { abortAfter?: number; intervalMs?: number } = {}) => {
      const controller = new AbortController();
      const appended: Array<{ lines: readonly string[]; note?: string }> = [];
      const tails: number[] = [];
      const waits: number[] = [];
      let n = 0;
      const result = await followLog(
        {
          read: (tail) => {
            tails.push(tail);
            const next = reads[Math.min(n++, reads.length - 1)]!;
            if (n === options.abortAfter) controller.abort();
            return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
          },
          stillRunning: () => Promise.resolve(running[Math.min(n - 1, running.length - 1)]!),
          append: (lines, note) => appended.push(note === undefined ? { lines } : { lines, note }),
          wait: (ms) => {
            waits.push(ms);
            return Promise.resolve();
          },
          intervalMs: options.intervalMs,
        },
        controller.signal,
      );
      return { result, appended, tails, waits };
    };

    it('appends new lines each read and ends when the instance stops', async () => {
      const { result, appended, tails, waits } = await run([text('a', 'b'), text('a', 'b', 'c'), text('b', 'c', 'd')], [true, true, false]);
      assert.deepEqual(result, { end: 'stopped' });
      assert.deepEqual(appended, [{ lines: ['a', 'b'] }, { lines: ['c'] }, { lines: ['d'] }]);
      assert.deepEqual(tails, [1000, 100, 100]);
      assert.deepEqual(waits, [MIN_FOLLOW_INTERVAL_MS, MIN_FOLLOW_INTERVAL_MS]);
    });

    it('never reads more often than the floor, whatever it is asked', async () => {
      const { waits } = await run([text('a')], [true, false], { intervalMs: 10 });
      assert.deepEqual(waits, [MIN_FOLLOW_INTERVAL_MS]);
    });

    it('notes a restart in the log', async () => {
      const { appended } = await run([text('a', 'b'), text('new')], [true, false]);
      assert.deepEqual(appended[1], { lines: ['new'], note: 'the log started over (the instance restarted)' });
    });

    it('retries a failed read, and gives up after three in a row', async () => {
      const boom = new Error('boom');
      const retried = await run([text('a'), boom, text('a', 'b')], [true, true, false]);
      assert.equal(retried.result.end, 'stopped');
      assert.deepEqual(retried.appended.at(-1), { lines: ['b'] });
      const failed = await run([boom, boom, boom], [true]);
      assert.deepEqual(failed.result, { end: 'failed', error: boom });
    });

    it('ends when cancelled', async () => {
      const { result } = await run([text('a'), text('a', 'b')], [true], { abortAfter: 2 });
      assert.deepEqual(result, { end: 'cancelled' });
    });
  });
});
