import type { Instance } from '../../src/core/api/instances';
import { InstancePoller } from '../../src/core/instances/poller';
import { FakeClock } from './clock';
import { MemoryLogger } from './logger';

/**
 * A signed-in poller over a list the test changes (`set`), on a fake clock (`clock`), polling every
 * 10 s; `calls` counts its fetches. For code that follows instances through the poller.
 */
export function listPoller(initial: Instance[]) {
  const clock = new FakeClock();
  let list = initial;
  let calls = 0;
  const poller = new InstancePoller({
    timers: clock,
    intervalMs: () => 10_000,
    logger: new MemoryLogger(),
    fetch: () => {
      calls++;
      return Promise.resolve(list);
    },
  });
  poller.setEnabled(true);
  return {
    clock,
    poller,
    calls: () => calls,
    set: (next: Instance[]) => {
      list = next;
    },
  };
}
