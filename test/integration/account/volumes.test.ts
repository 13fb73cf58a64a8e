import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Offer } from '../../../src/core/api/offers';
import { api, eventually, sim } from '../support';
import { confirmations, section } from './kit';

describe('account: volumes', function () {
  this.timeout(60_000);
  const c = confirmations();
  type Vol = { id: number; label?: string | null; disk_space?: number };
  const volumes = async () => ((await api('GET', '/api/v0/volumes/?owner=me', sim.key)) as { volumes: Vol[] }).volumes;

  it('creates a volume from a volume offer, lists it with size and cost, and deletes it after the confirmation', async () => {
    const offers = (
      (await api('POST', '/api/v0/volumes/search/', sim.key, { disk_space: { gte: 20 }, limit: 5 })) as { offers: Array<{ id: number }> }
    ).offers;
    const name = await vscode.commands.executeCommand<string>('gpuRental.createVolume', {
      offerId: offers[0]!.id,
      sizeGb: 20,
      name: 'it-volume',
    });
    assert.match(String(name), /^V\.\d+$/);
    const volume = (await volumes()).find((v) => v.label === 'it-volume');
    assert.ok(volume, 'created');
    const row = (await section('Volumes')).find((i) => i.label === 'it-volume');
    assert.match(String(row?.description), /^20 GB · \$\d+\.\d+\/h · /);

    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteVolume', volume.id), false);
    assert.match(c.asked[0]!, /Delete volume "it-volume"\?/);
    assert.ok(
      (await volumes()).some((v) => v.id === volume.id),
      'declined: kept',
    );
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteVolume', volume.id), true);
    assert.ok(!(await volumes()).some((v) => v.id === volume.id), 'deleted');
  });

  it('attaches a volume at rent: a new one made on the machine, then an existing one; the confirmation names it', async () => {
    type Row = Vol & { instances?: number[]; machine_id?: number };
    const body = { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 40, type: 'on-demand' };
    const gpuOffers = ((await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] }).offers;
    const volumeOffers = (
      (await api('POST', '/api/v0/volumes/search/', sim.key, { limit: 500 })) as { offers: Array<{ id: number; machine_id: number }> }
    ).offers;
    const [offer, volumeOffer] = gpuOffers.flatMap((o) =>
      volumeOffers.filter((v) => v.machine_id === o.machine_id).map((v) => [o, v] as const),
    )[0]!;
    const plan = {
      image: 'ubuntu:22.04',
      disk: 8,
      runtype: 'ssh_direct',
      label: `it-vol-${Date.now()}`,
      idleStopMinutes: 0,
      volume: { create_new: true, volume_id: volumeOffer.id, size: 12, mount_path: '/data' },
    };
    const first = await vscode.commands.executeCommand<number>('gpuRental.rentOffer', offer.id, plan);
    assert.ok(first, 'rented');
    assert.match(c.asked.join('\n'), /Rent /);
    const made = ((await volumes()) as Row[]).find((v) => v.instances?.includes(first));
    assert.ok(made, 'a new volume, mounted by the instance');
    assert.deepEqual([made.disk_space, made.machine_id], [12, offer.machine_id]);

    await api('DELETE', `/api/v0/instances/${first}/`, sim.key);
    await eventually(
      async () => ((await volumes()) as Row[]).find((v) => v.id === made.id)?.instances?.length === 0,
      'the volume to be free',
    );
    const second = await vscode.commands.executeCommand<number>('gpuRental.rentOffer', offer.id, {
      ...plan,
      label: `${plan.label}-2`,
      volume: { create_new: false, volume_id: made.id, mount_path: '/workspace' },
    });
    assert.ok(second, 'rented again');
    assert.ok(
      ((await volumes()) as Row[]).find((v) => v.id === made.id)?.instances?.includes(second),
      'the same volume, now on the second instance',
    );
    await api('DELETE', `/api/v0/instances/${second}/`, sim.key);
  });
});
