import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import type { AccountViewItem } from '../../src/ui/views/account/accountView';
import { api, eventually, extensionApi, signIn, sim } from './support';

const isForbidden = (e: unknown) =>
  (e as { name?: string; kind?: string }).name === 'ApiError' && (e as { kind?: string }).kind === 'forbidden';
type Key = { id: number; name: string | null };
const apiKeys = async () => ((await api('GET', '/api/v0/auth/apikeys/', sim.key)) as { apikeys: Key[] }).apikeys;
const sshKeys = async () => JSON.stringify(await api('GET', '/api/v0/ssh/', sim.key));

async function section(label: string): Promise<AccountViewItem[]> {
  const x = await extensionApi();
  const top = await x.services.accountView.getChildren();
  const s = top.find((i) => i.label === label);
  assert.ok(s, `section ${label}`);
  return x.services.accountView.getChildren(s);
}

async function rented(): Promise<number> {
  const body = { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 30, type: 'on-demand' };
  const offers = ((await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] }).offers;
  const offer = offers[Math.floor(Math.random() * offers.length)]!;
  return (
    (await api('PUT', `/api/v0/asks/${offer.id}/`, sim.key, { client_id: 'me', image: 'ubuntu:22.04', disk: 8 })) as {
      new_contract: number;
    }
  ).new_contract;
}

/** Signs in with the full key and answers confirmations with `answer`. */
async function answering(answer: (message: string) => boolean): Promise<void> {
  const x = await signIn();
  x.services.prompts = { confirm: async (m) => answer(m) };
}

/** The confirmations a suite's commands ask, answered with `c.answer` (true unless a test says otherwise). */
function confirmations() {
  const c = { asked: [] as string[], answer: true };
  beforeEach(async () => {
    c.asked.length = 0;
    c.answer = true;
    await answering((m) => (c.asked.push(m), c.answer));
  });
  return c;
}

describe('account: API keys and SSH keys from the palette and the Account view', function () {
  this.timeout(60_000);
  const c = confirmations();
  after(signIn);

  it('creates a scoped read-only key, lists it with its scope, and a rent with it is refused naming the permission', async () => {
    const x = await extensionApi();
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-read-only',
      categories: ['instance_read', 'user_read', 'misc'],
    });
    assert.ok(created?.key);
    const row = (await section('API Keys')).find((i) => i.label === 'it-read-only');
    assert.ok(row, 'listed');
    assert.equal(row.description, 'read-only: instance_read, user_read, misc');

    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created.key), true);
    const [offer] = await x.services.session.client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
      limit: 1,
    });
    await assert.rejects(x.services.session.client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 }), (e: unknown) => {
      // The suites are bundled apart from the extension: its ApiError is another class here.
      assert.ok(isForbidden(e) && /lacks the "instance_write" permission/.test((e as Error).message), String(e));
      return true;
    });
    // The key in use is known (GPU Rental made it) and cannot be deleted from here.
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
    const x = await extensionApi();
    const mine = await rented();
    const other = await rented();
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-one-instance',
      categories: ['instance_read', 'instance_write'],
      instanceId: mine,
    });
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created!.key), true);
    assert.equal((await x.services.session.client.instances.show(mine)).id, mine);
    await assert.rejects(x.services.session.client.instances.destroy(other), isForbidden);
    await signIn();
    await api('DELETE', `/api/v0/instances/${mine}/`, sim.key);
    await api('DELETE', `/api/v0/instances/${other}/`, sim.key);
  });

  it('adds an SSH key (from a .pub), attaches it to an instance, detaches and deletes it, each confirmed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-keys-it-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'it-added', '-f', join(dir, 'k')]);
    const publicKey = readFileSync(join(dir, 'k.pub'), 'utf8').trim();
    const body = publicKey.split(' ')[1]!;
    const added = await vscode.commands.executeCommand<{ id: number }>('gpuRental.addSshKey', publicKey);
    assert.ok((await sshKeys()).includes(body), 'on the account');
    assert.ok(
      (await section('SSH Keys')).some((i) => i.label === 'it-added'),
      'in the view',
    );
    assert.equal(
      (await vscode.commands.executeCommand<{ id: number }>('gpuRental.addSshKey', publicKey))?.id,
      added!.id,
      'not added twice',
    );
    await assert.doesNotReject(async () => {
      const refused = await vscode.commands.executeCommand('gpuRental.addSshKey', readFileSync(join(dir, 'k'), 'utf8'));
      assert.equal(refused, undefined, 'a private key is refused');
    });

    const id = await rented();
    assert.equal(await vscode.commands.executeCommand('gpuRental.attachSshKey', id, added!.id), true);
    const onInstance = async () => JSON.stringify(await api('GET', `/api/v0/instances/${id}/ssh/`, sim.key));
    assert.ok((await onInstance()).includes(body), 'attached');
    const attached = ((await api('GET', `/api/v0/instances/${id}/ssh/`, sim.key)) as { ssh_keys: string }).ssh_keys;
    const instanceKeyId = (JSON.parse(attached) as Array<{ id: number; public_key?: string; ssh_key?: string }>).find((k) =>
      (k.public_key ?? k.ssh_key ?? '').includes(body),
    )!.id;
    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.detachSshKey', id, instanceKeyId), false);
    assert.ok((await onInstance()).includes(body), 'declined: still attached');
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.detachSshKey', id, instanceKeyId), true);
    await eventually(async () => !(await onInstance()).includes(body), 'detached');

    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteSshKey', added!.id), false);
    assert.ok((await sshKeys()).includes(body));
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteSshKey', added!.id), true);
    assert.ok(!(await sshKeys()).includes(body), 'deleted');
    await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
  });
});

