import assert from 'node:assert/strict';
import type { TeamMember, TeamRole } from '../../../src/core/api/team';
import { deleteRole, inviteMember, removeMember, saveRole, type TeamFlowDeps } from '../../../src/core/account/teamFlows';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const ANA = { id: 3, email: 'ana@example.com', username: 'ana', roles: ['member'] } as TeamMember;
const BO = { id: 4, email: '', username: 'bo', roles: ['member'] } as TeamMember;

/** A team in memory and the requests that reached it. */
function team(answers: Answer[], categories?: string[]) {
  const roles: TeamRole[] = [
    { id: 1, name: 'owner' } as TeamRole,
    { id: 2, name: 'member', permissions: { api: { instance_read: {} } } } as TeamRole,
  ];
  const sent: string[] = [];
  const ticked: string[][] = [];
  const ask = scriptedAsk(answers);
  const done = (line: string) => (sent.push(line), Promise.resolve());
  const d: TeamFlowDeps = {
    ask,
    team: {
      members: () => Promise.resolve([ANA, BO]),
      roles: () => Promise.resolve(roles),
      invite: (email, role) => done(`invite ${email} ${role}`),
      removeMember: (id) => done(`remove ${id}`),
      createRole: (name, p) => done(`create ${name} ${Object.keys(p.api ?? {}).join(',')}`),
      updateRole: (id, name, p) => done(`update ${id} ${name} ${Object.keys(p.api ?? {}).join(',')}`),
      deleteRole: (name) => done(`delete ${name}`),
    },
    pickCategories: (_title, t) => (ticked.push([...t]), Promise.resolve(categories)),
  };
  return { d, ask, sent, ticked };
}

describe('team flows', () => {
  it('invites: refuses a text that is not an email address, then asks the role', async () => {
    const { d, ask, sent } = team([{ input: ' ana@example.com ' }, { pick: 'member' }]);
    const outcome = await inviteMember(d);
    assert.equal(ask.asked[1]?.text, 'GPU Rental: Invite ana@example.com (2/2): with which role?');
    assert.deepEqual(sent, ['invite ana@example.com member']);
    assert.equal(outcome.notice?.text, 'GPU Rental: invited ana@example.com as member.');
    await assert.rejects(inviteMember(team([{ input: 'not an address' }]).d), /Enter an email address/);
  });

  it('removes a member only after a confirmation naming them', async () => {
    const { d, ask, sent } = team([{ confirm: false }, { pick: 'bo' }, { confirm: true }]);
    assert.equal((await removeMember(d, 3)).value, false);
    assert.equal(ask.asked[0]?.text, 'Remove ana@example.com from the team?');
    assert.equal((await removeMember(d)).value, true);
    assert.deepEqual(sent, ['remove 4']);
  });

  it('edits an existing role with its categories ticked, or creates a new one', async () => {
    const edit = team([{ pick: 'member' }], ['instance_read', 'instance_write', 'not_a_category']);
    assert.equal((await saveRole(edit.d)).notice?.text, 'GPU Rental: role "member" updated.');
    assert.deepEqual(edit.ticked, [['instance_read']]);
    assert.deepEqual(edit.sent, ['update 2 member instance_read,instance_write']);
    const create = team([{ pick: 'New role' }, { input: 'viewer' }], ['user_read']);
    assert.equal((await saveRole(create.d)).notice?.text, 'GPU Rental: role "viewer" created.');
    assert.deepEqual(create.sent, ['create viewer user_read']);
  });

  it('deletes a role after saying who holds it; never the owner role', async () => {
    const { d, ask, sent } = team([{ pick: 'member' }, { confirm: true }]);
    assert.equal((await deleteRole(d)).value, true);
    assert.deepEqual(ask.asked[0]?.options, ['member'], 'owner is not offered');
    assert.equal(
      ask.asked[1]?.detail,
      'ana@example.com, bo have this role and will lose what it allows. Give them another role first if they still need access.',
    );
    assert.deepEqual(sent, ['delete member']);
    assert.equal((await deleteRole(d, 'owner')).notice?.text, 'GPU Rental: the owner role cannot be deleted.');
  });
});
