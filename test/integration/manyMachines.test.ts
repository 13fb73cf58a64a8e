import * as assert from 'node:assert/strict';
import type { InstanceItem } from '../../src/ui/views/instancesView';
import * as vscode from 'vscode';
import { always, api, control, eventually, extensionApi, instanceStatus, recordNotifications, rentByApi, signIn, sim } from './support';

const LABELS = ['many-a', 'many-b', 'many-c'];

/** The rows of the given instances, as the view shows them now (in the given order). */
async function rows(ids: readonly number[]): Promise<InstanceItem[]> {
  const x = await extensionApi();
  await x.test.refreshInstances();
  const all = (await x.test.instanceItems()).filter((i): i is InstanceItem => 'instance' in i);
  return ids.map((id) => {
    const row = all.find((i) => i.instance.id === id);
    assert.ok(row, `#${id} is listed`);
    return row;
  });
}

// What the one confirmation lists, what Start leaves alone, the summaries and a declined
// confirmation are decided in core: test/unit/instances/bulk.test.ts. These prove the wiring.
describe('many machines: several instances at once', () => {
  const ids: number[] = [];
  let restore: (() => void) | undefined;
  before(async function () {
    this.timeout(90_000);
    const x = await signIn();
    restore = x.test.answerPrompts(always(true));
    for (const label of LABELS) ids.push(await rentByApi({ label }));
    await eventually(
      async () => (await Promise.all(ids.map(instanceStatus))).every((s) => s === 'running'),
      'three instances to run',
      40_000,
    );
  });
  after(async () => {
    restore?.();
    // Whatever a failed test left: nothing of this suite keeps billing.
    for (const id of ids) {
      const status = await instanceStatus(id);
      if (status && status !== 'destroyed') await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
    }
  });

  it('badges the view with the running instances and shows the total per hour', async () => {
    const x = await extensionApi();
    await eventually(async () => {
      await x.test.refreshInstances();
      const running = x.test.instances().filter((i) => i.actual_status === 'running' && i.intended_status === 'running').length;
      const header = x.test.instancesHeader();
      return running >= 3 && header.badge === running && header.badgeTooltip === `${running} running instances`;
    }, 'the badge to count the running instances');
    const burn = x.test.burnPerHour();
    assert.ok(burn && burn > 0);
    // The same total as the account status bar's.
    assert.equal(x.test.instancesHeader().description, `${burn >= 1 ? `$${burn.toFixed(2)}` : `$${burn.toFixed(3)}`}/h`);
    assert.ok(x.test.statusBar().account.text.includes(x.test.instancesHeader().description!));
  });

  it('shows health in the row and reads rows and the account item aloud', async () => {
    const x = await extensionApi();
    const [a] = await rows(ids);
    assert.match(String(a!.description), /GPU \d+% · \d+°C/);
    assert.match(a!.markdownTooltip, /\| GPU temperature \| \d+ °C/);
    assert.match(
      a!.accessibilityInformation!.label,
      /^.+ instance many-a, running, (\d+ cents|\$\d+\.\d\d) per hour, GPU \d+ percent, \d+ degrees Celsius/,
    );
    const offer = (await x.test.offerItems()).find((i) => 'offer' in i);
    assert.ok(offer, 'an offer row');
    assert.match(offer.accessibilityInformation!.label, /^.+ offer, (\d+(\.\d)? (cents?|of a cent)|\$\d+\.\d\d) per hour, \d+ GB of VRAM/);
    assert.match(x.test.statusBar().account.spoken!, /^GPU Rental account: \$[\d.]+ (credit|balance), spending \$[\d.]+ per hour\./);
  });

  it('stops two of a selection, then starts them, and leaves the unselected one alone', async () => {
    const two = await rows(ids.slice(0, 2));
    await vscode.commands.executeCommand('gpuRental.stopInstance', two[1], two);
    await eventually(
      async () => (await Promise.all(ids.slice(0, 2).map(instanceStatus))).every((s) => s === 'stopped'),
      'both stopped',
      30_000,
    );
    assert.equal(await instanceStatus(ids[2]!), 'running', 'the unselected one runs on');

    const stopped = await rows(ids.slice(0, 2));
    const third = (await rows([ids[2]!]))[0]!;
    // The selection includes a running instance: Start leaves it alone.
    await vscode.commands.executeCommand('gpuRental.startInstance', stopped[0], [...stopped, third]);
    await eventually(async () => (await Promise.all(ids.map(instanceStatus))).every((s) => s === 'running'), 'all running', 40_000);
  });

  it('destroys three of a selection, then says so once', async () => {
    const x = await extensionApi();
    const notes = recordNotifications();
    try {
      const three = await rows(ids);
      await vscode.commands.executeCommand('gpuRental.destroyInstance', three[0], three);
      await eventually(async () => (await Promise.all(ids.map(instanceStatus))).every((s) => !s || s === 'destroyed'), 'all three gone');
      assert.deepEqual(
        notes.seen.filter((n) => /destroyed/.test(n.message)),
        [{ level: 'info', message: 'GPU Rental: 3 destroyed.' }],
      );
      await x.test.refreshInstances();
      assert.ok(!x.test.instances().some((i) => ids.includes(i.id) && i.actual_status !== 'destroyed'));
      const running = x.test.instances().filter((i) => i.actual_status === 'running' && i.intended_status === 'running').length;
      assert.equal(x.test.instancesHeader().badge, running || undefined);
    } finally {
      notes.dispose();
    }
  });

  it('says which stop is unknown when its answer and a second look are both lost, and stops the other', async () => {
    const [d, e] = [await rentByApi({ label: 'many-d' }), await rentByApi({ label: 'many-e' })];
    ids.push(d, e);
    await eventually(async () => (await Promise.all([d, e].map(instanceStatus))).every((s) => s === 'running'), 'two to run', 30_000);
    const notes = recordNotifications();
    try {
      // The stop of e is carried out but every answer is lost, and so is every look at e afterwards.
      // Unlimited (count 0) until the finally clears them: however often the client retries.
      await control('POST', 'faults', [
        { kind: 'reset', method: 'PUT', path: `/api/v0/instances/${e}`, phase: 'after', count: 0 },
        { kind: 'server_error', status: 500, method: 'GET', path: `/api/v0/instances/${e}`, count: 0 },
      ]);
      const items = await rows([d, e]);
      await vscode.commands.executeCommand('gpuRental.stopInstance', items[0], items);
      const summary = notes.seen.filter((n) => /stopping|unknown/.test(n.message));
      assert.equal(summary.length, 1, 'one summary');
      assert.equal(summary[0]!.level, 'warning', summary[0]!.message);
      assert.match(
        summary[0]!.message,
        /^GPU Rental: 1 stopping; 1 unknown \("many-[a-e]" \(.+, #\d+\): neither the answer nor a second look came back, so it may still bill\)\./,
      );
      assert.match(summary[0]!.message, /Refresh the Instances view to see what really happened/);
      await eventually(async () => (await instanceStatus(d)) === 'stopped', 'the other to stop', 30_000);
    } finally {
      await control('DELETE', 'faults');
      notes.dispose();
    }
  });
});
