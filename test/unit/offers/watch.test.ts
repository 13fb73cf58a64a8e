import assert from 'node:assert/strict';
import type { Offer } from '../../../src/core/api/offers';
import { saveSearch, type SavedSearch } from '../../../src/core/offers/saved';
import { MAX_BACKOFF, SearchWatcher } from '../../../src/core/offers/watch';
import { describeWatchNotice, watchKeyLookup, type WatchNotice, type WatchedSearch } from '../../../src/core/offers/watchNotice';
import { keySlot } from '../../../src/core/session/profiles';
import { StoredState } from '../../../src/core/state/storedState';
import { STORED, type GpuRentalState } from '../../../src/core/stored';
import { MemoryLogger, clientFor, simulatorForSuite } from '../../support';
import { MemoryStore } from '../state/memoryStore';

const INTERVAL = 5 * 60_000;

describe('search watcher', () => {
  const sim = simulatorForSuite({ offerCount: 80 }, { each: true, clock: true });

  /** A window: its own StoredState over the shared store, its own watcher, the notices it said. */
  function window(store: MemoryStore, owner: string, keys: Map<string, string>) {
    const state = new StoredState(STORED, store);
    const notices: WatchNotice[] = [];
    const watcher = new SearchWatcher({
      state,
      owner,
      createClient: (baseUrl, getApiKey) => clientFor(baseUrl, getApiKey()).client,
      keyOf: watchKeyLookup({ get: (slot) => Promise.resolve(keys.get(slot)) }, state),
      intervalMs: () => INTERVAL,
      timers: sim.clock,
      logger: new MemoryLogger(),
    });
    watcher.onDidNotice((n) => notices.push(n));
    return { state, watcher, notices };
  }

  function setUp() {
    const store = new MemoryStore();
    const keys = new Map([[keySlot('default', sim.url), sim.apiKey]]);
    return { store, keys, ...window(store, 'window-a', keys) };
  }

  function watched(name: string, query: string, ceilingPerHour: number, profileId = 'default'): WatchedSearch {
    return { name, query, sort: 'price', watch: { ceilingPerHour, baseUrl: sim.url, profileId, since: sim.clock.now() } };
  }

  async function save(state: GpuRentalState, ...searches: SavedSearch[]): Promise<void> {
    await state.change('savedSearches', (list) => searches.reduce((acc, s) => saveSearch(acc, s), list));
  }

  const requests = () => sim.control.state().requestCount;

  function addOffer(fields: Record<string, unknown>): Offer {
    return sim.control.addOffer(fields, 10) as unknown as Offer;
  }

  it('sends at most one search request per interval for three watched searches, in turn', async () => {
    const { state, watcher } = setUp();
    await save(state, watched('a', 'num_gpus=1', 5), watched('b', 'num_gpus=2', 5), watched('c', 'num_gpus>=4', 50));
    watcher.start();
    const perInterval: number[] = [];
    for (let i = 0; i < 9; i++) {
      const before = requests();
      await sim.clock.advance(INTERVAL);
      perInterval.push(requests() - before);
    }
    watcher.dispose();
    assert.deepEqual(perInterval, [1, 1, 1, 1, 1, 1, 1, 1, 1]);
    // Each search was looked at: the first three ticks recorded the three baselines.
    assert.deepEqual(Object.keys(state.get('watchSeen')).sort(), ['a', 'b', 'c']);
  });

  it('records a baseline first, then tells a new matching offer once, with how many more', async () => {
    const { state, watcher, notices } = setUp();
    const search = watched('4090s', 'gpu_name=RTX_4090', 3);
    await save(state, search);
    const now = await watcher.baseline(search);
    assert.ok(now.every((o) => o.dph_total <= 3 && o.gpu_name === 'RTX 4090'));
    watcher.start();
    await sim.clock.advance(INTERVAL);
    assert.equal(notices.length, 0, 'offers matching at the baseline are not new');

    const cheap = addOffer({ gpu_name: 'RTX 4090', num_gpus: 2, dph_total: 0.41, geolocation: 'Amsterdam, NL' });
    addOffer({ gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.52 });
    addOffer({ gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.55 });
    addOffer({ gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 3.5 });
    addOffer({ gpu_name: 'RTX 3090', num_gpus: 1, dph_total: 0.1 });
    await sim.clock.advance(INTERVAL);
    assert.equal(notices.length, 1);
    const notice = notices[0]!;
    assert.equal(notice.kind, 'match');
    if (notice.kind !== 'match') return;
    assert.equal(notice.offer.id, cheap.id, 'the best new offer by the search’s order (price)');
    assert.equal(notice.more, 2, 'the other two under the ceiling; not the one over it, not the other GPU');

    await sim.clock.advance(3 * INTERVAL);
    watcher.dispose();
    assert.equal(notices.length, 1, 'told once');
  });

  it('watches from one window only, and a window taking over never tells again what another told', async () => {
    const { store, keys, state, watcher: a, notices: told } = setUp();
    const b = window(store, 'window-b', keys);
    await save(state, watched('4090s', 'gpu_name=RTX_4090', 3));
    a.start();
    b.watcher.start();
    const perInterval: number[] = [];
    for (let i = 0; i < 2; i++) {
      const before = requests();
      await sim.clock.advance(INTERVAL);
      perInterval.push(requests() - before);
    }
    addOffer({ gpu_name: 'RTX 4090', num_gpus: 2, dph_total: 0.41 });
    const before = requests();
    await sim.clock.advance(INTERVAL);
    perInterval.push(requests() - before);
    assert.deepEqual(perInterval, [1, 1, 1], 'two windows, one request per interval');
    assert.equal(told.length + b.notices.length, 1, 'told in one window');

    // The window that told closes; the other takes over at once and does not tell it again.
    const [teller, other] = told.length === 1 ? [a, b.watcher] : [b.watcher, a];
    const otherNotices = told.length === 1 ? b.notices : told;
    teller.dispose();
    await sim.clock.advance(2 * INTERVAL);
    assert.equal(otherNotices.length, 0);
    const second = addOffer({ gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.3 });
    await sim.clock.advance(INTERVAL);
    other.dispose();
    assert.equal(otherNotices.length, 1);
    assert.equal(otherNotices[0]!.kind === 'match' && otherNotices[0]!.offer.id, second.id);
  });

  it('leaves the watch to a window with a live claim, and takes it over when the claim lapses (a window that crashed)', async () => {
    const { state, watcher } = setUp();
    await save(state, watched('a', 'num_gpus=1', 5));
    await state.update('searchWatchClaim', { owner: 'crashed-window', until: sim.clock.now() + 2.5 * INTERVAL });
    watcher.start();
    const perInterval: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = requests();
      await sim.clock.advance(INTERVAL);
      perInterval.push(requests() - before);
    }
    watcher.dispose();
    assert.deepEqual(perInterval, [0, 0, 1, 1]);
  });

  it('stops a watch whose profile was removed, or whose key is gone, says so once, and sends nothing for it', async () => {
    const { state, watcher, notices, keys } = setUp();
    keys.set(keySlot('work', sim.url), sim.apiKey);
    await state.update('profiles', [{ id: 'work', name: 'Work', baseUrl: sim.url }]);
    await save(state, watched('work 4090s', 'gpu_name=RTX_4090', 3, 'work'), watched('mine', 'num_gpus=1', 3));
    await watcher.baseline(watched('mine', 'num_gpus=1', 3));
    await state.update('profiles', []);
    watcher.start();
    const before = requests();
    await sim.clock.advance(INTERVAL);
    assert.equal(requests() - before, 1, 'the tick went to the search that can still search');
    assert.deepEqual(
      notices.map((n) => [n.kind, n.search.name, n.kind === 'paused' && n.reason]),
      [['paused', 'work 4090s', 'profile']],
    );
    const kept = state.get('savedSearches').find((s) => s.name === 'work 4090s');
    assert.ok(kept, 'the search is kept');
    assert.equal(kept.watch, undefined, 'its watch is stopped');

    keys.delete(keySlot('default', sim.url));
    await sim.clock.advance(3 * INTERVAL);
    watcher.dispose();
    assert.deepEqual(
      notices.map((n) => [n.kind, n.search.name, n.kind === 'paused' && n.reason]),
      [
        ['paused', 'work 4090s', 'profile'],
        ['paused', 'mine', 'key'],
      ],
    );
  });

  it('backs off on 429, doubling the wait up to 8 intervals, and returns to the interval after a success', async () => {
    const { state, watcher } = setUp();
    await save(state, watched('a', 'num_gpus=1', 5));
    sim.control.addFault({ kind: 'rate_limit', count: 5, path: '/api/v0/bundles' });
    watcher.start();
    const waits: number[] = [];
    const at: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = requests();
      // Step to the next tick: exactly the wait announced.
      const wait = watcher.waitMs;
      await sim.clock.advance(wait);
      assert.equal(requests() - before, 1, 'one request per wait, none retried inside');
      waits.push(wait / INTERVAL);
      at.push(watcher.waitMs / INTERVAL);
    }
    watcher.dispose();
    assert.deepEqual(waits, [1, 2, 4, 8, 8, 8]);
    assert.equal(at[5], 1, 'after the sixth request (a success) the wait is the interval again');
    assert.equal(MAX_BACKOFF, 8);
  });

  it('says a persistent refusal (a revoked key) once per watch, and keeps watching', async () => {
    const { state, watcher, notices, keys } = setUp();
    keys.set(keySlot('default', sim.url), 'not-a-key');
    await save(state, watched('a', 'num_gpus=1', 5));
    watcher.start();
    await sim.clock.advance(5 * INTERVAL);
    watcher.dispose();
    assert.deepEqual(
      notices.map((n) => n.kind),
      ['refused'],
    );
    assert.ok(state.get('savedSearches')[0]!.watch, 'still watched: the key may be fixed');
  });

  it('checks every watched search at once when asked, one request each', async () => {
    const { state, watcher, notices } = setUp();
    await save(state, watched('a', 'gpu_name=RTX_4090', 3), watched('b', 'num_gpus=2', 5));
    const before = requests();
    assert.deepEqual(await watcher.checkNow(), { searched: 2, told: 0 });
    addOffer({ gpu_name: 'RTX 4090', num_gpus: 1, dph_total: 0.3 });
    assert.deepEqual(await watcher.checkNow(), { searched: 2, told: 1 });
    assert.equal(requests() - before, 4);
    assert.equal(notices.length, 1);
    assert.ok(watcher.holdsClaim());
    watcher.dispose();
  });
});

