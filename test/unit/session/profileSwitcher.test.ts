import assert from 'node:assert/strict';
import { DEFAULT_PROFILE, keySlot, type Profile } from '../../../src/core/session/profiles';
import { ProfileSwitcher, type ProfileStore } from '../../../src/core/session/profileSwitcher';
import { AccountFrozen } from '../../../src/core/session/session';
import { MemoryLogger } from '../../support';

const WORK: Profile = { id: 'work', name: 'Work', baseUrl: 'https://work.example.test' };
const SETTING_URL = 'https://api.example.test';

/** The profiles as src/ui/host/profiles.ts keeps them, in memory. */
class MemoryProfiles implements ProfileStore {
  last: string | undefined;
  constructor(readonly added: Profile[] = []) {}
  list() {
    return [DEFAULT_PROFILE, ...this.added];
  }
  get(id: string | undefined) {
    return this.list().find((p) => p.id === id);
  }
  baseUrl(profile: Profile) {
    return profile.baseUrl ?? SETTING_URL;
  }
  async setLast(id: string) {
    this.last = id;
  }
}

function setup(added: Profile[] = [WORK]) {
  const profiles = new MemoryProfiles(added);
  const switched: Array<[string, string]> = [];
  const session = {
    profileId: 'default',
    baseUrl: SETTING_URL,
    frozen: undefined as string | undefined,
    assertNotFrozen() {
      if (this.frozen) throw new AccountFrozen(this.frozen);
    },
    async setProfile(id: string, baseUrl: string) {
      switched.push([id, baseUrl]);
      this.profileId = id;
      this.baseUrl = baseUrl;
    },
  };
  const renter = { busy: false };
  const keys = new Map<string, string>();
  const logger = new MemoryLogger();
  const switcher = new ProfileSwitcher({
    profiles,
    session,
    renter,
    keys: {
      get: async (slot) => keys.get(slot),
      delete: async (slot) => void keys.delete(slot),
    },
    logger,
  });
  return { switcher, profiles, session, renter, keys, switched, logger };
}

describe('profile switcher', () => {
  it('switches the session to the profile and its base URL, and remembers it for new windows', async () => {
    const { switcher, profiles, switched, logger } = setup();
    await switcher.switchProfile('work');
    assert.deepEqual(switched, [['work', 'https://work.example.test']]);
    assert.equal(profiles.last, 'work');
    assert.equal(switcher.profile.id, 'work');
    assert.ok(logger.lines.includes('info Switched to the profile "Work" (https://work.example.test).'));
  });

  it('refuses an unknown profile', async () => {
    const { switcher, switched } = setup();
    await assert.rejects(switcher.switchProfile('nope'), /There is no GPU Rental profile "nope"\./);
    assert.deepEqual(switched, []);
  });

  it('refuses another profile while a rent is in progress, or while one is unsettled', async () => {
    const { switcher, renter, session, switched } = setup();
    renter.busy = true;
    await assert.rejects(switcher.switchProfile('work'), /A rent is in progress/);
    renter.busy = false;
    session.frozen = 'a rent to https://api.example.test is not settled yet';
    await assert.rejects(switcher.switchProfile('work'), AccountFrozen);
    assert.deepEqual(switched, []);
  });

  it('switching to the profile already in use is allowed during a rent', async () => {
    const { switcher, renter, switched } = setup();
    renter.busy = true;
    await switcher.switchProfile('default');
    assert.deepEqual(switched, [['default', SETTING_URL]]);
  });

  it('names the profile in messages only while there are several', async () => {
    const one = setup([]).switcher;
    assert.equal(one.profileLabel(), undefined);
    assert.equal(one.where, SETTING_URL);
    const several = setup().switcher;
    assert.equal(several.profileLabel(), 'Default');
    assert.equal(several.where, `${SETTING_URL} (profile "Default")`);
    await several.switchProfile('work');
    assert.equal(several.where, 'https://work.example.test (profile "Work")');
  });

  it("reads and deletes another profile's key by its slot; deleting is refused while a rent is unsettled", async () => {
    const { switcher, keys, session } = setup();
    const slot = keySlot('work', 'https://work.example.test');
    keys.set(slot, 'work-key');
    assert.equal(await switcher.keyOf(WORK, 'https://work.example.test'), 'work-key');
    session.frozen = 'a rent is not settled yet';
    assert.throws(() => void switcher.deleteKeyOf(WORK, 'https://work.example.test'), AccountFrozen);
    assert.equal(keys.get(slot), 'work-key');
    session.frozen = undefined;
    await switcher.deleteKeyOf(WORK, 'https://work.example.test');
    assert.equal(keys.has(slot), false);
  });
});
