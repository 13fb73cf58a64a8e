import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import type { RentPlan } from '../../src/core/rent/plan';
import { always, api, control, eventually, extensionApi, recordNotifications, recordQuickPicks, signIn, sim } from './support';

const plan = (label: string): RentPlan => ({ image: 'ubuntu:22.04', disk: 10, runtype: 'ssh_proxy', label });
let n = 0;
const uniqueLabel = () => `it-rent-${Date.now().toString(36)}-${n++}`;

async function cheapOffers(count: number): Promise<Offer[]> {
  const body = { rentable: { eq: true }, verified: { eq: true }, order: [['dph_total', 'asc']], limit: 200, type: 'on-demand' };
  const res = (await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] };
  return res.offers.slice(n * 3, n * 3 + count);
}

async function instancesLabelled(label: string) {
  const res = (await api('GET', '/api/v0/instances/?owner=me', sim.key)) as { instances: Array<{ id: number; label: string | null }> };
  return res.instances.filter((i) => i.label === label);
}

describe('rent', () => {
  beforeEach(async () => {
    const x = await signIn();
    x.test.answerPrompts(always(true));
  });
  afterEach(() => control('DELETE', 'faults'));

  it('rents an offer, shows it in the tree and watches it boot in the status bar to running', async () => {
    const x = await extensionApi();
    const [offer] = await cheapOffers(1);
    const label = uniqueLabel();
    const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id, plan(label));
    assert.ok(typeof id === 'number');
    assert.ok(
      x.test.stored('boots').some((b) => b.id === id),
      'the boot is saved for a reload',
    );
    const booting = await eventually(() => x.test.statusBar().boot?.text, 'the boot status');
    assert.match(booting, /\$\(loading~spin\) .*(provisioning|loading) \d+:\d\d/);
    await eventually(
      async () =>
        (await x.test.instanceItems()).find((i) => 'instance' in i && i.instance.id === id && i.instance.actual_status === 'running'),
      'running in the tree',
      20_000,
    );
    await eventually(() => x.test.statusBar().boot === undefined, 'the boot status to clear', 10_000);
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  it('makes one instance from a double click', async () => {
    const [offer] = await cheapOffers(1);
    const label = uniqueLabel();
    const [a, b] = await Promise.all([
      vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id, plan(label)),
      vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id, plan(label)),
    ]);
    assert.equal([a, b].filter((v) => typeof v === 'number').length, 1);
    assert.equal((await instancesLabelled(label)).length, 1);
  });

  it('a rent whose answer was lost is shown as unconfirmed, then found in the account and announced: the user sees the instance they pay for', async () => {
    const x = await extensionApi();
    const [offer] = await cheapOffers(1);
    const label = uniqueLabel();
    await control('POST', 'faults', { kind: 'reset', method: 'PUT', path: '/api/v0/asks/', count: 1, phase: 'after' });
    const notifications = recordNotifications();
    try {
      const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id, plan(label));
      assert.equal(id, undefined, 'no success is claimed for an answer that was not seen');
      const message = await eventually(
        () => notifications.seen.find((n) => n.message.includes(label) && /went through/.test(n.message))?.message,
        'the outcome to be announced',
      );
      const found = await instancesLabelled(label);
      assert.equal(found.length, 1, 'exactly one instance was made');
      assert.match(message, new RegExp(`went through: it is instance #${found[0]!.id}`));
    } finally {
      notifications.dispose();
    }
    const [made] = await instancesLabelled(label);
    await eventually(
      async () => (await x.test.instanceItems()).find((i) => 'instance' in i && i.instance.id === made!.id),
      'the instance in the tree',
    );
    assert.deepEqual(x.test.rents().unsettled, []);
  });

  it('while a rent is unsettled, a key change or sign-out is refused naming the rent, and no second rent is sent', async () => {
    const x = await extensionApi();
    const [offer, other] = await cheapOffers(2);
    const label = uniqueLabel();
    // The service holds the create for a while: the rent is journalled and unsettled meanwhile.
    await control('POST', 'faults', { kind: 'latency', ms: 3000, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    const renting = vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id, plan(label));
    await eventually(() => x.test.rents().unsettled.includes(label), 'the rent in the journal');
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', sim.key), false, 'the key is not changed');
    await vscode.commands.executeCommand('gpuRental.signOut');
    assert.equal(x.test.session().hasKey, true, 'still signed in');
    assert.match(x.test.rents().freezeReason ?? '', new RegExp(`"${label}"`));
    assert.equal(
      await vscode.commands.executeCommand('gpuRental.rentOffer', other!.id, plan(uniqueLabel())),
      undefined,
      'a second rent is not sent meanwhile',
    );
    const id = await renting;
    assert.equal(typeof id, 'number');
    assert.equal((await instancesLabelled(label)).length, 1);
    assert.equal(x.test.rents().freezeReason, undefined, 'settled: the account may change again');
  });

  it('says so when the offer was taken meanwhile, and makes nothing', async () => {
    const [offer] = await cheapOffers(1);
    await vscode.commands.executeCommand('gpuRental.rentOffer', offer!.id, plan(uniqueLabel()));
    const label = uniqueLabel();
    const second = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id, plan(label));
    assert.equal(second, undefined);
    assert.equal((await instancesLabelled(label)).length, 0);
  });
});

