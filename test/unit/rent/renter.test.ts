import assert from 'node:assert/strict';
import type { Offer } from '../../../src/core/api/offers';
import { LEASE_MS, RentJournal } from '../../../src/core/rent/journal';
import { rentOutcomeMessage, settlementMessage } from '../../../src/core/rent/messages';
import { quoteRent } from '../../../src/core/rent/quote';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace, priceableOffer } from '../../support';
import { MemoryJournalStorage, accountAt, nextSettlement, renterFor } from './kit';

describe('renting', () => {
  let sim: Marketplace;
  let offers: Offer[];
  const client = () => clientFor(sim.url, DEMO_KEY, { maxAttempts: 1 }).client;
  let next = 0;
  const offer = () => offers[next++]!;
  const info = { description: 'RTX 4090 in NL', perHour: 0.5 };
  const request = (label: string) => ({ image: 'ubuntu:22.04', disk: 10, label });

  before(async () => {
    sim = await startSimulator();
    offers = await client().offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 60,
    });
  });
  afterEach(() => sim.control.clearFaults());
  after(() => sim.stop());

  async function instancesLabelled(label: string) {
    return (await client().instances.list()).filter((i) => i.label === label);
  }

  it('rents once, writes the journal before sending and clears it after a readable answer', async () => {
    const { renter, storage } = renterFor();
    const label = renter.uniqueLabel();
    let journalledBeforeSend = false;
    const write = storage.write.bind(storage);
    storage.write = async (entries) => {
      if (entries.some((e) => e.label === label && e.state === 'sending') && (await instancesLabelled(label)).length === 0)
        journalledBeforeSend = true;
      await write(entries);
    };
    const outcome = await renter.rent(accountAt(sim.url), offer(), request(label), info);
    assert.equal(outcome.kind, 'created');
    assert.ok(journalledBeforeSend, 'the pending rent was written before the request was sent');
    assert.deepEqual(storage.entries, []);
    assert.equal(storage.keys.size, 0, 'the key copy goes with the entry');
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  it('makes one instance from a double click: the second rent is refused as busy', async () => {
    const { renter } = renterFor();
    const label = renter.uniqueLabel();
    const o = offer();
    const [a, b] = await Promise.all([
      renter.rent(accountAt(sim.url), o, request(label), info),
      renter.rent(accountAt(sim.url), o, request(label), info),
    ]);
    assert.deepEqual([a.kind, b.kind].sort(), ['busy', 'created']);
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  for (const fault of [
    { kind: 'reset', phase: 'after' as const },
    { kind: 'server_error', status: 502, phase: 'after' as const },
    { kind: 'server_error', status: 503, phase: 'after' as const },
    { kind: '429', phase: 'after' as const },
    { kind: 'malformed', phase: 'after' as const },
    { kind: 'truncated', phase: 'after' as const },
  ]) {
    it(`a ${fault.kind}${'status' in fault ? ` ${fault.status}` : ''} after the rent was made: uncertain, then found by its label, never rented again`, async () => {
      const { renter, storage } = renterFor();
      const label = renter.uniqueLabel();
      sim.control.addFault({ ...fault, method: 'PUT', path: '/api/v0/asks/', count: 1 });
      const settled = nextSettlement(renter);
      const outcome = await renter.rent(accountAt(sim.url), offer(), request(label), info);
      assert.equal(outcome.kind, 'uncertain');
      assert.match(
        rentOutcomeMessage(outcome as Exclude<typeof outcome, { kind: 'created' }>),
        /not confirmed.*may have made the instance.*do not rent again/s,
      );
      const again = await renter.rent(accountAt(sim.url), offer(), request(renter.uniqueLabel()), info);
      assert.equal(again.kind, 'unsettled', 'no rent while the outcome is unknown');
      const s = await settled;
      const found = await instancesLabelled(label);
      assert.equal(found.length, 1, 'exactly one instance exists');
      assert.deepEqual(s.kind === 'found' && s.instanceId, found[0]!.id);
      assert.match(settlementMessage(s), /went through: it is instance #\d+ and bills \$0\.50/);
      assert.deepEqual(storage.entries, []);
    });
  }

  it('a create the service completes after the client gave up is found, not declared "not made"', async () => {
    const { renter } = renterFor({ timeoutMs: 300, windowMs: 3_000 });
    const label = renter.uniqueLabel();
    // The service holds the request for 1 s, longer than the client waits, then makes the instance.
    sim.control.addFault({ kind: 'latency', ms: 1_000, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    const settled = nextSettlement(renter);
    const outcome = await renter.rent(accountAt(sim.url), offer(), request(label), info);
    assert.equal(outcome.kind, 'uncertain');
    const s = await settled;
    assert.equal(s.kind, 'found');
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  it('says "nothing is billed" only after reading the account past the window', async () => {
    const { renter } = renterFor({ windowMs: 800 });
    const label = renter.uniqueLabel();
    sim.control.addFault({ kind: 'server_error', status: 503, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    const settled = nextSettlement(renter);
    const started = Date.now();
    const outcome = await renter.rent(accountAt(sim.url), offer(), request(label), info);
    assert.equal(outcome.kind, 'uncertain', 'a 503 does not say the rent was not done');
    const s = await settled;
    assert.equal(s.kind, 'notCreated');
    assert.ok(s.kind === 'notCreated' && s.checkedAt >= s.entry.sentAt + 800, 'the deciding look began after the window');
    assert.ok(Date.now() - started >= 800);
    assert.match(settlementMessage(s), /did not go through.*Nothing is billed/);
    assert.equal((await instancesLabelled(label)).length, 0);
  });

  it('a request that never reached the service is certainly not made: refused at once, nothing journalled', async () => {
    const { renter, storage } = renterFor();
    const outcome = await renter
      .rent(accountAt('http://127.0.0.1:9'), offer(), request(renter.uniqueLabel()), info)
      .catch((e: unknown) => e);
    // The list of instances before the rent fails first: nothing was sent, and it says so.
    assert.ok(outcome instanceof Error && /connection to the service failed/.test(outcome.message), String(outcome));
    assert.deepEqual(storage.entries, []);
  });

  it('reports an offer taken meanwhile as unavailable, and a refused rent as refused', async () => {
    const { renter } = renterFor();
    const o = offer();
    assert.equal((await renter.rent(accountAt(sim.url), o, request(renter.uniqueLabel()), info)).kind, 'created');
    const second = await renter.rent(accountAt(sim.url), o, request(renter.uniqueLabel()), info);
    assert.equal(second.kind, 'unavailable');
    const refused = await renter.rent(
      accountAt(sim.url),
      offer(),
      { image: 'ubuntu:22.04', disk: 100_000, label: renter.uniqueLabel() },
      info,
    );
    assert.equal(refused.kind, 'refused');
    assert.match(rentOutcomeMessage(refused as Exclude<typeof refused, { kind: 'created' }>), /no instance was made and nothing is billed/);
  });

  it('checks the account the rent went to with the key it was sent with, whatever the window uses meanwhile', async () => {
    const { renter, storage } = renterFor();
    const label = renter.uniqueLabel();
    sim.control.addFault({ kind: 'reset', method: 'PUT', path: '/api/v0/asks/', count: 1, phase: 'after' });
    const settled = nextSettlement(renter);
    const outcome = await renter.rent(accountAt(sim.url), offer(), request(label), info);
    assert.equal(outcome.kind, 'uncertain');
    assert.equal(storage.keys.get(label), DEMO_KEY, 'the key is kept (in the secret store) for the check');
    assert.equal(storage.entries[0]?.baseUrl, sim.url);
    const s = await settled;
    assert.equal(s.kind, 'found');
    assert.equal(storage.keys.size, 0);
  });

  it('a window closed mid-rent: another window (or the reloaded one) takes the entry over once its lease runs out, and finds the instance', async () => {
    const storage = new MemoryJournalStorage();
    let clock = Date.now();
    // The first window's writes stop when it dies (its extension host is gone).
    let dead = false;
    const firstView = Object.assign(new MemoryJournalStorage(), {
      read: () => storage.read(),
      write: async (entries: Parameters<MemoryJournalStorage['write']>[0]) => (dead ? undefined : storage.write(entries)),
      storeKey: (l: string, k: string) => storage.storeKey(l, k),
      getKey: (l: string) => storage.getKey(l),
      deleteKey: async (l: string) => (dead ? undefined : storage.deleteKey(l)),
    });
    const first = renterFor({ storage: firstView, owner: 'window-a', now: () => clock, windowMs: 120_000 });
    const label = first.renter.uniqueLabel();
    // The first window writes the entry, sends, and dies before the answer arrives.
    sim.control.addFault({ kind: 'latency', ms: 400, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    void first.renter.rent(accountAt(sim.url), offer(), request(label), info).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    dead = true;
    first.renter.dispose();
    assert.equal(storage.entries.length, 1);
    assert.equal(storage.entries[0]!.state, 'sending');

    const second = renterFor({ storage, owner: 'window-b', now: () => clock, windowMs: 120_000 });
    second.renter.resume();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(storage.entries[0]!.lease.owner, 'window-a', 'a live lease is not taken');
    clock += LEASE_MS + 1;
    const settled = nextSettlement(second.renter);
    second.renter.resume();
    const s = await settled;
    assert.equal(s.kind, 'found');
    assert.deepEqual(storage.entries, []);
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  it('the journal freezes the account while a rent is pending, and names the rent', async () => {
    const storage = new MemoryJournalStorage();
    const journal = new RentJournal(storage, 'w');
    assert.equal(journal.freezeReason(), undefined);
    await journal.begin(
      { label: 'gpu-rental-1', offerId: 1, description: 'RTX 4090', perHour: 1, profileId: 'default', baseUrl: 'https://x', before: [] },
      'k',
    );
    assert.match(journal.freezeReason() ?? '', /"gpu-rental-1" \(RTX 4090\) is not settled yet/);
    await journal.settle('gpu-rental-1');
    assert.equal(journal.freezeReason(), undefined);
  });

  it('quotes GPU, disk, total, per day and the credit left, and refuses what the credit cannot cover', () => {
    const o = priceableOffer();
    const q = quoteRent(o, 40, 100);
    assert.equal(q.gpuPerHour, 0.4);
    assert.ok(Math.abs(q.diskPerHour - 0.01) < 1e-12);
    assert.ok(Math.abs(q.totalPerHour - 0.41) < 1e-9);
    assert.ok(Math.abs(q.perDay - 9.84) < 1e-9);
    assert.ok(Math.abs(q.creditAfterDay! - 90.16) < 1e-9);
    assert.equal(q.affordable, true);
    assert.equal(quoteRent(o, 40, 0.3).affordable, false);
  });
});
