/**
 * Mocha hooks the unit suites share. These use mocha's globals, so only test files import them
 * (the integration suites and scripts import the other support files, never this one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from './clock';
import { startSimulator, type Marketplace, type MarketplaceOptions } from './simulator';

/** Runs `setUp` before the suite's tests (before each, with `each`) and `tearDown` after. */
function around(each: boolean | undefined, setUp: () => unknown, tearDown: () => unknown): void {
  if (each) {
    beforeEach(setUp);
    afterEach(tearDown);
  } else {
    before(setUp);
    after(tearDown);
  }
}

/** The simulator of a suite, read through getters: it is a new one for every start. */
export interface SuiteSimulator extends Marketplace {
  /** The clock the simulator runs on, when the suite asked for one (`clock: true`). */
  readonly clock: FakeClock;
}

/**
 * A simulator started before the suite's tests (before each test with `each: true`) and stopped
 * after. With `clock: true` it runs on a new `FakeClock`, `sim.clock`, from each start.
 */
export function simulatorForSuite(options: MarketplaceOptions = {}, how: { each?: boolean; clock?: boolean } = {}): SuiteSimulator {
  let current: Marketplace | undefined;
  let clock: FakeClock | undefined;
  const running = (): Marketplace => {
    if (!current) throw new Error('the simulator is not running: use it inside a test or hook');
    return current;
  };
  const start = async () => {
    clock = how.clock ? new FakeClock() : undefined;
    current = await startSimulator({ ...options, ...(clock ? { now: clock.now } : {}) });
  };
  const stop = async () => {
    await current?.stop();
    current = undefined;
  };
  around(how.each, start, stop);
  return {
    get url() {
      return running().url;
    },
    get port() {
      return running().port;
    },
    get accountId() {
      return running().accountId;
    },
    get apiKey() {
      return running().apiKey;
    },
    get control() {
      return running().control;
    },
    get clock() {
      if (!clock) throw new Error('the suite asked for no clock: pass { clock: true }');
      return clock;
    },
    stop: () => running().stop(),
  };
}

/**
 * A fresh temporary folder named `prefix…` for the suite (for each test with `each: true`),
 * removed after. Returns a getter for its path.
 */
export function tempDirForSuite(prefix: string, how: { each?: boolean } = {}): () => string {
  let dir: string | undefined;
  const make = () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  };
  const remove = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  };
  around(how.each, make, remove);
  return () => {
    if (!dir) throw new Error('the temporary folder exists only inside a test or hook');
    return dir;
  };
}
