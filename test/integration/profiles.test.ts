import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { RemoteHandoff } from '../../src/ui/host/remote';
import { api, control, eventually, extensionApi, rentableOffers, signIn, sim } from './support';

const run = promisify(execFile);
type Row = { id: number; actual_status: string | null };
/** The SSH config the run's home has (Remote-SSH's configFile is not set). */
const SSH_DIR = join(process.env.GPU_RENTAL_TEST_HOME!, '.ssh');

/** Rents the cheapest free offer with a direct port, as another client of the account would. */
async function rentAs(key: string): Promise<number> {
  const [offer] = await rentableOffers({ direct_port_count: { gte: 1 } }, 1, key);
  return (
    (await api('PUT', `/api/v0/asks/${offer!.id}/`, key, { client_id: 'me', image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_direct' })) as {
      new_contract: number;
    }
  ).new_contract;
}

const idsOf = async (key: string) =>
  ((await api('GET', '/api/v0/instances/?owner=me', key)) as { instances: Row[] }).instances.map((i) => i.id);

describe('profiles: two accounts side by side, switched from the palette', function () {
  this.timeout(90_000);
  let second: { id: number; key: string };
  let secondInstance: number;
  const asked: Array<{ message: string; detail: string }> = [];
  let answer = true;

  before(async () => {
    const x = await signIn();
    x.test.answerPrompts({ confirm: async (message, detail) => (asked.push({ message, detail }), answer) });
    second = (await control('POST', 'accounts', { email: 'second@example.com', credit: 42 })) as { id: number; key: string };
    secondInstance = await rentAs(second.key);
    await rentAs(sim.key); // the default account has one of its own, whatever earlier suites left
  });
  beforeEach(() => {
    asked.length = 0;
    answer = true;
  });
  // The next suite's reset removes the profile if a test failed before doing so.
  after(() => api('DELETE', `/api/v0/instances/${secondInstance}/`, second.key).catch(() => undefined));

  it("adds a profile with its own key; the status bar names it, and the views show only that account's instances", async () => {
    const x = await extensionApi();
    const id = await vscode.commands.executeCommand<string>('gpuRental.addProfile', {
      name: 'Second',
      baseUrl: sim.url,
      apiKey: second.key,
    });
    assert.equal(id, 'second');
    const session = x.test.session();
    assert.equal(session.profileId, 'second');
    assert.ok(session.state === 'ready' && session.user?.email === 'second@example.com', JSON.stringify(session));
    assert.match(x.test.statusBar().account.text, /^\$\(account\) Second · \$42\.00/);

    await x.test.refreshInstances();
    const shown = x.test.instances().map((i) => i.id);
    assert.deepEqual(shown, await idsOf(second.key));
    assert.ok(shown.includes(secondInstance));
    for (const other of await idsOf(sim.key)) assert.ok(!shown.includes(other), `the default account's #${other} is not shown`);
  });

  it("connects under the profile's own SSH alias; switching back keeps that entry and shows the default account again", async () => {
    const x = await extensionApi();
    const calls: string[] = [];
    const handoff: RemoteHandoff = {
      installedIds: () => new Set(vscode.extensions.all.map((e) => e.id.toLowerCase())),
      openFolder: async (uri) => void calls.push(uri.toString(true)),
      openEmptyWindow: async (authority) => void calls.push(authority),
      installExtension: async () => undefined,
    };
    x.test.observeHandoff(handoff);
    await eventually(
      async () =>
        ((await api('GET', `/api/v0/instances/${secondInstance}/?owner=me`, second.key)) as { instances: Row }).instances.actual_status ===
        'running',
      'the instance to run',
      20_000,
    );

    assert.equal(await vscode.commands.executeCommand('gpuRental.connect', secondInstance), 'opened');
    const alias = `gpu-rental-second-${secondInstance}`;
    assert.deepEqual(calls, [`vscode-remote://ssh-remote+${alias}/root`]);
    const hostFile = join(SSH_DIR, 'gpu-rental', `${alias}.conf`);
    await stat(hostFile);
    await run('ssh', ['-F', join(SSH_DIR, 'config'), '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', alias, 'true']);

    assert.equal(await vscode.commands.executeCommand('gpuRental.switchProfile', 'default'), 'default');
    const session = x.test.session();
    assert.ok(session.state === 'ready' && session.user?.id !== second.id, 'the default account');
    assert.match(x.test.statusBar().account.text, /^\$\(account\) Default · \$/);
    await x.test.refreshInstances();
    await x.test.refreshInstances();
    assert.ok(!x.test.instances().some((i) => i.id === secondInstance), "the other account's instance is not listed");
    // It vanished from the list only because another account is shown: its entry stays.
    await new Promise((r) => setTimeout(r, 300));
    await stat(hostFile);
    assert.equal(x.test.sshAlias(secondInstance), `gpu-rental-${secondInstance}`, 'the default profile keeps the plain aliases');
  });

  it('refuses to switch accounts while a rent is on its way, so a lost answer is looked for in the right account', async () => {
    const x = await extensionApi();
    await x.test.switchProfile('second');
    const [offer] = await rentableOffers({}, 1, second.key);
    await control('POST', 'faults', { kind: 'latency', ms: 1500, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    try {
      const renting = vscode.commands.executeCommand<number>('gpuRental.rentOffer', offer!.id, {
        image: 'ubuntu:22.04',
        disk: 8,
        runtype: 'ssh_proxy',
        label: `it-profile-rent-${Date.now()}`,
        idleStopMinutes: 0,
      });
      await eventually(() => x.test.rents().inProgress, 'the rent to be sent');
      await assert.rejects(x.test.switchProfile('default'), /A rent is in progress/);
      assert.equal(x.test.session().profileId, 'second');
      const id = await renting;
      assert.ok(id && (await idsOf(second.key)).includes(id), 'rented on the account it was sent to');
      await api('DELETE', `/api/v0/instances/${id}/`, second.key);
    } finally {
      await control('DELETE', 'faults');
    }
    await x.test.switchProfile('default');
  });

  it('removing a profile says what its account still runs; declined keeps it, accepted removes it and its key', async () => {
    const x = await extensionApi();
    answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.removeProfile', 'second'), false);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.message, /Remove the profile "Second"\?/);
    assert.match(asked[0]!.detail, /1 instance \(\$[\d.]+\/h now\)\. It keeps running and billing/);
    assert.ok(x.test.session().profileIds.includes('second'), 'still there');

    await x.test.switchProfile('second');
    answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.removeProfile', 'second'), true);
    assert.match(asked[1]!.detail, /This window switches to the default profile/);
    assert.ok(!x.test.session().profileIds.includes('second'));
    assert.equal(x.test.session().profileId, 'default');
    assert.equal(await x.test.hasStoredKey('second', sim.url), false, 'its key is gone from SecretStorage');
    assert.doesNotMatch(x.test.statusBar().account.text, /Default ·/, 'one profile again: no name in the status bar');
  });
});
