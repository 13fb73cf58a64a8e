import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../../src/core/api/offers';
import { api, extensionApi, sim } from '../support';
import { confirmations, section } from './kit';

describe('account: templates', function () {
  this.timeout(60_000);
  const c = confirmations();

  type Tpl = { id: number; hash_id: string; name: string; onstart?: string | null; recommended_disk_space?: number | null; image?: string };
  const templates = async () => ((await api('GET', '/api/v0/template/', sim.key)) as { templates: Tpl[] }).templates;

  it("saves a rent's settings as a template (without the watchdog), edits it (the hash changes and references follow), rents with it, and deletes it after the confirmation", async () => {
    const x = await extensionApi();
    const body = { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 40, type: 'on-demand' };
    const offers = ((await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] }).offers;
    const plan = {
      image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel',
      disk: 24,
      runtype: 'ssh_direct',
      label: `it-tpl-${Date.now()}`,
      onstart: 'echo mine',
    };
    const source = await vscode.commands.executeCommand<number>('gpuRental.rentOffer', offers.at(-1)!.id, plan);
    assert.ok(source, 'rented');
    await x.test.refreshInstances();

    const saved = await vscode.commands.executeCommand<Tpl>('gpuRental.saveAsTemplate', source, 'it-template');
    const stored = (await templates()).find((t) => t.id === saved.id)!;
    assert.equal(stored.image, 'pytorch/pytorch');
    assert.equal(stored.onstart, 'echo mine', 'the watchdog is not part of the template');
    assert.equal(stored.recommended_disk_space, 24);
    assert.ok((await section('Templates')).some((i) => i.label === 'it-template'));

    await x.test.store('recentTemplates', [saved.hash_id, 'other']);
    const newHash = await vscode.commands.executeCommand<string>('gpuRental.editTemplate', saved.hash_id, { recommended_disk_space: 32 });
    assert.ok(newHash && newHash !== saved.hash_id, 'a new hash');
    assert.deepEqual(x.test.stored('recentTemplates'), [newHash, 'other'], 'the stored reference follows');
    assert.equal((await templates()).find((t) => t.id === saved.id)?.recommended_disk_space, 32);

    const rented = await vscode.commands.executeCommand<number>('gpuRental.rentOffer', offers.at(-2)!.id, {
      template: newHash,
      disk: 32,
      runtype: 'ssh_proxy',
      label: `${plan.label}-from-template`,
      idleStopMinutes: 0,
    });
    const inst = (
      (await api('GET', `/api/v0/instances/${rented}/?owner=me`, sim.key)) as {
        instances: { template_hash_id?: string; image_uuid?: string };
      }
    ).instances;
    assert.equal(inst.template_hash_id, newHash);

    c.answer = false;
    c.asked.length = 0;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteTemplate', saved.id), false);
    assert.match(c.asked[0]!, /Delete template "it-template"\?/);
    assert.ok(
      (await templates()).some((t) => t.id === saved.id),
      'declined: kept',
    );
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteTemplate', saved.id), true);
    assert.ok(!(await templates()).some((t) => t.id === saved.id), 'deleted');
    for (const id of [source, rented]) await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
  });
});
