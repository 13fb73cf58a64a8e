import assert from 'node:assert/strict';
import { BaseUrlFollower } from '../../../src/core/session/baseUrlFollower';
import { MemoryLogger } from '../../support';

function setup() {
  const session = {
    baseUrl: 'https://a.example.test',
    set: [] as string[],
    async setBaseUrl(url: string) {
      this.set.push(url);
      this.baseUrl = url;
    },
  };
  const env = { wanted: 'https://b.example.test', frozen: undefined as string | undefined };
  const warnings: string[] = [];
  const follower = new BaseUrlFollower({
    wanted: () => env.wanted,
    session,
    freezeReason: () => env.frozen,
    warn: (m) => void warnings.push(m),
    logger: new MemoryLogger(),
  });
  return { follower, session, env, warnings };
}

describe('base URL follower', () => {
  it('applies the setting at once when no rent is unsettled', () => {
    const { follower, session, warnings } = setup();
    follower.follow();
    assert.deepEqual(session.set, ['https://b.example.test']);
    assert.equal(follower.isWaiting, false);
    assert.deepEqual(warnings, []);
  });

  it('waits while a rent is unsettled, says why once, and applies the change when it settles', () => {
    const { follower, session, env, warnings } = setup();
    env.frozen = 'a rent is being checked';
    follower.follow();
    follower.follow();
    assert.deepEqual(session.set, []);
    assert.equal(follower.isWaiting, true);
    assert.deepEqual(warnings, [
      'GPU Rental keeps using https://a.example.test for now; it switches to https://b.example.test once the rent is settled. Why: a rent is being checked',
    ]);
    follower.journalChanged();
    assert.deepEqual(session.set, [], 'still unsettled');
    env.frozen = undefined;
    follower.journalChanged();
    assert.deepEqual(session.set, ['https://b.example.test']);
    assert.equal(follower.isWaiting, false);
  });

  it('a journal change with nothing waiting changes nothing', () => {
    const { follower, session } = setup();
    follower.journalChanged();
    assert.deepEqual(session.set, []);
  });

  it('a setting that asks for the URL in use applies even while a rent is unsettled', () => {
    const { follower, session, env, warnings } = setup();
    env.frozen = 'a rent is being checked';
    env.wanted = 'https://a.example.test';
    follower.follow();
    assert.deepEqual(session.set, ['https://a.example.test']);
    assert.deepEqual(warnings, []);
  });
});