describe('account: billing', function () {
  this.timeout(60_000);
  beforeEach(signIn);
  after(signIn);

  it('shows charges and credits with totals in the Account view and as a readable report', async () => {
    const id = await rented();
    await eventually(
      async () =>
        ((await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: { actual_status: string | null } }).instances
          .actual_status === 'running',
      'running',
      20_000,
    );
    await new Promise((r) => setTimeout(r, 1_500));
    const rows = await section('Billing');
    assert.match(String(rows[0]?.label), /^Charges, last 30 days: \$\d+\.\d+/);
    assert.ok(
      rows.some((r) => String(r.label).includes(`instance-${id}`)),
      'the instance has a line',
    );
    assert.match(String(rows.find((r) => String(r.label).startsWith('Credits'))?.label), /Credits and payments: \$[\d,]+\.\d\d/);

    const report = await vscode.commands.executeCommand<string>('gpuRental.showBilling');
    assert.match(report, /^# GPU Rental billing, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d/);
    assert.match(report, new RegExp(`\\| instance-${id} \\| \\d+ \\| \\$`));
    assert.match(report, /\| \*\*Total\*\* \| \d+ \| \*\*\$/);
    assert.equal(vscode.window.activeTextEditor?.document.languageId, 'markdown');
    assert.equal(vscode.window.activeTextEditor?.document.isUntitled, true, 'nothing written to disk');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
  });

  it('a key without billing_read sees why', async () => {
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-no-billing',
      categories: ['user_read'],
    });
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created!.key), true);
    const [note] = await section('Billing');
    assert.match(String(note?.label), /lacks 'billing_read'/);
  });
});

