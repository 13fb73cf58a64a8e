import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import type { RentPlan } from '../../src/core/rent/plan';
import { api, control, eventually, extensionApi, recordNotifications, recordQuickPicks, rentableOffers, signIn, sim } from './support';

let n = 0;
const uniqueLabel = () => `it-best-${Date.now().toString(36)}-${n++}`;
const plan = (label: string): RentPlan => ({ image: 'ubuntu:22.04', disk: 10, runtype: 'ssh_proxy', label });

/** Three offers the extension's default filters list, at three different prices, cheapest first. */
async function threeOffers(): Promise<Offer[]> {
  // Priced for the disk the extension's search prices in, so the order is the one it sees.
  const offers = await rentableOffers(
    { verified: { eq: true }, external: { eq: false }, rented: { eq: false }, allocated_storage: 10 },
    60,
  );
  const picked: Offer[] = [];
  // Each must fit any plan the wizard proposes (direct SSH, its disk), or the failover leaves it out and
  // tries fewer: which offers are free depends on what the suites before this one rented.
  const fits = (o: Offer) => (o.direct_port_count ?? 0) > 0 && (o.disk_space ?? 0) >= 50;
  for (const o of offers) if (picked.length < 3 && fits(o) && !picked.some((p) => p.dph_total === o.dph_total)) picked.push(o);
  assert.equal(picked.length, 3);
  return picked;
}

/** A search that lists exactly these offers, cheapest first. */
const searchOf = (offers: readonly Offer[]) => ({ query: `id in [${offers.map((o) => o.id).join(',')}]`, sort: 'price' as const });

/** A second account, as another renter on the marketplace. */
async function rival(): Promise<string> {
  return ((await control('POST', 'accounts', { email: `rival-${Date.now()}@example.test`, credit: 1000 })) as { key: string }).key;
}

async function instancesLabelled(label: string) {
  const res = (await api('GET', '/api/v0/instances/?owner=me', sim.key)) as {
    instances: Array<{ id: number; label: string | null; machine_id: number }>;
  };
  return res.instances.filter((i) => i.label === label);
}