describe('rent from a Jupyter template', function () {
  this.timeout(60_000);
  let hash: string;
  let k = 0;

  before(async () => {
    await signIn();
    // A Jupyter template of the account's own, made through the API as the web console would.
    const made = (await api('POST', '/api/v0/template/', sim.key, {
      name: `it-jupyter-${Date.now().toString(36)}`,
      image: 'ubuntu',
      tag: '22.04',
      runtype: 'jupyter',
      use_ssh: true,
      jup_direct: false,
    })) as { template: { hash_id: string } };
    hash = made.template.hash_id;
  });

  /** An offer no other rent test takes: the dearest rentable ones, one per test. */
  async function freshOffer(): Promise<Offer> {
    const body = { rentable: { eq: true }, verified: { eq: true }, order: [['dph_total', 'desc']], limit: 50, type: 'on-demand' };
    const res = (await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] };
    return res.offers[k++]!;
  }

  async function runtypeOf(id: number): Promise<string | null> {
    return ((await api('GET', `/api/v0/instances/${id}/`, sim.key)) as { instances: { image_runtype: string | null } }).instances
      .image_runtype;
  }

  it('a Rent With Template refused while another rent is open leaves no template for the next rent', async () => {
    const x = await extensionApi();
    x.test.answerPrompts(always(true));
    const [first, second, third] = [await freshOffer(), await freshOffer(), await freshOffer()];
    const { picks, restore } = recordQuickPicks();
    try {
      // A plain rent's wizard is open at its first step (image or template).
      const open = vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', first.id);
      await eventually(() => picks.length > 0, 'the first rent wizard');
      // Rent With Template meanwhile is refused: one rent at a time.
      assert.equal(await vscode.commands.executeCommand('gpuRental.rentWithTemplate', hash, second.id), undefined);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.equal(await open, undefined, 'the first wizard was cancelled: nothing rented');
      // The next plain rent starts clean: at the first step, with no template chosen.
      picks.length = 0;
      const next = vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', third.id);
      const shown = await eventually(() => picks[0], 'the next rent wizard');
      assert.equal(shown.step, 1, 'the next wizard starts at the image or template step');
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.equal(await next, undefined);
    } finally {
      restore();
    }
  });

  it('the wizard opened on the template offers its mode first, shows it on the confirmation, and sends no runtype', async () => {
    const x = await extensionApi();
    x.test.answerPrompts(always(true));
    const offer = await freshOffer();
    const { picks, restore } = recordQuickPicks();
    let id: number | undefined;
    try {
      // "Rent With Template" on an offer: the template is chosen, the wizard starts at the disk step.
      let done = false;
      const renting = vscode.commands
        .executeCommand<number | undefined>('gpuRental.rentWithTemplate', hash, offer.id)
        .then((v) => ((done = true), v));
      // Accept what each step proposes: the disk, the connection, the label, no script, then Rent.
      while (!done) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
      id = await renting;
    } finally {
      restore();
    }
    assert.equal(typeof id, 'number', 'rented');
    const connection = picks.find((p) => p.step === 3);
    assert.ok(connection, 'the connection step was shown');
    assert.equal(connection.items[0]?.label, "The template's mode: Jupyter and SSH via proxy", 'offered first, and taken by default');
    const confirmation = picks.find((p) => p.step === 6);
    assert.ok(confirmation, 'the confirmation was shown');
    const row = confirmation.items.find((i) => i.label === `template ${hash}`);
    assert.match(row?.description ?? '', /^Jupyter and SSH via proxy, as the template says · "/);
    assert.equal(await runtypeOf(id!), 'jupyter_proxy ssh_proxy');
    await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
  });
});
