import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import { formatHours, hoursLeft } from '../../src/core/billing/burn';
import type { RentPlan } from '../../src/core/rent/plan';
import { shellQuote } from '../../src/core/shell';
import { resumeHook } from '../../src/core/jobs/resumeScripts';
import { always, api, control, eventually, extensionApi, recordNotifications, signIn, sim } from './support';

type Record = { id: number; actual_status: string | null; dph_total: number; storage_total_cost: number; onstart: string | null };
const show = async (id: number) =>
  ((await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: Record | null }).instances;
const mine = async () => ((await api('GET', '/api/v0/instances/?owner=me', sim.key)) as { instances: Record[] }).instances;
const credit = async () => ((await api('GET', '/api/v0/users/current/', sim.key)) as { credit: number }).credit;
const settings = () => vscode.workspace.getConfiguration('gpuRental');
const set = (key: string, value: unknown) => settings().update(key, value, vscode.ConfigurationTarget.Global);

async function offers(): Promise<Offer[]> {
  const body = { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 100, type: 'on-demand' };
  return ((await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] }).offers;
}

async function rentRunning(offer: Offer): Promise<number> {
  const created = (await api('PUT', `/api/v0/asks/${offer.id}/`, sim.key, { client_id: 'me', image: 'ubuntu:22.04', disk: 8 })) as {
    new_contract: number;
  };
  await eventually(async () => (await show(created.new_contract))?.actual_status === 'running', 'running', 20_000);
  return created.new_contract;
}

