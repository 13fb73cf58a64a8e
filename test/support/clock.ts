import type { Timers } from '../../src/core/instances/poller';
import { CATALOGUE_EPOCH } from '../marketplace/catalogue';

/**
 * A clock the test moves by hand, for code that takes a `now` function (the simulator, the rent
 * journal) and for code that also schedules callbacks (the poller's `Timers`).
 *
 * It starts at the simulator's catalogue epoch, so offer dates read unshifted. `advance` runs the
 * callbacks that fall due in time order, with promises settled between them, so a callback's
 * follow-up work happens before the next one fires, as it would in real time.
 */
export class FakeClock implements Timers {
  private time: number;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();

  constructor(startMs = CATALOGUE_EPOCH * 1000) {
    this.time = startMs;
  }

  /** Epoch milliseconds; a bound function, so it can be handed over as `now: clock.now`. */
  readonly now = (): number => this.time;

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.time + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** How many callbacks wait to fire. */
  get scheduled(): number {
    return this.pending.size;
  }

  /** Moves the clock `ms` forward, firing what falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const next = [...this.pending.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      this.pending.delete(next[0]);
      this.time = Math.max(this.time, next[1].at);
      next[1].callback();
    }
    this.time = end;
    await settle();
  }
}

/** Lets pending promise callbacks and immediates run, a few rounds deep. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
