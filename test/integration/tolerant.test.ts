import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { InstanceItem, InstancesViewItem } from '../../src/ui/views/instancesView';
import { api, control, eventually, extensionApi, extensionLog, rentByApi, signIn, sim } from './support';

const rent = () => rentByApi({ label: 'tolerant' });

async function shown(id: number): Promise<{ id: number } | null> {
  return ((await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: { id: number } | null }).instances;
}

/** What the Instances view shows after a fresh poll. */
async function rows(): Promise<InstancesViewItem[]> {
  const x = await extensionApi();
  await x.test.refreshInstances();
  return x.test.instanceItems();
}

const instanceRows = (all: InstancesViewItem[]) => all.filter((r): r is InstanceItem => 'instance' in r);
const warningRow = (all: InstancesViewItem[]) => all.find((r) => !('instance' in r));

describe('tolerant lists: the Instances view when the service sends an odd record', () => {
  const ids: number[] = [];
  before(async () => {
    await signIn();
    // Each rent takes the cheapest free offer, so three rents are three instances.
    for (let i = 0; i < 3; i++) ids.push(await rent());
  });
  beforeEach(() => signIn());
  afterEach(() => control('DELETE', 'corrupt'));
  after(async () => {
    for (const id of ids) if (await shown(id)) await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
  });

  it('odd field values in one record: every instance is shown, those fields are unknown, no warning row', async () => {
    const [a, b, c] = ids as [number, number, number];
    await control('POST', 'corrupt', { instance_id: b, fields: { ssh_port: '22', gpu_util: 'N/A', num_gpus: '2', label: 42, ports: 'x' } });
    const all = await rows();
    const listed = instanceRows(all);
    for (const id of [a, b, c])
      assert.ok(
        listed.some((r) => r.instance.id === id),
        `instance ${id} is listed`,
      );
    const odd = listed.find((r) => r.instance.id === b)!.instance;
    assert.equal(odd.ssh_port, 22);
    assert.equal(odd.num_gpus, 2);
    assert.equal(odd.gpu_util, undefined);
    assert.equal(odd.label, undefined);
    assert.equal(odd.ports, undefined);
    assert.equal(listed.find((r) => r.instance.id === a)!.instance.label, 'tolerant', 'the others are intact');
    assert.equal(warningRow(all), undefined);
  });

  it('a record without a usable id is counted in a warning row that opens the log; the others are shown', async () => {
    const [a, b, c] = ids as [number, number, number];
    await control('POST', 'corrupt', { instance_id: c, record: 'not a record' });
    const all = await rows();
    assert.deepEqual(
      instanceRows(all)
        .map((r) => r.instance.id)
        .filter((id) => ids.includes(id)),
      [a, b],
    );
    const row = warningRow(all)!;
    assert.ok(row, 'a warning row');
    assert.equal(row.label, '1 record could not be read');
    assert.equal((row.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.equal(row.command?.command, 'gpuRental.showLogs');
    assert.match(String(row.tooltip), /string instead of an object/);
    await eventually(async () => /list instances: 1 record could not be read/.test(await extensionLog()), 'the warning in the log');
    await control('DELETE', 'corrupt');
    assert.equal(warningRow(await rows()), undefined, 'the row goes once the list reads whole again');
  });

  it('a record whose status cannot be read is listed by id only, and Destroy works on it', async () => {
    const b = ids[1]!;
    await control('POST', 'corrupt', { instance_id: b, fields: { actual_status: { state: 'odd' } } });
    const all = await rows();
    const item = instanceRows(all).find((r) => r.instance.id === b)!;
    assert.ok(item, 'listed by id');
    assert.equal(item.label, `#${b} (details unreadable)`);
    assert.match(item.contextValue!, /(^|\+)canDestroy(\+|$)/);
    assert.doesNotMatch(item.contextValue!, /canStop|canStart|canConnect/);
    assert.equal(warningRow(all)?.label, '1 record could not be read');
    let asked = '';
    const x = await extensionApi();
    x.test.answerPrompts({ confirm: async (message) => ((asked = message), true) });
    await vscode.commands.executeCommand('gpuRental.destroyInstance', item);
    assert.match(asked, new RegExp(`^Destroy .*#${b}\\?`));
    assert.equal(await shown(b), null, 'destroyed on the service');
    assert.ok(!instanceRows(await rows()).some((r) => r.instance.id === b), 'gone from the view');
  });
});