describe('spend: burn rate, low credit, the cap, idle stop and no start without intent', function () {
  this.timeout(60_000);
  let id: number;
  let pool: Offer[];
  before(async () => {
    await signIn();
    // Start from an account where only this suite's instance bills.
    for (const i of await mine()) await api('DELETE', `/api/v0/instances/${i.id}/`, sim.key);
    pool = await offers();
    id = await rentRunning(pool.pop()!);
  });
  beforeEach(async () => {
    const x = await signIn();
    x.test.answerPrompts(always(true));
  });

  it('shows the burn rate beside the credit, with the projection and shares, matching what the simulator bills', async () => {
    const x = await extensionApi();
    await vscode.commands.executeCommand('gpuRental.refresh');
    await x.test.refreshInstances();
    const record = (await show(id))!;
    const rate = `$${record.dph_total.toFixed(3).replace(/0$/, '')}`;
    const { account } = x.test.statusBar();
    assert.match(account.text, /^\$\(account\) \$[\d,]+\.\d\d · \$\d+\.\d+\/h$/);
    const burn = x.test.burnPerHour();
    assert.ok(burn, 'burn known');
    assert.equal(burn.toFixed(4), record.dph_total.toFixed(4));
    const have = x.test.session().user?.credit ?? 0;
    const tooltip = account.tooltip;
    assert.match(tooltip, new RegExp(`credit lasts \\*\\*${formatHours(hoursLeft(have, record.dph_total))}\\*\\*`));
    assert.match(tooltip, /\| 100% \|/);
    assert.ok(
      tooltip.includes(rate) || tooltip.includes(`$${record.dph_total.toFixed(2)}`),
      `the tooltip names the instance's rate ${rate}`,
    );

    // The simulator drains the credit at the same rate the status bar shows.
    const c0 = await credit();
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 3_000));
    const spentPerHour = ((c0 - (await credit())) / (Date.now() - t0)) * 3_600_000;
    assert.ok(Math.abs(spentPerHour - burn) / burn < 0.15, `billed ${spentPerHour.toFixed(4)}/h vs shown ${burn.toFixed(4)}/h`);
  });

  it('warns about low credit once per crossing, not on every poll, and a snooze silences it', async () => {
    const x = await extensionApi();
    const notifications = recordNotifications();
    const warnings = () => notifications.seen.filter((n) => n.level === 'warning' && /low credit/.test(n.message));
    try {
      await set('lowCredit.hours', 1_000_000);
      await x.test.refreshInstances();
      assert.equal(warnings().length, 1);
      assert.match(warnings()[0]!.message, /the credit of \$[\d,.]+ lasts about/, 'the hours left are the reason');
      await x.test.refreshInstances();
      await x.test.refreshInstances();
      assert.equal(warnings().length, 1, 'no second warning while still low');

      await x.test.snoozeLowCredit(3_600_000);
      await set('lowCredit.hours', 0);
      await x.test.refreshInstances();
      await set('lowCredit.hours', 1_000_000);
      await x.test.refreshInstances();
      assert.equal(warnings().length, 1, 'snoozed');
      await x.test.snoozeLowCredit(-1);
      await x.test.refreshInstances();
      assert.equal(warnings().length, 2, 'the snooze is over and the credit is still low');
    } finally {
      notifications.dispose();
      await set('lowCredit.hours', undefined);
      await x.test.snoozeLowCredit(0);
    }
  });

  it('refuses a rent that would go over gpuRental.maxHourlySpend, and rents nothing', async () => {
    const x = await extensionApi();
    await set('maxHourlySpend', x.test.burnPerHour()! + 0.001);
    const count = (await mine()).length;
    const plan: RentPlan = { image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_proxy', label: `it-cap-${Date.now()}`, idleStopMinutes: 0 };
    const result = await vscode.commands.executeCommand('gpuRental.rentOffer', pool.pop()!.id, plan);
    assert.equal(result, undefined);
    assert.equal((await mine()).length, count, 'nothing rented');
    await set('maxHourlySpend', undefined);
  });

  it("puts the idle watchdog in front of the user's start-up script at rent", async () => {
    await set('idleStop.minutes', 45);
    const plan: RentPlan = {
      image: 'ubuntu:22.04',
      disk: 8,
      runtype: 'ssh_proxy',
      label: `it-idle-${Date.now()}`,
      onstart: 'echo my own script',
    };
    const rented = await vscode.commands.executeCommand<number>('gpuRental.rentOffer', pool.pop()!.id, plan);
    try {
      const onstart = (await show(rented))!.onstart!;
      assert.match(onstart, /^# >>> gpu-rental idle stop >>>/);
      assert.match(onstart, /N=2700 /, '45 minutes');
      assert.ok(onstart.includes(`U=${shellQuote(sim.url)} `), 'it calls back the service the extension uses');
      assert.ok(onstart.endsWith('\necho my own script'), "the user's script follows, unchanged");
      const off = await vscode.commands.executeCommand<number>('gpuRental.rentOffer', pool.pop()!.id, {
        ...plan,
        label: `${plan.label}-off`,
        idleStopMinutes: 0,
      });
      assert.equal(
        (await show(off))!.onstart,
        `${resumeHook()}echo my own script`,
        'turned off for one rent: the resume hook alone is added',
      );
      await api('DELETE', `/api/v0/instances/${off}/`, sim.key);
    } finally {
      await api('DELETE', `/api/v0/instances/${rented}/`, sim.key);
      await set('idleStop.minutes', undefined);
    }
  });

  it('a reload or reconnect never starts a stopped instance: the window explains and offers Start', async () => {
    const x = await extensionApi();
    // The idle countdown that stops an instance is tested in core (test/unit/idle/countdown.test.ts).
    await api('PUT', `/api/v0/instances/${id}/`, sim.key, { state: 'stopped' });
    await eventually(async () => (await show(id))!.actual_status === 'stopped', 'stopped', 20_000);
    await x.test.refreshInstances();
    // What a Remote-SSH window on this instance does when it loads or reconnects.
    assert.equal(await x.test.explainStopped(id), 'stopped');
    // And what every window does when it activates.
    await x.test.start();
    await vscode.commands.executeCommand('gpuRental.refresh');
    await x.test.checkIdle();
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal((await show(id))!.actual_status, 'stopped', 'still stopped');
  });

  it('flags a failed instance in the status bar until it is destroyed', async () => {
    const x = await extensionApi();
    const failed = await rentRunning(pool.pop()!);
    await control('POST', `instances/${failed}/status`, { status: 'exited' });
    await eventually(async () => {
      await x.test.refreshInstances();
      return /\$\(warning\) 1 failed/.test(x.test.statusBar().account.text);
    }, 'the failed flag');
    assert.match(x.test.statusBar().account.tooltip, /failed and still bills for disk until destroyed/);
    await vscode.commands.executeCommand('gpuRental.destroyInstance', failed);
    await x.test.refreshInstances();
    assert.doesNotMatch(x.test.statusBar().account.text, /failed/);
  });
});
