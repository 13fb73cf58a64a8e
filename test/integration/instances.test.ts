import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import type { InstanceItem } from '../../src/ui/views/instancesView';
import { always, api, control, eventually, extensionApi, signIn, sim } from './support';

type Record = { id: number; label: string | null; actual_status: string | null; intended_status: string };

async function show(id: number): Promise<Record | null> {
  const res = (await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: Record | null };
  return res.instances;
}

/** Rents through the simulator's API directly: these tests are about what comes after. */
async function rentedAndRunning(): Promise<number> {
  const body = { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 1, type: 'on-demand' };
  const [offer] = ((await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] }).offers;
  const created = (await api('PUT', `/api/v0/asks/${offer!.id}/`, sim.key, { client_id: 'me', image: 'ubuntu:22.04', disk: 8 })) as {
    new_contract: number;
  };
  await eventually(async () => (await show(created.new_contract))?.actual_status === 'running', 'the instance to run', 20_000);
  return created.new_contract;
}

async function item(id: number) {
  const x = await extensionApi();
  await x.test.refreshInstances();
  return (await x.test.instanceItems()).find((i): i is InstanceItem => 'instance' in i && i.instance.id === id);
}

describe('instances: lifecycle from the tree', () => {
  let id: number;
  before(async () => {
    await signIn();
    id = await rentedAndRunning();
  });
  beforeEach(async () => {
    const x = await signIn();
    x.test.answerPrompts(always(true));
  });
  afterEach(() => control('DELETE', 'faults'));

  it('shows a running instance with its price, icon and menu tags', async () => {
    const i = await item(id);
    assert.ok(i, 'listed');
    assert.match(String(i.description), /^running · \$\d+\.\d+\/h/);
    assert.equal((i.iconPath as vscode.ThemeIcon).id, 'vm-running');
    assert.match(i.contextValue!, /\+running\+canStop\+canReboot/);
    // The cost so far comes from the account's charges, read at most once a minute.
    await eventually(async () => /\$\d+\.\d+ so far/.test(String((await item(id))?.description)), 'the cost so far');
  });

  it('copies the SSH command of a running instance', async () => {
    const command = await vscode.commands.executeCommand<string>('gpuRental.copySshCommand', id);
    assert.match(command, /^ssh -p \d+ root@\S+$/);
    assert.equal(await vscode.env.clipboard.readText(), command);
  });

  it('labels an instance', async () => {
    await vscode.commands.executeCommand('gpuRental.labelInstance', id, 'training run');
    assert.equal((await show(id))?.label, 'training run');
    assert.equal((await item(id))?.label, 'training run');
  });

  it('stops, then starts only on the explicit command', async () => {
    await vscode.commands.executeCommand('gpuRental.stopInstance', await item(id));
    await eventually(async () => (await item(id))?.instance.actual_status === 'stopped', 'stopped', 20_000);
    const stopped = await item(id);
    assert.match(stopped!.contextValue!, /\+stopped\+canStart/);
    assert.match(String(stopped!.description), /\/h disk/);
    await vscode.commands.executeCommand('gpuRental.refresh');
    assert.equal((await show(id))?.actual_status, 'stopped', 'a refresh does not start it');
    await vscode.commands.executeCommand('gpuRental.startInstance', id);
    await eventually(async () => (await item(id))?.instance.actual_status === 'running', 'running again', 30_000);
  });

  // What Reboot and Destroy ask, and that declining does nothing: test/unit/instances/flows.test.ts.
  it('reboots, and the instance runs again', async () => {
    await vscode.commands.executeCommand('gpuRental.rebootInstance', id);
    // A boot takes 3 s in these suites, the first 40 % of it "rebooting".
    assert.notEqual((await show(id))?.actual_status, 'running', 'the service was asked to reboot it');
    await eventually(async () => (await item(id))?.instance.actual_status === 'running', 'running after the reboot', 30_000);
  });

  it('keeps the last list and says why when polling meets 429 and 5xx, then recovers', async () => {
    const x = await extensionApi();
    const failures = x.test.recordPollFailures();
    try {
      await control('POST', 'faults', [
        { kind: '429', path: '/api/v0/instances', count: 1 },
        { kind: 'server_error', status: 503, path: '/api/v0/instances', count: 1 },
      ]);
      await x.test.refreshInstances();
      await x.test.refreshInstances();
      assert.equal(failures.seen.length, 2);
      assert.ok(
        (await x.test.instanceItems()).some((i) => 'instance' in i && i.instance.id === id),
        'the last list is still shown',
      );
      await x.test.refreshInstances();
      assert.ok(await item(id));
    } finally {
      failures.dispose();
    }
  });

  it('marks a failed instance, stops polling for it, and offers destroy', async () => {
    await control('POST', `instances/${id}/status`, { status: 'exited' });
    const failed = await eventually(async () => {
      const i = await item(id);
      return i?.instance.actual_status === 'exited' ? i : undefined;
    }, 'the failure to show');
    assert.equal((failed.iconPath as vscode.ThemeIcon).id, 'error');
    assert.match(failed.contextValue!, /\+failed\+canDestroy/);
    assert.match(failed.markdownTooltip, /never recovers/);
  });

  it('destroys, and the row goes', async () => {
    await vscode.commands.executeCommand('gpuRental.destroyInstance', id);
    assert.equal(await show(id), null);
    assert.equal(await item(id), undefined);
  });
});
