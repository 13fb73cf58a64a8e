import assert from 'node:assert/strict';
import type { Offer, SearchOffersRequest } from '../../../src/core/api/offers';
import type { SavedSearch } from '../../../src/core/offers/saved';
import {
  checkWatchedNow,
  deleteSavedSearch,
  intervalText,
  saveCurrentSearch,
  stopWatching,
  watchSearch,
  type WatchDeps,
} from '../../../src/core/offers/savedFlows';
import { StoredState } from '../../../src/core/state/storedState';
import { STORED } from '../../../src/core/stored';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { scriptedProgress } from '../../support/scriptedProgress';
import { MemoryStore } from '../state/memoryStore';

const FOURS: SavedSearch = { name: '4090 pairs', query: 'gpu_name=RTX_4090 num_gpus>=2', sort: 'price' };
const WATCH = { ceilingPerHour: 0.7, baseUrl: 'https://example.test', profileId: 'default', since: 1 };
const offer = (id: number, dph: number, gpus = 1): Offer => ({ id, dph_total: dph, gpu_name: 'RTX 4090', num_gpus: gpus }) as Offer;

/** The flows over a fresh stored state, a scripted user, and a service that answers `offers`. */
function setUp(answers: Answer[], saved: SavedSearch[] = [], options: { offers?: Offer[]; baseline?: Offer[] | Error } = {}) {
  const state = new StoredState(STORED, new MemoryStore());
  const ask = scriptedAsk(answers);
  const requests: SearchOffersRequest[] = [];
  const busy = scriptedProgress();
  const d: WatchDeps = {
    ask,
    state,
    account: () => ({ baseUrl: 'https://example.test', profileId: 'default' }),
    searchOffers: (request) => (requests.push(request), Promise.resolve(options.offers ?? [])),
    busy,
    watcher: {
      baseline: (search) =>
        options.baseline instanceof Error
          ? Promise.reject(options.baseline)
          : Promise.resolve(options.baseline ?? [search].map(() => offer(9, 0.5))),
      checkNow: () => Promise.resolve({ searched: 1, told: 0 }),
    },
    intervalMinutes: () => 5,
    now: () => 1234,
  };
  return { d, ask, state, requests, busy, ready: state.update('savedSearches', saved) };
}

