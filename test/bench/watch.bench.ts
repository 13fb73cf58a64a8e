// npm run bench (part): the search watcher against the simulator, in Node, on a fake clock.
// With 1, 5, 20 and 50 watched searches (50: SCALE.savedSearches, the most that can be saved) over
// 10 intervals: search requests per interval (target: at most 1, whatever the number of searches),
// how often each search is looked at, and the cost of a tick (wall time of one interval's work: the claim, one search request of up to 200 offers over
// loopback, parsing it, and the seen ids written back).
import { Agent } from 'undici';
import { silentLogger } from '../../src/core/log';
import { SCALE } from '../../src/core/scale';
import { saveSearch, type SavedSearch } from '../../src/core/offers/saved';
import { SearchWatcher, WATCH_PAGE_SIZE } from '../../src/core/offers/watch';
import { StoredState } from '../../src/core/state/storedState';
import { STORED } from '../../src/core/stored';
import { FakeClock, clientFor, startSimulator } from '../support';
import { MemoryStore } from '../unit/state/memoryStore';

const INTERVAL_MS = 5 * 60_000;
const INTERVALS = 10;
const GPUS = ['RTX_4090', 'RTX_3090', 'A100_SXM4', 'H100_SXM', 'RTX_A6000'];

function searches(n: number, url: string, since: number): SavedSearch[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `search ${i + 1}`,
    query: `gpu_name=${GPUS[i % GPUS.length]!} num_gpus>=${1 + (i % 3)}`,
    sort: 'price',
    watch: { ceilingPerHour: 2 + i, baseUrl: url, profileId: 'default', since },
  }));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function run(n: number): Promise<void> {
  const clock = new FakeClock();
  const sim = await startSimulator({ seed: 7, offerCount: 1500, now: clock.now });
  const dispatcher = new Agent();
  try {
    const state = new StoredState(STORED, new MemoryStore());
    await state.update(
      'savedSearches',
      searches(n, sim.url, clock.now()).reduce<SavedSearch[]>((list, s) => saveSearch(list, s), []),
    );
    const looks = new Map<number, number>();
    const watcher = new SearchWatcher({
      state,
      owner: 'bench',
      createClient: (baseUrl, getApiKey) => clientFor(baseUrl, getApiKey(), { dispatcher, logger: silentLogger, timeoutMs: 10_000 }).client,
      // Each look at a search asks for its key once: counted per search (ceilings are unique here).
      keyOf: (watch) => {
        looks.set(watch.ceilingPerHour, (looks.get(watch.ceilingPerHour) ?? 0) + 1);
        return Promise.resolve({ key: sim.apiKey });
      },
      intervalMs: () => INTERVAL_MS,
      timers: clock,
      logger: silentLogger,
    });
    watcher.start();
    const perInterval: number[] = [];
    const tickMs: number[] = [];
    for (let i = 0; i < INTERVALS; i++) {
      const before = sim.control.state().requestCount;
      const started = performance.now();
      await clock.advance(INTERVAL_MS);
      tickMs.push(performance.now() - started);
      perInterval.push(sim.control.state().requestCount - before);
    }
    watcher.dispose();
    const counts = Array.from({ length: n }, (_, i) => looks.get(2 + i) ?? 0);
    console.log(
      `  ${String(n).padStart(2)} watched: requests per interval ${perInterval.join(' ')} (max ${Math.max(...perInterval)}, ` +
        `target <= 1); looks per search ${Math.min(...counts)}-${Math.max(...counts)} (one every ${n} interval${n === 1 ? '' : 's'}, ` +
        `${(n * INTERVAL_MS) / 60_000} min); tick ${median(tickMs).toFixed(1)} ms median, ${Math.max(...tickMs).toFixed(1)} ms max`,
    );
  } finally {
    await dispatcher.close();
    await sim.stop();
  }
}

async function main(): Promise<void> {
  console.log(
    `search watcher: ${INTERVALS} intervals of ${INTERVAL_MS / 60_000} min (fake clock), 1,500 offers, up to ${WATCH_PAGE_SIZE} per request`,
  );
  for (const n of [1, 5, 20, SCALE.savedSearches]) await run(n);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
