import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RentPlan } from '../../../src/core/rent/plan';
import { api, recordNotifications, rentableOffers, sim } from '../support';
import { confirmations, rented, section } from './kit';

type Key = { id: number; name: string | null };
const apiKeys = async () => ((await api('GET', '/api/v0/auth/apikeys/', sim.key)) as { apikeys: Key[] }).apikeys;
type Row = { id: number; label: string | null };
const show = async (id: number) =>
  ((await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: Row | null }).instances;

describe('account: API keys from the palette and the Account view', function () {
  this.timeout(60_000);
  const c = confirmations();

  it('creates a scoped read-only key, lists it with its scope, and a rent with it is refused naming the permission', async () => {
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-read-only',
      categories: ['instance_read', 'user_read', 'misc'],
    });
    assert.ok(created?.key);
    const row = (await section('API Keys')).find((i) => i.label === 'it-read-only');
    assert.ok(row, 'listed');
    assert.equal(row.description, 'read-only: instance_read, user_read, misc');

    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created.key), true);
    const [offer] = await rentableOffers({}, 1);
    const plan: RentPlan = { image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_proxy', label: 'it-read-only-rent', idleStopMinutes: 0 };
    const notifications = recordNotifications();
    try {
      assert.equal(await vscode.commands.executeCommand('gpuRental.rentOffer', offer!.id, plan), undefined, 'not rented');
      const refusal = notifications.seen.find((n) => n.level === 'error' && /lacks the "instance_write" permission/.test(n.message));
      assert.ok(refusal, `the refusal names the permission: ${JSON.stringify(notifications.seen)}`);
    } finally {
      notifications.dispose();
    }
    // The key in use is known (GPU Rental made it) and cannot be deleted from here.
    c.asked.length = 0;
    assert.match(String((await section('API Keys')).find((i) => i.label === 'it-read-only')?.description), /in use here/);
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteApiKey', created.id), false);
    assert.deepEqual(c.asked, [], 'refused before asking');
    assert.ok(
      (await apiKeys()).some((k) => k.id === created.id),
      'still there',
    );
  });

  it('a section the key may not read says which permission it lacks', async () => {
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-misc-only',
      categories: ['misc'],
    });
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created!.key), true);
    const [note] = await section('SSH Keys');
    assert.match(String(note?.label), /lacks 'user_read'/);
  });

  it('deletes (revokes) another key only after the confirmation', async () => {
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-to-delete',
      categories: ['misc'],
    });
    assert.ok(created);
    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteApiKey', created!.id), false);
    assert.match(c.asked[0]!, /Delete API key "it-to-delete"\?/);
    assert.ok(
      (await apiKeys()).some((k) => k.id === created!.id),
      'declined: kept',
    );
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteApiKey', created!.id), true);
    assert.ok(!(await apiKeys()).some((k) => k.id === created!.id), 'deleted');
  });

  it('a key held to one instance reaches that instance only', async () => {
    const mine = await rented();
    const other = await rented();
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-one-instance',
      categories: ['instance_read', 'instance_write'],
      instanceId: mine,
    });
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created!.key), true);
    try {
      const notifications = recordNotifications();
      try {
        assert.equal(await vscode.commands.executeCommand('gpuRental.destroyInstance', other), undefined);
        assert.ok(await show(other), 'the other instance is untouched');
        const refusal = notifications.seen.find((n) => n.level === 'error');
        assert.ok(refusal, `the refusal is shown: ${JSON.stringify(notifications.seen)}`);
        assert.match(refusal.message, new RegExp(`^GPU Rental: .*instance ${other}: this API key lacks`), 'refused as forbidden');
      } finally {
        notifications.dispose();
      }
      assert.equal(await vscode.commands.executeCommand('gpuRental.destroyInstance', mine), true);
      assert.equal(await show(mine), null, 'its own instance is reached');
    } finally {
      for (const id of [mine, other]) if (await show(id)) await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
    }
  });
});
