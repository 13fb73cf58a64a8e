import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/api/errors';
import type { Instance } from '../../../src/core/api/instances';
import { InstancePoller } from '../../../src/core/instances/poller';
import { FakeClock, MemoryLogger, settle } from '../../support';

const running = (id: number) => ({ id, actual_status: 'running', intended_status: 'running' }) as Instance;
const loading = (id: number) => ({ id, actual_status: 'loading', intended_status: 'running' }) as Instance;

function setup(answer: () => Promise<Instance[]> | Instance[]) {
  const timers = new FakeClock();
  let calls = 0;
  let concurrent = 0;
  let maxConcurrent = 0;
  const poller = new InstancePoller({
    timers,
    intervalMs: () => 10_000,
    logger: new MemoryLogger(),
    fetch: async () => {
      calls++;
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      try {
        return await answer();
      } finally {
        concurrent--;
      }
    },
  });
  return { timers, poller, calls: () => calls, maxConcurrent: () => maxConcurrent };
}

describe('instance poller', () => {
  it('is idle when nothing needs watching, and while signed out', async () => {
    const t = setup(() => [running(1)]);
    await t.timers.advance(60_000);
    assert.equal(t.calls(), 0, 'signed out');
    t.poller.setEnabled(true);
    await t.timers.advance(60_000);
    assert.equal(t.calls(), 0, 'signed in, nothing to watch');
    t.poller.setInterest('view', true);
    await t.timers.advance(1);
    assert.equal(t.calls(), 1, 'a visible view polls at once');
    t.poller.setInterest('view', false);
    await t.timers.advance(60_000);
    assert.equal(t.calls(), 1, 'running instances and no view: idle');
  });

  it('makes one request per interval while any instance boots, then stops', async () => {
    let list = [loading(1), loading(2), loading(3)];
    const t = setup(() => list);
    t.poller.setEnabled(true);
    t.poller.watch(1);
    await t.timers.advance(1);
    assert.equal(t.calls(), 1);
    await t.timers.advance(30_000);
    assert.equal(t.calls(), 4, 'one request per 10 s interval for three booting instances');
    list = [running(1), running(2), running(3)];
    await t.timers.advance(10_000);
    assert.equal(t.calls(), 5);
    await t.timers.advance(60_000);
    assert.equal(t.calls(), 5, 'all settled: idle');
    assert.deepEqual(t.poller.watchedIds, []);
  });

  it('never has two requests in flight, even when refreshed repeatedly', async () => {
    let release: () => void = () => {};
    const t = setup(() => new Promise<Instance[]>((resolve) => (release = () => resolve([loading(1)]))));
    t.poller.setEnabled(true);
    const a = t.poller.refresh();
    const b = t.poller.refresh();
    await t.timers.advance(50_000);
    assert.equal(t.calls(), 1);
    release();
    await Promise.all([a, b]);
    assert.equal(t.maxConcurrent(), 1);
  });

  it('backs off on errors and honours the wait a 429 asks for', async () => {
    let failWith: Error | undefined = new ApiError({ kind: 'server', action: 'list instances', method: 'GET', path: '/x', status: 503 });
    const t = setup(() => {
      if (failWith) throw failWith;
      return [loading(1)];
    });
    const failures: unknown[] = [];
    t.poller.onDidFail((e) => failures.push(e));
    t.poller.setEnabled(true);
    t.poller.setInterest('view', true);
    await t.timers.advance(1);
    assert.equal(t.calls(), 1);
    await t.timers.advance(19_998);
    assert.equal(t.calls(), 1, 'after one failure: waits two intervals');
    await t.timers.advance(2);
    assert.equal(t.calls(), 2);
    await t.timers.advance(40_000);
    assert.equal(t.calls(), 3, 'after two failures: four intervals');
    failWith = new ApiError({
      kind: 'rate_limited',
      action: 'list instances',
      method: 'GET',
      path: '/x',
      status: 429,
      retryAfterMs: 200_000,
    });
    await t.timers.advance(80_000);
    assert.equal(t.calls(), 4);
    await t.timers.advance(199_000);
    assert.equal(t.calls(), 4, 'the 429 asked for 200 s');
    failWith = undefined;
    await t.timers.advance(1_000);
    assert.equal(t.calls(), 5);
    await t.timers.advance(10_000);
    assert.equal(t.calls(), 6, 'recovered: back to one interval');
    assert.equal(failures.length, 4);
  });

  it('signing out stops polling and forgets what it saw', async () => {
    const t = setup(() => [loading(1)]);
    t.poller.setEnabled(true);
    t.poller.setInterest('view', true);
    await t.timers.advance(1);
    assert.ok(t.poller.snapshot);
    t.poller.setEnabled(false);
    assert.equal(t.poller.snapshot, undefined);
    await t.timers.advance(100_000);
    assert.equal(t.calls(), 1);
    assert.equal(t.timers.scheduled, 0);
  });

  it('keeps a just-rented id watched until the list shows it settled', async () => {
    let list: Instance[] = [];
    const t = setup(() => list);
    t.poller.setEnabled(true);
    t.poller.watch(7);
    await t.timers.advance(1);
    await t.timers.advance(20_000);
    assert.equal(t.calls(), 3, 'still watching although the list does not show it yet');
    list = [running(7)];
    await t.timers.advance(10_000);
    await t.timers.advance(60_000);
    assert.equal(t.calls(), 4);
    await settle();
  });
});