describe('account: team', function () {
  this.timeout(60_000);
  const c = confirmations();
  after(signIn);

  type Member = { id: number; email: string | null; roles?: string[] };
  const members = async () => (await api('GET', '/api/v0/team/members/', sim.key)) as { members?: Member[] } | Member[];
  const list = async (): Promise<Member[]> => {
    const m = await members();
    return Array.isArray(m) ? m : (m.members ?? []);
  };

  it('creates a role from categories, edits it, invites a member with it, and removes the member after the confirmation', async () => {
    assert.equal(await vscode.commands.executeCommand('gpuRental.saveTeamRole', 'it-viewers', ['instance_read', 'billing_read']), true);
    let role = (await section('Team')).find((i) => i.label === 'it-viewers');
    assert.equal(role?.description, 'role · instance_read, billing_read');
    assert.equal(await vscode.commands.executeCommand('gpuRental.saveTeamRole', 'it-viewers', ['instance_read']), true);
    role = (await section('Team')).find((i) => i.label === 'it-viewers');
    assert.equal(role?.description, 'role · instance_read', 'updated in place');

    assert.equal(await vscode.commands.executeCommand('gpuRental.inviteTeamMember', 'ada@example.test', 'it-viewers'), true);
    const ada = (await list()).find((m) => m.email === 'ada@example.test');
    assert.ok(ada, 'a member');
    assert.ok((await section('Team')).some((i) => i.label === 'ada@example.test' && String(i.description).includes('it-viewers')));

    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.removeTeamMember', ada.id), false);
    assert.match(c.asked[0]!, /Remove ada@example\.test from the team\?/);
    assert.ok(
      (await list()).some((m) => m.id === ada.id),
      'declined: still a member',
    );
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.removeTeamMember', ada.id), true);
    assert.ok(!(await list()).some((m) => m.id === ada.id), 'removed');
  });

  it('deletes a role after a confirmation naming who holds it; declined keeps it; owner is refused', async () => {
    assert.equal(await vscode.commands.executeCommand('gpuRental.saveTeamRole', 'it-temp', ['instance_read']), true);
    assert.equal(await vscode.commands.executeCommand('gpuRental.inviteTeamMember', 'bob@example.test', 'it-temp'), true);
    const roleNames = async () => (await section('Team')).filter((i) => String(i.description).startsWith('role')).map((i) => i.label);
    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteTeamRole', 'it-temp'), false);
    assert.match(c.asked[0]!, /Delete the team role "it-temp"\?/);
    assert.ok((await roleNames()).includes('it-temp'), 'declined: still there');
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteTeamRole', 'it-temp'), true);
    assert.ok(!(await roleNames()).includes('it-temp'), 'deleted');
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteTeamRole', 'owner'), false);
    assert.equal(c.asked.length, 2, 'owner refused before asking');
  });

  it('a key without team permissions sees why, not an empty list', async () => {
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-no-team',
      categories: ['user_read'],
    });
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created!.key), true);
    const [note] = await section('Team');
    assert.match(String(note?.label), /lacks 'team_read'/);
    // The same key, in the other sections it may not read, and from the palette.
    assert.match(String((await section('Serverless'))[0]?.label), /lacks 'misc'/);
    assert.match(String((await section('Volumes'))[0]?.label), /lacks 'instance_read'/);
    assert.equal(
      await vscode.commands.executeCommand('gpuRental.showServerlessLogs', 1),
      undefined,
      'refused, with the message naming the permission',
    );
  });
});

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
    await x.services.poller.refresh();

    const saved = await vscode.commands.executeCommand<Tpl>('gpuRental.saveAsTemplate', source, 'it-template');
    const stored = (await templates()).find((t) => t.id === saved.id)!;
    assert.equal(stored.image, 'pytorch/pytorch');
    assert.equal(stored.onstart, 'echo mine', 'the watchdog is not part of the template');
    assert.equal(stored.recommended_disk_space, 24);
    assert.ok((await section('Templates')).some((i) => i.label === 'it-template'));

    await x.services.context.globalState.update('gpuRental.recentTemplates', [saved.hash_id, 'other']);
    const newHash = await vscode.commands.executeCommand<string>('gpuRental.editTemplate', saved.hash_id, { recommended_disk_space: 32 });
    assert.ok(newHash && newHash !== saved.hash_id, 'a new hash');
    assert.deepEqual(x.services.context.globalState.get('gpuRental.recentTemplates'), [newHash, 'other'], 'the stored reference follows');
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