describe('saved search flows', () => {
  it('asks for a name showing the search, and saves it with a Watch button', async () => {
    const { d, ask, state, ready } = setUp([{ input: '  Cheap 4090s ' }]);
    await ready;
    const saved = await saveCurrentSearch(d, { query: 'gpu_name=RTX_4090', sort: 'price' });
    assert.equal(saved?.name, 'Cheap 4090s');
    assert.deepEqual(saved?.notice.actions, ['Watch']);
    assert.match(ask.asked[0]!.text, /^A name for this search \(.*RTX_4090.*, price, lowest first\)$/);
    assert.deepEqual(state.get('savedSearches'), [{ name: 'Cheap 4090s', query: 'gpu_name=RTX_4090', sort: 'price' }]);
  });

  it('replaces a saved search of the same name only after a confirmation, and keeps it when declined', async () => {
    const declined = setUp([{ confirm: false }], [FOURS]);
    await declined.ready;
    assert.equal(await saveCurrentSearch(declined.d, { query: 'gpu_name=RTX_4090', sort: 'value' }, '4090 PAIRS'), undefined);
    assert.equal(declined.ask.asked[0]?.text, 'Replace the saved search "4090 pairs"?');
    assert.deepEqual(declined.state.get('savedSearches'), [FOURS], 'kept');

    const accepted = setUp([{ confirm: true }], [FOURS]);
    await accepted.ready;
    await saveCurrentSearch(accepted.d, { query: 'gpu_name=RTX_4090', sort: 'value' }, '4090 pairs');
    assert.equal(accepted.state.get('savedSearches')[0]?.query, 'gpu_name=RTX_4090', 'replaced');
  });

  it('says a watched search loses its watch when replaced, and forgets the offers it had seen', async () => {
    const { d, ask, state, ready } = setUp([{ confirm: true }], [{ ...FOURS, watch: WATCH }]);
    await ready;
    await state.update('watchSeen', { '4090 pairs': { since: 1, ids: [3] } });
    await saveCurrentSearch(d, { query: 'gpu_name=RTX_4090', sort: 'price' }, '4090 pairs');
    assert.match(ask.asked[0]!.detail, /Its watch stops\.$/);
    assert.equal(state.get('savedSearches')[0]?.watch, undefined);
    assert.deepEqual(state.get('watchSeen'), {});
  });

  it('refuses a name it cannot save, before asking anything', async () => {
    const { d, ask } = setUp([]);
    await assert.rejects(saveCurrentSearch(d, { query: '', sort: 'value' }, 'x'.repeat(61)), /cannot save the search as .*at most 60/);
    assert.equal(ask.asked.length, 0);
  });

  it('deletes a saved search only after a confirmation that says its watch stops', async () => {
    const { d, ask, state, ready } = setUp([{ confirm: false }, { confirm: true }], [{ ...FOURS, watch: WATCH }]);
    await ready;
    assert.equal(await deleteSavedSearch(d, state.get('savedSearches')[0]!), undefined);
    assert.equal(state.get('savedSearches').length, 1);
    const notice = await deleteSavedSearch(d, state.get('savedSearches')[0]!);
    assert.equal(ask.asked[1]?.detail, 'It is watched: the watch stops too.');
    assert.equal(notice?.text, 'GPU Rental: deleted the saved search "4090 pairs".');
    assert.deepEqual(state.get('savedSearches'), []);
  });

  it('watch: picks the search, shows the cheapest match now in the ceiling box, and records the watch', async () => {
    const { d, ask, state, requests, ready } = setUp([{ pick: '4090 pairs' }, { input: '$0.70' }], [FOURS], {
      offers: [offer(5, 0.612, 2)],
      baseline: [offer(5, 0.612, 2), offer(6, 0.65)],
    });
    await ready;
    const notice = await watchSearch(d, { query: '', sort: 'value' });
    assert.equal(
      ask.asked[1]?.text,
      'Tell me about new offers at or under this price, in $/h. The cheapest match now: RTX 4090 ×2 at $0.612/h.',
    );
    assert.equal(requests[0]?.limit, 1, 'one offer, the cheapest');
    assert.deepEqual(state.get('savedSearches')[0]?.watch, {
      ceilingPerHour: 0.7,
      baseUrl: 'https://example.test',
      profileId: 'default',
      since: 1234,
    });
    assert.equal(
      notice?.text,
      'GPU Rental: watching "4090 pairs" for offers at or under $0.700/h. 2 offers match now (the cheapest RTX 4090 ×2 at $0.612/h); you will be told about new ones. All watched searches together send one search every 5 min.',
    );
  });

  it('watch: with nothing saved, saves the current search first; signed out, refuses before asking', async () => {
    const { d, state } = setUp([{ input: 'mine' }, { input: '0.5' }], [], { baseline: [] });
    const notice = await watchSearch(d, { query: 'num_gpus>=2', sort: 'value' });
    assert.equal(state.get('savedSearches')[0]?.name, 'mine');
    assert.match(notice?.text ?? '', /No offer matches now; you will be told/);

    const out = setUp([], [FOURS]);
    await out.ready;
    await assert.rejects(
      watchSearch({ ...out.d, account: () => undefined }, { query: '', sort: 'value' }),
      /sign in with an API key first/,
    );
    assert.equal(out.ask.asked.length, 0);
  });

  it('watch: a failed first search still watches, and says it will try again', async () => {
    const { d, state, ready } = setUp([], [FOURS], { baseline: new Error('HTTP 503') });
    await ready;
    const notice = await watchSearch(d, { query: '', sort: 'value' }, '4090 pairs', 0.7);
    assert.equal(notice?.severity, 'warning');
    assert.match(notice!.text, /the first search failed \(HTTP 503\)\. The watcher tries again every 5 min/);
    assert.ok(state.get('savedSearches')[0]?.watch);
  });

  it('stop watching: keeps the search, and says when there is nothing to stop', async () => {
    const none = setUp([]);
    assert.equal((await stopWatching(none.d))?.text, 'GPU Rental: no search is watched.');
    const { d, state, ready } = setUp([{ pick: '4090 pairs' }], [{ ...FOURS, watch: WATCH }]);
    await ready;
    assert.equal((await stopWatching(d))?.text, 'GPU Rental: stopped watching "4090 pairs". The search is still saved.');
    assert.deepEqual(state.get('savedSearches'), [FOURS]);
    assert.equal((await stopWatching(d, '4090 pairs'))?.text, 'GPU Rental: "4090 pairs" is not watched.');
  });

  it('check now: says no new offers, or how many searches could not be searched', async () => {
    const { d, ready } = setUp(
      [],
      [
        { ...FOURS, watch: WATCH },
        { ...FOURS, name: 'other', watch: WATCH },
      ],
    );
    await ready;
    const failed = await checkWatchedNow(d);
    assert.match(failed.notice?.text ?? '', /^GPU Rental: 1 of 2 watched searches could not be searched now/);
    const fine = await checkWatchedNow({ ...d, watcher: { ...d.watcher, checkNow: () => Promise.resolve({ searched: 2, told: 0 }) } });
    assert.equal(fine.notice?.text, 'GPU Rental: checked 2 watched searches: no new offers.');
    const told = await checkWatchedNow({ ...d, watcher: { ...d.watcher, checkNow: () => Promise.resolve({ searched: 2, told: 1 }) } });
    assert.equal(told.notice, undefined, 'the match notice says it');
  });

  it('words the interval in hours and minutes', () => {
    assert.deepEqual([intervalText(5), intervalText(60), intervalText(90)], ['5 min', '1 h', '1 h 30 min']);
  });
});
