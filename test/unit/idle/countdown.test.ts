import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { idleCountdown, idleCountdownMessage, stoppedWindowNotice, type IdleCountdownDeps } from '../../../src/core/idle/countdown';
import { scriptedAsk } from '../../support/scriptedAsk';
import { clientFor, DEMO_KEY, instanceIn, MemoryLogger, rentOne, simulatorForSuite } from '../../support';

const inst = (over: Partial<Instance> = {}) =>
  ({
    id: 7,
    actual_status: 'running',
    intended_status: 'running',
    gpu_util: 0,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    label: 'train',
    dph_total: 0.5,
    storage_total_cost: 0.02,
    ...over,
  }) as unknown as Instance;

const SETTINGS = { idleMs: 30 * 60_000, countdownSeconds: 60, gpuThreshold: 5 };

/** Deps over a list the test sets; records the stops. */
function fakeDeps(answer: boolean, now: Instance | undefined, connected = false) {
  const ask = scriptedAsk([{ countdown: answer }]);
  const stopped: number[] = [];
  const deps: IdleCountdownDeps = {
    ask,
    reread: () => Promise.resolve(now),
    connected: () => connected,
    stop: (id) => (stopped.push(id), Promise.resolve()),
    logger: new MemoryLogger(),
  };
  return { deps, ask, stopped };
}

describe('idle: the countdown before an idle stop', () => {
  it('says how long it was idle and how long until it stops, in minutes or in seconds', () => {
    assert.equal(idleCountdownMessage('train', 30 * 60_000, 42), 'train idle for 30 min, stopping in 42 s. Cancel to keep it running.');
    assert.equal(idleCountdownMessage('train', 120, 60), 'train idle for 0 s, stopping in 60 s. Cancel to keep it running.');
    assert.equal(idleCountdownMessage('train', 20_000, 60), 'train idle for 20 s, stopping in 60 s. Cancel to keep it running.');
  });

  it('cancelled: keeps it running and stops nothing', async () => {
    const { deps, ask, stopped } = fakeDeps(false, inst());
    assert.deepEqual(await idleCountdown(deps, inst(), SETTINGS), { kind: 'kept' });
    assert.deepEqual(stopped, []);
    assert.equal(ask.asked[0]!.text, 'train idle for 30 min, stopping in 60 s. Cancel to keep it running.');
  });

  it('run out: stops it, and says its disk still bills until destroyed', async () => {
    const { deps, stopped } = fakeDeps(true, inst());
    const outcome = await idleCountdown(deps, inst(), SETTINGS);
    assert.deepEqual(stopped, [7]);
    assert.deepEqual(outcome, {
      kind: 'stopped',
      notice: 'GPU Rental: stopped train: it was idle. Its disk still bills $0.020/h until you destroy it.',
    });
  });

  it('run out but used meanwhile (a window connected, the GPU woke, it stopped or is gone): stops nothing', async () => {
    for (const [now, connected] of [
      [inst(), true],
      [inst({ gpu_util: 6 }), false],
      [inst({ actual_status: 'stopped', intended_status: 'stopped' }), false],
      [undefined, false],
    ] as const) {
      const { deps, stopped } = fakeDeps(true, now, connected);
      assert.deepEqual(await idleCountdown(deps, inst(), SETTINGS), { kind: 'inUse' });
      assert.deepEqual(stopped, []);
    }
  });

  describe('against the simulator', () => {
    const sim = simulatorForSuite();
    it('cancelled keeps the instance running on the service; run out stops it there', async () => {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const { id } = await rentOne(sim);
      const running = await instanceIn(client, id, 'running');
      const deps = (answer: boolean): IdleCountdownDeps => ({
        ask: scriptedAsk([{ countdown: answer }]),
        reread: (i) => client.instances.show(i),
        connected: () => false,
        // The simulator's made-up utilisation is not what is tested here.
        stop: (i) => client.instances.stop(i),
        logger: new MemoryLogger(),
      });
      const settings = { ...SETTINGS, gpuThreshold: 100 };
      assert.equal((await idleCountdown(deps(false), running, settings)).kind, 'kept');
      assert.equal((await client.instances.show(id)).actual_status, 'running');
      assert.equal((await idleCountdown(deps(true), running, settings)).kind, 'stopped');
      await instanceIn(client, id, 'stopped', 20_000);
    });
  });
});

describe('idle: a window on a stopped instance', () => {
  it('explains that it was not started and what starting bills; never for one that runs or is gone', () => {
    const stopped = inst({ actual_status: 'stopped', intended_status: 'stopped' });
    assert.deepEqual(stoppedWindowNotice(7, [stopped]), {
      phase: 'stopped',
      notice:
        'GPU Rental: this window is on train, which is stopped, so it cannot reconnect. It was not started. Starting it bills $0.500/h.',
    });
    assert.deepEqual(stoppedWindowNotice(7, [inst()]), { phase: 'running' });
    assert.deepEqual(stoppedWindowNotice(8, [inst()]), { phase: 'gone' });
  });
});
