import assert from 'node:assert/strict';
import type { Logger } from '../../../src/core/log';
import type { PendingRent } from '../../../src/core/rent/journal';
import { arrayOf, number, string } from '../../../src/core/state/readers';
import { StoredState, readStored, storedSpec, type KeyValueStore, type StoredSpec } from '../../../src/core/state/storedState';
import { STORED, type Stored, type StoredKey } from '../../../src/core/stored';
import { MemoryStore } from './memoryStore';
import { GlobalStateModel } from './vscodeGlobalState';

/** Records warnings, so a test can count them. */
function recorder(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };
}

const pending: PendingRent = {
  label: 'gpu-rental-a1b2',
  offerId: 7,
  machineId: null,
  description: 'RTX 4090 ×2 in NL',
  perHour: 0.8,
  profileId: 'default',
  baseUrl: 'https://console.example.com',
  before: [1, 2],
  sentAt: 1_700_000_000_000,
  state: 'sending',
  lease: { owner: 'window-a', until: 1_700_000_030_000 },
};

/** A value of every key, in the shape its writer stores. */
const samples: { [K in StoredKey]: Stored<K> } = {
  profiles: [{ id: 'work', name: 'Work', baseUrl: 'https://work.example.com' }],
  activeProfile: 'work',
  signedOut: ['https://console.example.com'],
  recentTemplates: ['hash-b', 'hash-a'],
  recentImages: ['pytorch/pytorch:latest', 'ubuntu:22.04'],
  createdApiKeys: { 'https://console.example.com': { fp1: 41, fp2: 42 } },
  offerSearch: { query: 'num_gpus>=2', sort: 'price' },
  explorerColumns: { visible: ['gpu', 'price', 'dlperfPerDollar'], widths: { gpu: 180 } },
  boots: [{ id: 12, since: 1_700_000_000_000 }],
  lowCreditSnoozedUntil: 1_700_000_360_000,
  rentJournal: [pending],
  connectedWindows: { '12': 1_700_000_000_000 },
  outbidNotified: { 'default|https://console.example.com|12': 1_700_000_000_000 },
  contractNotified: { 'default|https://console.example.com|increase:31': 1_700_000_000_000 },
  idleCountdown: { id: 12, owner: 'session-a', until: 1_700_000_090_000 },
  jobChoices: { '12/job-1': { policy: 'raise 0.6', stopAtEnd: true, at: 1_700_000_000_000 } },
  savedSearches: [
    { name: 'Cheap 4090', query: 'gpu_name=RTX_4090', sort: 'price' },
    {
      name: 'A100 pair',
      query: 'num_gpus=2',
      sort: 'value',
      watch: { ceilingPerHour: 2.5, baseUrl: 'https://console.example.com', profileId: 'default', since: 1_700_000_000_000 },
    },
  ],
  watchSeen: { 'a100 pair': { since: 1_700_000_000_000, ids: [3, 5, 8] } },
  searchWatchClaim: { owner: 'session-a', until: 1_700_000_600_000 },
  healthAfterRent: { '12': { since: 1_700_000_000_000, owner: 'session-a', until: 1_700_000_600_000 } },
};

const keys = Object.keys(STORED) as StoredKey[];

/** GPU Rental's stored state over `store`, as the composition root opens it. */
const open = (store: KeyValueStore, logger?: Logger) => new StoredState(STORED, store, logger);

