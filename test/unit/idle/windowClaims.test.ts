import assert from 'node:assert/strict';
import { CLAIM_GRACE_MS, CONNECTED_FRESH_MS, HEARTBEAT_MS, WindowClaims } from '../../../src/core/idle/windowClaims';
import { StoredState } from '../../../src/core/state/storedState';
import { STORED } from '../../../src/core/stored';
import { MemoryStore } from '../state/memoryStore';

/** One window's claims over the global state `store`. */
const claims = (store: MemoryStore, owner: string) => new WindowClaims(new StoredState(STORED, store), owner);

/** Two windows of one editor: each its own StoredState and claims, over the one global state. */
function twoWindows() {
  const store = new MemoryStore();
  return { store, a: claims(store, 'session-a'), b: claims(store, 'session-b') };
}

const COUNTDOWN_MS = 60_000;

describe('idle: the claims windows share', () => {
  it('lets only one window count down, until its claim is released', async () => {
    const { a, b } = twoWindows();
    assert.equal(await a.claimCountdown(7, 1_000, COUNTDOWN_MS), true);
    assert.equal(await b.claimCountdown(7, 1_001, COUNTDOWN_MS), false, 'the same instance');
    assert.equal(await b.claimCountdown(8, 1_002, COUNTDOWN_MS), false, 'one countdown at a time, whatever the instance');
    assert.equal(await a.claimCountdown(7, 2_000, COUNTDOWN_MS), true, 'the holder may claim again');
    await a.releaseCountdown();
    assert.equal(await b.claimCountdown(8, 3_000, COUNTDOWN_MS), true, 'released: the other window may count down');
    assert.equal(await a.claimCountdown(7, 3_001, COUNTDOWN_MS), false);
  });

  it('stores the claim in the shape and for the time it always had: the countdown plus 30 s', async () => {
    const { store, a } = twoWindows();
    await a.claimCountdown(7, 1_000, COUNTDOWN_MS);
    assert.equal(CLAIM_GRACE_MS, 30_000);
    assert.deepEqual(store.values.get('gpuRental.idleCountdown'), { id: 7, owner: 'session-a', until: 1_000 + COUNTDOWN_MS + 30_000 });
    await a.releaseCountdown();
    assert.equal(store.values.has('gpuRental.idleCountdown'), false);
  });

  it('lets a window take the claim of a window that died mid-countdown once it lapses', async () => {
    const { a, b } = twoWindows();
    assert.equal(await a.claimCountdown(7, 0, COUNTDOWN_MS), true);
    // Window a closes without releasing: its claim holds until the countdown and the grace are over.
    const lapse = COUNTDOWN_MS + CLAIM_GRACE_MS;
    assert.equal(await b.claimCountdown(7, lapse - 1, COUNTDOWN_MS), false);
    assert.equal(await b.claimCountdown(7, lapse, COUNTDOWN_MS), true, 'a lapsed claim is taken');
    assert.equal(await a.claimCountdown(7, lapse + 1, COUNTDOWN_MS), false, 'and now holds against the first window');
  });

  it('a window whose countdown outlasted its claim releases only its own, never the claim another window took', async () => {
    const store = new MemoryStore();
    const [a, b, c] = ['session-a', 'session-b', 'session-c'].map((id) => claims(store, id));
    assert.equal(await a!.claimCountdown(7, 0, COUNTDOWN_MS), true);
    // Window a's dialog stays open past its claim; window b takes the countdown over.
    const lapse = COUNTDOWN_MS + CLAIM_GRACE_MS;
    assert.equal(await b!.claimCountdown(7, lapse + 1, COUNTDOWN_MS), true);
    // Window a's countdown ends now: b still holds the claim, so a third window may not start one.
    await a!.releaseCountdown();
    assert.equal(await c!.claimCountdown(7, lapse + 2, COUNTDOWN_MS), false);
    await b!.releaseCountdown();
    assert.equal(await c!.claimCountdown(7, lapse + 3, COUNTDOWN_MS), true);
  });

  it("sees both windows' heartbeats, and forgets one that stopped beating", async () => {
    const { store, a, b } = twoWindows();
    await a.heartbeat(1, 0);
    await b.heartbeat(2, 10);
    assert.deepEqual([...a.connected(20)].sort(), [1, 2]);
    assert.deepEqual([...b.connected(20)].sort(), [1, 2]);
    assert.deepEqual(store.values.get('gpuRental.connectedWindows'), { '1': 0, '2': 10 }, 'instance id → last heartbeat, as before');
    await b.heartbeat(2, 2 * HEARTBEAT_MS);
    assert.deepEqual([...a.connected(CONNECTED_FRESH_MS - 1)].sort(), [1, 2], 'fresh until three missed minutes');
    assert.deepEqual([...a.connected(CONNECTED_FRESH_MS)], [2], 'window 1 stopped beating: gone');
  });

  it('drops a window that closes from the connected ones at once', async () => {
    const { a, b } = twoWindows();
    await a.heartbeat(1, 0);
    await b.heartbeat(2, 0);
    await a.disconnect(1);
    assert.deepEqual([...b.connected(1)], [2]);
    assert.deepEqual([...a.connected(1)], [2]);
  });

  it('keeps both heartbeats when two windows beat at once', async () => {
    const { a, b } = twoWindows();
    await Promise.all([a.heartbeat(1, 5), b.heartbeat(2, 5)]);
    assert.deepEqual([...a.connected(6)].sort(), [1, 2]);
  });
});
