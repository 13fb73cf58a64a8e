import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, sim } from '../support';
import { confirmations, section } from './kit';

describe('account: team', function () {
  this.timeout(60_000);
  const c = confirmations();

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
