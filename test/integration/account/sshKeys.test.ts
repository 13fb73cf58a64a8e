import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { api, eventually, sim } from '../support';
import { confirmations, rented, section } from './kit';

const sshKeys = async () => JSON.stringify(await api('GET', '/api/v0/ssh/', sim.key));

describe('account: SSH keys from the palette and the Account view', function () {
  this.timeout(60_000);
  const c = confirmations();

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
