import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import type { InstancePhase } from '../../../src/core/instances/phase';
import { untilPhase, type PhaseWait } from '../../../src/core/instances/untilPhase';
import { listPoller } from '../../support';

const record = (id: number, actual_status: string | null, intended_status: string) => ({ id, actual_status, intended_status }) as Instance;
const stopped = (id: number) => record(id, 'stopped', 'stopped');
const starting = (id: number) => record(id, 'stopped', 'running');
const loading = (id: number) => record(id, 'loading', 'running');
const running = (id: number) => record(id, 'running', 'running');
const failed = (id: number) => record(id, 'exited', 'running');

/** The wait's result, or 'pending' while it goes on. */
function track(wait: Promise<PhaseWait>): () => PhaseWait | 'pending' {
  let result: PhaseWait | 'pending' = 'pending';
  void wait.then((r) => (result = r));
  return () => result;
}

describe('until an instance is in a phase', () => {
  it('resolves with the instance once a poll shows it running, telling each phase on the way', async () => {
    const t = listPoller([starting(1)]);
    const seen: InstancePhase[] = [];
    const result = track(untilPhase(t.poller, 1, ['running'], { onPhase: (p) => seen.push(p) }));
    await t.clock.advance(1);
    assert.equal(t.calls(), 1, 'polls at once');
    assert.equal(result(), 'pending');
    t.set([loading(1), running(2)]);
    await t.clock.advance(10_000);
    t.set([running(1)]);
    await t.clock.advance(10_000);
    const r = result();
    assert.ok(r !== 'pending' && r.outcome === 'reached');
    assert.equal(r.phase, 'running');
    assert.equal(r.instance.id, 1);
    assert.deepEqual(seen, ['starting', 'loading']);
  });

  it('judges only polls made after it starts, not the snapshot already there', async () => {
    const t = listPoller([stopped(1)]);
    await t.poller.refresh();
    assert.equal(t.poller.snapshot?.instances[0]?.actual_status, 'stopped');
    // The caller has just asked for a start: the old snapshot would say "stopped" and give up.
    t.set([starting(1)]);
    const result = track(untilPhase(t.poller, 1, ['running']));
    await t.clock.advance(1);
    assert.equal(result(), 'pending');
    t.set([running(1)]);
    await t.clock.advance(10_000);
    assert.equal((result() as PhaseWait).outcome, 'reached');
  });

  it('keeps the poller polling for the instance while it waits', async () => {
    const t = listPoller([loading(5)]);
    const result = track(untilPhase(t.poller, 5, ['running']));
    assert.deepEqual(t.poller.watchedIds, [5]);
    await t.clock.advance(30_000);
    assert.equal(t.calls(), 4, 'one poll now, then one per interval');
    assert.equal(result(), 'pending');
  });

  it('gives up when the instance stops, fails or goes', async () => {
    for (const [list, phase, instanceId] of [
      [[stopped(1)], 'stopped', 1],
      [[failed(1)], 'failed', 1],
      [[running(2)], 'gone', undefined],
      [[record(1, 'destroyed', 'stopped')], 'gone', 1],
    ] as const) {
      const t = listPoller([...list]);
      const seen: InstancePhase[] = [];
      const result = track(untilPhase(t.poller, 1, ['running'], { onPhase: (p) => seen.push(p) }));
      await t.clock.advance(1);
      const r = result();
      assert.ok(r !== 'pending' && r.outcome === 'gaveUp', phase);
      assert.equal(r.phase, phase);
      assert.equal(r.instance?.id, instanceId, 'a missing instance is gone, with no record');
      assert.deepEqual(seen, [], 'the phase that ends the wait is in the result, not told on the way');
    }
  });

  it('waits through a phase it would give up on when that phase is the one wanted, and takes other dead ends', async () => {
    const t = listPoller([record(1, 'running', 'stopped')]);
    const result = track(untilPhase(t.poller, 1, ['stopped']));
    await t.clock.advance(1);
    assert.equal(result(), 'pending', 'stopping');
    t.set([stopped(1)]);
    await t.clock.advance(10_000);
    assert.equal((result() as PhaseWait).outcome, 'reached');

    const u = listPoller([running(1)]);
    const custom = track(untilPhase(u.poller, 1, ['stopped'], { giveUpOn: ['running'] }));
    await u.clock.advance(1);
    assert.deepEqual(custom(), { outcome: 'gaveUp', instance: running(1), phase: 'running' });
  });

  it('ends as cancelled when the signal aborts, before or during the wait, and stops listening', async () => {
    const t = listPoller([loading(1)]);
    const before = new AbortController();
    before.abort();
    assert.deepEqual(await untilPhase(t.poller, 1, ['running'], { signal: before.signal }), { outcome: 'cancelled' });
    assert.equal(t.calls(), 0, 'an aborted wait does not poll');

    const during = new AbortController();
    const seen: InstancePhase[] = [];
    const result = track(untilPhase(t.poller, 1, ['running'], { signal: during.signal, onPhase: (p) => seen.push(p) }));
    await t.clock.advance(1);
    during.abort();
    await t.clock.advance(1);
    assert.deepEqual(result(), { outcome: 'cancelled' });
    await t.clock.advance(30_000);
    assert.deepEqual(seen, ['loading'], 'no phase told after the cancel');
  });

  it('ends as timed out after timeoutMs, with the last phase seen', async () => {
    const t = listPoller([loading(1)]);
    const result = track(untilPhase(t.poller, 1, ['running'], { timeoutMs: 25_000, timers: t.clock }));
    await t.clock.advance(24_999);
    assert.equal(result(), 'pending');
    await t.clock.advance(1);
    assert.deepEqual(result(), { outcome: 'timedOut', phase: 'loading' });

    const quiet = listPoller([]);
    quiet.poller.setEnabled(false); // signed out: no poll answers
    const unanswered = track(untilPhase(quiet.poller, 1, ['running'], { timeoutMs: 5_000, timers: quiet.clock }));
    await quiet.clock.advance(5_000);
    assert.deepEqual(unanswered(), { outcome: 'timedOut', phase: undefined });
  });
});