describe('watch notices', () => {
  const search: WatchedSearch = {
    name: '4090s',
    query: 'gpu_name=RTX_4090',
    sort: 'price',
    watch: { ceilingPerHour: 0.7, baseUrl: 'https://console.example.com', profileId: 'default', since: 1 },
  };
  const offer = { id: 7, gpu_name: 'RTX 4090', num_gpus: 2, gpu_ram: 24564, dph_total: 0.61, geolocation: 'Amsterdam, NL' } as Offer;

  it('says the offer, its price and country, and how many more, with Rent, Show and Stop Watching', () => {
    assert.deepEqual(describeWatchNotice({ kind: 'match', search, offer, more: 2 }), {
      severity: 'info',
      text: 'GPU Rental: "4090s": RTX 4090 ×2 at $0.610/h in NL (+2 more)',
      actions: ['Rent', 'Show', 'Stop Watching'],
    });
    const single = describeWatchNotice({ kind: 'match', search, offer: { ...offer, num_gpus: 1, geolocation: null }, more: 0 });
    assert.equal(single.text, 'GPU Rental: "4090s": RTX 4090 at $0.610/h');
  });

  it('says why a watch stopped and offers to watch again', () => {
    const paused = describeWatchNotice({ kind: 'paused', search, reason: 'profile' });
    assert.match(paused.text, /^GPU Rental: stopped watching "4090s": the profile it searched with was removed\./);
    assert.deepEqual(paused.actions, ['Watch Again']);
    assert.equal(paused.severity, 'warning', 'a stopped watch is a warning, not news');
    assert.match(describeWatchNotice({ kind: 'paused', search, reason: 'key' }).text, /API key/);
  });
});