describe('stored state', () => {
  it('knows every key by its existing name, so installs keep their state', () => {
    assert.deepEqual(
      keys.map((k) => STORED[k].key),
      [
        'gpuRental.profiles',
        'gpuRental.activeProfile',
        'gpuRental.signedOut',
        'gpuRental.recentTemplates',
        'gpuRental.recentImages',
        'gpuRental.createdApiKeys',
        'gpuRental.offerSearch',
        'gpuRental.explorerColumns',
        'gpuRental.boots',
        'gpuRental.lowCreditSnoozedUntil',
        'gpuRental.rentJournal',
        'gpuRental.connectedWindows',
        'gpuRental.outbidNotified',
        'gpuRental.contractNotified',
        'gpuRental.idleCountdown',
        'gpuRental.jobChoices',
        'gpuRental.savedSearches',
        'gpuRental.watchSeen',
        'gpuRental.searchWatchClaim',
        'gpuRental.healthAfterRent',
      ],
    );
  });

  it('reads the default of every key that was never written, without a warning', () => {
    const logger = recorder();
    const state = open(new MemoryStore(), logger);
    for (const key of keys) assert.deepEqual(state.get(key), STORED[key].default, key);
    assert.equal(state.get('lowCreditSnoozedUntil'), 0);
    assert.equal(state.get('activeProfile'), undefined);
    assert.deepEqual(state.get('offerSearch'), { query: '', sort: 'value' });
    assert.deepEqual(logger.warnings, []);
  });

  it('hands out a fresh default each time: editing one read does not change the next', () => {
    const state = open(new MemoryStore());
    state.get('recentImages').push('leaked');
    state.get('connectedWindows')['9'] = 1;
    assert.deepEqual(state.get('recentImages'), []);
    assert.deepEqual(state.get('connectedWindows'), {});
  });

  it('round-trips every key, under its own name and in the shape it always had', async () => {
    const store = new MemoryStore();
    const logger = recorder();
    const state = open(store, logger);
    for (const key of keys) await state.update(key, samples[key]);
    for (const key of keys) {
      assert.deepEqual(state.get(key), samples[key], key);
      assert.deepEqual(store.values.get(STORED[key].key), samples[key], `${key} is stored as is`);
    }
    const other = open(store);
    for (const key of keys) assert.deepEqual(other.get(key), samples[key], `${key}, read by another window`);
    assert.deepEqual(logger.warnings, []);
  });

  it('reads values written before this module, straight from global state', () => {
    const store = new MemoryStore({
      'gpuRental.recentTemplates': ['h1'],
      'gpuRental.lowCreditSnoozedUntil': 5,
      'gpuRental.connectedWindows': { '3': 10 },
    });
    const state = open(store);
    assert.deepEqual(state.get('recentTemplates'), ['h1']);
    assert.equal(state.get('lowCreditSnoozedUntil'), 5);
    assert.deepEqual(state.get('connectedWindows'), { '3': 10 });
  });

  it('removes a key written as undefined: reads give the default again', async () => {
    const store = new MemoryStore();
    const state = open(store);
    await state.update('rentJournal', [pending]);
    await state.update('rentJournal', undefined);
    assert.equal(store.values.has('gpuRental.rentJournal'), false);
    assert.deepEqual(state.get('rentJournal'), []);
  });

  it('reads an unreadable value as the default, and warns once per key without the value', () => {
    const logger = recorder();
    const store = new MemoryStore({
      'gpuRental.lowCreditSnoozedUntil': 'tomorrow',
      'gpuRental.createdApiKeys': { 'https://x': { fp: 'sk-secret-never-logged' } },
      'gpuRental.idleCountdown': { id: 'one' },
    });
    const state = open(store, logger);
    assert.equal(state.get('lowCreditSnoozedUntil'), 0);
    assert.equal(state.get('lowCreditSnoozedUntil'), 0);
    assert.deepEqual(state.get('createdApiKeys'), {});
    assert.equal(state.get('idleCountdown'), undefined);
    assert.equal(logger.warnings.length, 3, logger.warnings.join('\n'));
    assert.match(logger.warnings[0] ?? '', /gpuRental\.lowCreditSnoozedUntil could not be read/);
    assert.match(logger.warnings[1] ?? '', /gpuRental\.createdApiKeys could not be read \(https:\/\/x\.fp: /);
    assert.ok(!logger.warnings.join('\n').includes('sk-secret-never-logged'), 'the stored value is never logged');
    assert.equal(store.writes.length, 0, 'reading never writes');
  });

  it('keeps the readable entries of a list and drops the damaged ones, as the readers before it did', () => {
    const store = new MemoryStore({
      'gpuRental.profiles': [
        { id: 'work', name: 'Work', baseUrl: 'https://work.example.com' },
        { id: 'default', name: 'Shadow', baseUrl: 'https://x' },
        { id: 'work', name: 'Twice', baseUrl: 'https://y' },
        { id: 'Not A Slug', name: 'Bad', baseUrl: 'https://z' },
        { name: 'No id' },
        null,
      ],
      'gpuRental.boots': [{ id: 1, since: 5 }, { id: 1.5, since: 5 }, { id: 2 }, 'x'],
      'gpuRental.rentJournal': [pending, { ...pending, label: 'gpu-rental-c3d4', lease: undefined }],
    });
    const state = open(store);
    assert.deepEqual(state.get('profiles'), [{ id: 'work', name: 'Work', baseUrl: 'https://work.example.com' }]);
    assert.deepEqual(state.get('boots'), [{ id: 1, since: 5 }]);
    assert.deepEqual(state.get('rentJournal'), [pending]);
  });

  it('falls back field by field in the offer search, as the Offers view always did', () => {
    const state = open(new MemoryStore({ 'gpuRental.offerSearch': { query: 'gpu_ram>=24', sort: 'cheapest' } }));
    assert.deepEqual(state.get('offerSearch'), { query: 'gpu_ram>=24', sort: 'value' });
    const noQuery = open(new MemoryStore({ 'gpuRental.offerSearch': { query: 42, sort: 'gpus' } }));
    assert.deepEqual(noQuery.get('offerSearch'), { query: '', sort: 'gpus' });
  });

  it('migrates a value stored in an older shape, and reads today’s shape without migrating', () => {
    // A key that once held a bare image name and now holds a most-recent-first list.
    const recent: StoredSpec<string[]> = {
      key: 'example.recent',
      read: arrayOf(string),
      default: [],
      migrate: (old) => (typeof old === 'string' ? [old] : old),
    };
    assert.deepEqual(readStored(recent, 'ubuntu:22.04'), { value: ['ubuntu:22.04'], migrated: true });
    assert.deepEqual(readStored(recent, ['a', 'b']), { value: ['a', 'b'] });
    assert.deepEqual(readStored(recent, undefined), { value: [] });
    const unreadable = readStored(recent, 42);
    assert.deepEqual(unreadable.value, []);
    assert.match(unreadable.problem ?? '', /^the value: /, 'a value the migration cannot read either is reported as is');
  });

  it('reads and writes the catalog it is handed, under that catalog’s keys alone', async () => {
    const store = new MemoryStore({ 'example.count': 'three', 'gpuRental.recentImages': ['kept'] });
    const logger = recorder();
    const own = new StoredState(
      { count: storedSpec('example.count', number, 0), names: storedSpec('example.names', arrayOf(string), []) },
      store,
      logger,
    );
    assert.equal(own.get('count'), 0, 'an unreadable value reads as its default');
    assert.equal(logger.warnings.length, 1);
    await own.update('count', 3);
    await own.change('names', (names) => [...names, 'a']);
    assert.equal(own.get('count'), 3);
    assert.deepEqual(own.get('names'), ['a']);
    assert.deepEqual(Object.fromEntries(store.values), { 'example.count': 3, 'example.names': ['a'], 'gpuRental.recentImages': ['kept'] });
  });

  it('changes a key by reading, editing and writing it; two changes in a row both land', async () => {
    const store = new MemoryStore({ 'gpuRental.recentImages': ['b'] });
    const state = open(store);
    const first = state.change('recentImages', (list) => ['a', ...list.filter((i) => i !== 'a')]);
    const second = state.change('recentImages', (list) => ['c', ...list]);
    assert.deepEqual(await first, ['a', 'b']);
    assert.deepEqual(await second, ['c', 'a', 'b']);
    assert.deepEqual(state.get('recentImages'), ['c', 'a', 'b']);
    assert.equal(await state.change('recentImages', () => undefined), undefined);
    assert.equal(store.values.has('gpuRental.recentImages'), false, 'an edit to undefined removes the key');
  });

  describe("over VS Code's global state, whose echo of a write can undo a later one", () => {
    const profile = { id: 'second', name: 'Second', baseUrl: 'http://127.0.0.1:8080' };

    it('keeps a write made while an earlier write of the window was on its way (a profile added just after a boot was noted)', async () => {
      const model = new GlobalStateModel();
      const state = open(model.window());
      const boots = state.update('boots', [{ id: 7, since: 1 }]);
      await model.run('flush'); // the boots are sent
      await model.run('main'); // stored; the echo of that object is on its way back
      const added = state.update('profiles', [profile]);
      assert.deepEqual(state.get('profiles'), [profile], 'a read right after the write gives it');
      await model.run('echo'); // the echo arrives before the profile's own flush
      assert.deepEqual(state.get('profiles'), [profile], 'the echo of the earlier object does not hide it');
      await model.drain();
      await Promise.all([boots, added]);
      assert.deepEqual(model.stored['gpuRental.profiles'], [profile], 'stored');
      assert.deepEqual(model.stored['gpuRental.boots'], [{ id: 7, since: 1 }]);
      assert.deepEqual(state.get('profiles'), [profile]);
    });

    it("writes again a value that another window's change undid before it was sent, and keeps that window's key", async () => {
      const model = new GlobalStateModel();
      const state = open(model.window());
      model.window();
      const noted = state.update('boots', [{ id: 7, since: 1 }]);
      model.writtenElsewhere('gpuRental.lowCreditSnoozedUntil', 99); // reported here before the flush below
      await model.run('echo');
      await model.drain();
      await noted;
      assert.deepEqual(model.stored['gpuRental.boots'], [{ id: 7, since: 1 }], 'written again once the read-back missed it');
      assert.equal(model.stored['gpuRental.lowCreditSnoozedUntil'], 99);
      assert.deepEqual(state.get('boots'), [{ id: 7, since: 1 }]);
    });

    it('lands every change of a burst in order, each reading the one before', async () => {
      const model = new GlobalStateModel();
      const state = open(model.window());
      const changes = ['a', 'b', 'c'].map((image) => state.change('recentImages', (list) => [image, ...list]));
      void state.update('lowCreditSnoozedUntil', 5);
      assert.deepEqual(state.get('recentImages'), ['c', 'b', 'a']);
      await model.drain();
      assert.deepEqual(await Promise.all(changes), [['a'], ['b', 'a'], ['c', 'b', 'a']]);
      assert.deepEqual(model.stored, { 'gpuRental.recentImages': ['c', 'b', 'a'], 'gpuRental.lowCreditSnoozedUntil': 5 });
    });
  });
});
