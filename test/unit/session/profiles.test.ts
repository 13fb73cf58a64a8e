import assert from 'node:assert/strict';
import {
  DEFAULT_PROFILE,
  keySlot,
  newProfile,
  profileNameProblem,
  profileSlug,
  readProfiles,
  sshProfile,
} from '../../../src/core/session/profiles';
import { hostAlias, parseHostAlias } from '../../../src/core/ssh/config';

describe('profiles', () => {
  it('the default profile keeps the key slot and SSH aliases of an install without profiles', () => {
    assert.equal(keySlot('default', 'https://console.vast.ai'), 'https://console.vast.ai');
    assert.equal(hostAlias(42, sshProfile('default')), 'gpu-rental-42');
    assert.equal(keySlot('work', 'https://console.vast.ai'), 'https://console.vast.ai#profile=work');
    assert.equal(hostAlias(42, sshProfile('work')), 'gpu-rental-work-42');
  });

  it('names become stable slugs; unusable or taken names are refused with the reason', () => {
    assert.equal(profileSlug('  Team A / GPU  '), 'team-a-gpu');
    assert.equal(profileSlug('Équipe'), 'equipe');
    const existing = [DEFAULT_PROFILE, { id: 'work', name: 'Work', baseUrl: 'https://console.vast.ai' }];
    assert.match(String(profileNameProblem('', existing)), /name/);
    assert.match(String(profileNameProblem('!!!', existing)), /letter or digit/);
    assert.match(String(profileNameProblem('2024', existing)), /letter/);
    assert.match(String(profileNameProblem('default', existing)), /first profile/);
    assert.match(String(profileNameProblem('WORK', existing)), /exists already/);
    assert.match(String(profileNameProblem('work!', existing)), /exists already/, 'same slug');
    assert.equal(profileNameProblem('Lab', existing), undefined);
    assert.deepEqual(newProfile(' Lab ', 'http://127.0.0.1:8790/', existing), { id: 'lab', name: 'Lab', baseUrl: 'http://127.0.0.1:8790' });
    assert.throws(() => newProfile('Lab', 'http://example.com', existing), /plain http/);
  });

  it('aliases of different profiles never collide, and each names its profile and instance', () => {
    const profiles = ['default', 'a', 'a-1', 'b-2-c', 'x9'];
    const seen = new Map<string, string>();
    for (const p of profiles) {
      for (const id of [1, 12, 123, 2, 9]) {
        const alias = hostAlias(id, sshProfile(p));
        assert.ok(!seen.has(alias), `${alias} is ${seen.get(alias)} and ${p}/${id}`);
        seen.set(alias, `${p}/${id}`);
        assert.deepEqual(parseHostAlias(alias), p === 'default' ? { instanceId: id } : { instanceId: id, profile: p });
      }
    }
    assert.equal(parseHostAlias('my-server'), undefined);
    assert.equal(parseHostAlias('gpu-rental-'), undefined);
  });

  it('a stored list that was tampered with loses only its malformed entries', () => {
    const raw = [
      { id: 'work', name: 'Work', baseUrl: 'https://console.vast.ai' },
      { id: 'work', name: 'Again', baseUrl: 'https://x' },
      { id: 'default', name: 'Fake default', baseUrl: 'https://x' },
      { id: 'Bad Id', name: 'x', baseUrl: 'https://x' },
      { id: 'lab', name: 'Lab' },
      null,
      'text',
    ];
    assert.deepEqual(readProfiles(raw), [{ id: 'work', name: 'Work', baseUrl: 'https://console.vast.ai' }]);
    assert.deepEqual(readProfiles(undefined), []);
  });
});