describe('account: serverless', function () {
  this.timeout(60_000);
  const c = confirmations();
  type Ep = { id: number; endpoint_name: string; max_workers?: number; target_util?: number };
  type Wg = { id: number; endpoint_id?: number; max_workers?: number };
  const endpoints = async () => ((await api('GET', '/api/v0/endptjobs/', sim.key)) as { results: Ep[] }).results;
  const groups = async () => ((await api('GET', '/api/v0/workergroups/', sim.key)) as { results: Wg[] }).results;

  it('creates an endpoint and a worker group, updates their autoscaling, and deletes both after confirmations', async () => {
    const x = await extensionApi();
    const id = await vscode.commands.executeCommand<number>('gpuRental.createEndpoint', {
      endpoint_name: 'it-endpoint',
      max_workers: 3,
      cold_workers: 0,
      target_util: 0.9,
      min_load: 1,
      cold_mult: 2.5,
    });
    assert.ok((await endpoints()).some((e) => e.id === id));
    assert.equal(await vscode.commands.executeCommand('gpuRental.updateEndpoint', id, { max_workers: 5, target_util: 0.75 }), true);
    const ep = (await endpoints()).find((e) => e.id === id)!;
    assert.deepEqual([ep.max_workers, ep.target_util], [5, 0.75]);

    const template = ((await api('GET', '/api/v0/template/', sim.key)) as { templates: Array<{ hash_id: string }> }).templates[0]!.hash_id;
    const group = await vscode.commands.executeCommand<number>('gpuRental.createWorkerGroup', id, {
      template_hash: template,
      search_params: 'gpu_ram>=24',
      test_workers: 1,
      cold_workers: 0,
      max_workers: 2,
    });
    assert.ok((await groups()).some((g) => g.id === group && g.endpoint_id === id));
    assert.equal(await vscode.commands.executeCommand('gpuRental.updateWorkerGroup', group, { max_workers: 4 }), true);
    assert.equal((await groups()).find((g) => g.id === group)?.max_workers, 4);

    const rows = await section('Serverless');
    const row = rows.find((r) => r.label === 'it-endpoint');
    assert.match(String(row?.description), /workers 0-5 · target 75 % · 1 group/);
    const children = await x.services.accountView.getChildren(row);
    assert.equal(children[0]?.label, 'Workers');
    assert.match(String(children[1]?.description), /workers 0-4/);

    // Workers: the group keeps max(cold, test) = 1, loading at first, idle a few seconds later.
    const workerRows = await x.services.accountView.getChildren(children[0]);
    assert.equal(workerRows.length, 1);
    assert.match(String(workerRows[0]?.label), /^worker #\d+$/);
    assert.match(String(workerRows[0]?.description), /^(loading|idle) · load 0/);
    const viaGroup = await x.services.accountView.getChildren(children[1]);
    assert.equal(viaGroup[0]?.label, workerRows[0]?.label, 'the same worker under its group');
    const workers = await vscode.commands.executeCommand<Array<{ id: number; status: string }>>('gpuRental.showServerlessWorkers', id);
    assert.equal(workers?.length, 1);
    const log = await vscode.commands.executeCommand<string>('gpuRental.showServerlessLogs', id);
    assert.match(String(log), /worker group \d+ created[\s\S]*worker \d+ loading[\s\S]*updated max_workers=4/);
    assert.match(
      vscode.window.activeTextEditor?.document.getText() ?? '',
      /^# endpoint "it-endpoint": the last 1000 lines/,
      'opened in an editor',
    );
    const groupLog = await vscode.commands.executeCommand<string>('gpuRental.showServerlessLogs', { group }, 1);
    assert.equal(String(groupLog).split('\n').length, 1, 'tail 1');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteWorkerGroup', group), false);
    assert.ok(
      (await groups()).some((g) => g.id === group),
      'declined: kept',
    );
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteWorkerGroup', group), true);
    assert.ok(!(await groups()).some((g) => g.id === group));
    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteEndpoint', id), false);
    assert.match(c.asked.join('\n'), /Delete endpoint "it-endpoint"\?/);
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteEndpoint', id), true);
    assert.ok(!(await endpoints()).some((e) => e.id === id));
  });
});
