import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { addProfileFlow, removeProfileFlow, switchProfileFlow, type ProfileFlowDeps } from '../../../src/core/account/profileFlows';
import { DEFAULT_PROFILE, newProfile, type Profile } from '../../../src/core/session/profiles';
import { MemoryLogger } from '../../support/logger';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const URL = 'https://service.example';
const running = (id: number, dph: number) => ({ id, actual_status: 'running', intended_status: 'running', dph_total: dph }) as Instance;

/** Profiles in memory, the profile in use, the keys on this machine, and what each account runs. */
function machine(answers: Answer[], o: { instances?: Instance[] | Error; current?: string } = {}) {
  const added: Profile[] = [newProfile('Second', URL, [DEFAULT_PROFILE])];
  const keys = new Map([['second', 'second-key']]);
  const ask = scriptedAsk(answers);
  const signedIn: string[] = [];
  const session = { profileId: o.current ?? 'default', signIn: (key: string) => (signedIn.push(key), Promise.resolve()) };
  const d: ProfileFlowDeps = {
    ask,
    profiles: {
      list: () => [DEFAULT_PROFILE, ...added],
      baseUrl: (p) => p.baseUrl ?? URL,
      add: (name, baseUrl) => {
        const p = newProfile(name, baseUrl, [DEFAULT_PROFILE, ...added]);
        added.push(p);
        return Promise.resolve(p);
      },
      remove: (id) => (
        added.splice(
          added.findIndex((p) => p.id === id),
          1,
        ),
        Promise.resolve()
      ),
    },
    session,
    switcher: {
      get profile() {
        return DEFAULT_PROFILE;
      },
      switchProfile: (id) => ((session.profileId = id), Promise.resolve()),
      keyOf: (p) => Promise.resolve(keys.get(p.id)),
      deleteKeyOf: (p) => (keys.delete(p.id), Promise.resolve()),
    },
    instancesOf: () => (o.instances instanceof Error ? Promise.reject(o.instances) : Promise.resolve(o.instances ?? [])),
    apiUrl: () => URL,
    logger: new MemoryLogger(),
  };
  return { d, ask, added, keys, session, signedIn };
}

describe('profile flows', () => {
  it('removing a profile says what its account still runs; declined keeps it and its key', async () => {
    const { d, ask, added, keys } = machine([{ confirm: false }], { instances: [running(7, 0.5)] });
    assert.equal((await removeProfileFlow(d, 'second')).value, false);
    assert.equal(ask.asked[0]?.text, 'Remove the profile "Second"?');
    assert.match(ask.asked[0]!.detail, /1 instance \(\$0\.500\/h now\)\. It keeps running and billing/);
    assert.doesNotMatch(ask.asked[0]!.detail, /switches to the default profile/, 'another window profile: no switch');
    assert.deepEqual([added.length, keys.has('second')], [1, true], 'still there');
  });

  it('removing the profile in use switches this window to the default one, and deletes its key', async () => {
    const { d, ask, added, keys, session } = machine([{ confirm: true }], {
      current: 'second',
      instances: [running(7, 0.5), running(8, 1)],
    });
    assert.equal((await removeProfileFlow(d, 'second')).value, true);
    assert.match(ask.asked[0]!.detail, /2 instances \(\$1\.50\/h now\)\. They keep running and billing/);
    assert.match(ask.asked[0]!.detail, /This window switches to the default profile\.$/);
    assert.deepEqual([added.length, keys.has('second'), session.profileId], [0, false, 'default']);
  });

  it("still asks when the account's instances cannot be listed, and says they may bill", async () => {
    const { d, ask } = machine([{ pick: 'Second' }, { confirm: false }], { instances: new Error('HTTP 401') });
    await removeProfileFlow(d);
    assert.match(ask.asked[1]!.detail, /Its instances could not be listed\. Any it has keep running and billing/);
  });

  it('refuses to remove the default profile, the only one', async () => {
    const { d, ask, added } = machine([]);
    added.length = 0;
    const outcome = await removeProfileFlow(d);
    assert.match(outcome.notice?.text ?? '', /^GPU Rental: there is only the default profile, which cannot be removed/);
    assert.equal(ask.asked.length, 0);
  });

  it('adds a profile from the palette: name, then service, then switches and asks for its key', async () => {
    const { d, ask, session } = machine([{ input: 'Work' }, { input: URL }]);
    assert.deepEqual(await addProfileFlow(d), { id: 'work', askKey: true });
    assert.equal(ask.asked[0]?.detail, 'GPU Rental: Add Profile (1/2)');
    assert.equal(session.profileId, 'work');
  });

  it('adds a profile for automation with its key, asking nothing', async () => {
    const { d, ask, signedIn } = machine([]);
    assert.deepEqual(await addProfileFlow(d, { name: 'Team A', baseUrl: URL, apiKey: 'k' }), { id: 'team-a', askKey: false });
    assert.deepEqual([signedIn, ask.asked.length], [['k'], 0]);
  });

  it('switch: lists the profiles with the one in use ticked, and Add Profile last', async () => {
    const { d, ask, session } = machine([{ pick: 'Second' }]);
    assert.deepEqual(await switchProfileFlow(d), { id: 'second' });
    assert.deepEqual(ask.asked[0]?.options, ['$(check) Default', 'Second', '$(add) Add Profile…']);
    assert.equal(session.profileId, 'second');
  });
});