describe('rent best match (failover)', () => {
  let restore: (() => void) | undefined;
  const made: number[] = [];
  afterEach(async () => {
    restore?.();
    restore = undefined;
    await vscode.workspace.getConfiguration('gpuRental').update('rent.failoverAttempts', undefined, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const id of made) await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
  });

  /**
   * Answers the rent's questions: the first (the confirmation, asked after the search) lets the rival
   * take `take` first, so it is gone before the rent lands; later ones (a different price) get `price`.
   */
  async function answer(take: readonly Offer[], price: boolean) {
    const x = await extensionApi();
    const key = await rival();
    const asked: string[] = [];
    restore = x.test.answerPrompts({
      confirm: async (title) => {
        asked.push(title);
        if (asked.length === 1)
          for (const o of take) await api('PUT', `/api/v0/asks/${o.id}/`, key, { client_id: 'me', image: 'ubuntu:22.04', disk: 10 });
        return asked.length === 1 ? true : price;
      },
    });
    return asked;
  }

  it('rents the next offer when the best one is taken before the rent lands, and says so', async () => {
    await signIn();
    const offers = await threeOffers();
    const asked = await answer(offers.slice(0, 1), true);
    const label = uniqueLabel();
    const notifications = recordNotifications();
    try {
      const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentBestMatch', searchOf(offers), plan(label));
      assert.equal(typeof id, 'number', 'an instance was rented');
      made.push(id!);
      const mine = await instancesLabelled(label);
      assert.deepEqual(
        mine.map((i) => [i.id, i.machine_id]),
        [[id, offers[1]!.machine_id]],
        'one instance, on the second offer',
      );
      assert.equal(asked.length, 2, 'the confirmation, then the second offer’s different price');
      assert.match(asked[0]!, /^Rent .+ for \$[\d.]+\/h\?$/);
      assert.match(asked[1]!, /^Rent .+ for \$[\d.]+\/h instead of \$[\d.]+\/h\?$/);
      const notice = await eventually(() => notifications.seen.find((s) => s.message.includes(`as instance #${id}`)), 'the rent notice');
      assert.equal(notice.level, 'info');
      assert.match(notice.message, /^GPU Rental: rented ".+" as instance #\d+\. .*The offer before it was taken first: /);
    } finally {
      notifications.dispose();
    }
  });

  it('through the wizard: its confirmation says what happens if the offer is taken, and the failover follows', async () => {
    const x = await signIn();
    const offers = await threeOffers();
    const key = await rival();
    const asked: string[] = [];
    restore = x.test.answerPrompts({
      confirm: async (title) => {
        asked.push(title);
        return true;
      },
    });
    const { picks, restore: unrecord } = recordQuickPicks();
    let id: number | undefined;
    try {
      let done = false;
      let taken = false;
      const renting = vscode.commands
        .executeCommand<number | undefined>('gpuRental.rentBestMatch', searchOf(offers))
        .then((v) => ((done = true), v));
      // Accept what each step proposes; once the confirmation shows, the rival takes the best offer.
      while (!done) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        if (done) break;
        if (!taken && picks.some((p) => p.step === 6)) {
          await api('PUT', `/api/v0/asks/${offers[0]!.id}/`, key, { client_id: 'me', image: 'ubuntu:22.04', disk: 10 });
          taken = true;
        }
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
      id = await renting;
    } finally {
      unrecord();
    }
    assert.equal(typeof id, 'number', 'rented');
    made.push(id!);
    const confirmation = picks.find((p) => p.step === 6)!;
    assert.match(confirmation.title ?? '', new RegExp(`\\(offer ${offers[0]!.id}\\)$`), 'the wizard ran on the best offer');
    const row = confirmation.items.find((i) => i.label.startsWith('$(sync)'));
    assert.equal(row?.label, '$(sync) If it is taken first, tries up to 3 offers in this order');
    assert.match(row?.description ?? '', /^then .+ \$[\d.]+\/h, .+ \$[\d.]+\/h; a different price is asked about before it is rented$/);
    assert.equal(asked.length, 1, 'one question: the second offer’s price');
    const all = (await api('GET', '/api/v0/instances/?owner=me', sim.key)) as { instances: Array<{ id: number; machine_id: number }> };
    assert.equal(all.instances.find((i) => i.id === id)?.machine_id, offers[1]!.machine_id, 'rented on the second offer');
  });

  it('stops at the limit the user set, with nothing rented, and says so', async () => {
    await vscode.workspace.getConfiguration('gpuRental').update('rent.failoverAttempts', 2, vscode.ConfigurationTarget.Global);
    await signIn();
    const offers = await threeOffers();
    await answer(offers.slice(0, 2), true);
    const label = uniqueLabel();
    const notifications = recordNotifications();
    try {
      const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentBestMatch', searchOf(offers), plan(label));
      assert.equal(id, undefined);
      assert.deepEqual(await instancesLabelled(label), [], 'the third offer was never tried');
      const notice = await eventually(
        () => notifications.seen.find((s) => /Rent|taken/.test(s.message) && s.level === 'warning'),
        'the notice',
      );
      assert.match(
        notice.message,
        /^GPU Rental: not rented: the 2 offers tried \(the limit, gpuRental\.rent\.failoverAttempts\) were taken/,
      );
    } finally {
      notifications.dispose();
    }
  });

  it('on a saved search, by its name (the Saved Searches button)', async () => {
    const x = await signIn();
    const before = x.test.stored('savedSearches');
    const name = `it best match ${n++}`;
    const saveAs = (offers: readonly Offer[]) => x.test.store('savedSearches', [...before, { name, ...searchOf(offers) }]);
    try {
      // By name: the saved query decides which offers, in its order; the best is taken first.
      const offers = await threeOffers();
      await saveAs(offers);
      await answer(offers.slice(0, 1), true);
      const label = uniqueLabel();
      const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentBestMatch', name, plan(label));
      assert.equal(typeof id, 'number');
      made.push(id!);
      assert.equal((await instancesLabelled(label))[0]?.machine_id, offers[1]!.machine_id);
    } finally {
      await x.test.store('savedSearches', before);
    }
  });

  it('a saved search that does not exist rents nothing and says so', async () => {
    await signIn();
    const notifications = recordNotifications();
    try {
      const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentBestMatch', 'no such search 17');
      assert.equal(id, undefined);
      assert.ok(notifications.seen.some((s) => /no saved search named "no such search 17"/.test(s.message)));
    } finally {
      notifications.dispose();
    }
  });
});
