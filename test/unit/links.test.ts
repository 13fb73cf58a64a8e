import { strict as assert } from 'node:assert';
import { connectLink, parseLink } from '../../src/core/links';

const profiles = ['default', 'work'];

describe('links that open an instance', () => {
  it('reads an instance, with or without a profile', () => {
    assert.deepEqual(parseLink('/connect', 'instance=123', profiles), { kind: 'connect', instanceId: 123 });
    assert.deepEqual(parseLink('/connect', 'instance=123&profile=work', profiles), { kind: 'connect', instanceId: 123, profileId: 'work' });
    assert.deepEqual(parseLink('/connect/', 'profile=work&instance=9', profiles), { kind: 'connect', instanceId: 9, profileId: 'work' });
  });

  it('ignores parameters it does not know', () => {
    assert.deepEqual(parseLink('/connect', 'instance=5&utm_source=chat&x=', profiles), { kind: 'connect', instanceId: 5 });
  });

  it('refuses an instance that is not a positive whole number', () => {
    for (const bad of ['0', '-3', '1.5', '1e3', ' 12', '12abc', '0x10', '007', '99999999999999999', 'C.123', '12;rm -rf ~']) {
      const parsed = parseLink('/connect', `instance=${encodeURIComponent(bad)}`, profiles);
      assert.equal(parsed.kind, 'refused', bad);
    }
  });

  it('refuses a link with no instance, an unknown profile, a parameter twice, or another action', () => {
    const reason = (path: string, query: string) => {
      const parsed = parseLink(path, query, profiles);
      assert.equal(parsed.kind, 'refused', `${path}?${query}`);
      return parsed.kind === 'refused' ? parsed.reason : '';
    };
    assert.match(reason('/connect', ''), /names no instance/);
    assert.match(reason('/connect', 'instance='), /names no instance/);
    assert.match(reason('/connect', 'instance=1&profile=home'), /profile "home", which does not exist/);
    assert.match(reason('/connect', 'instance=1&profile='), /profile "", which does not exist/);
    assert.match(reason('/connect', 'instance=1&instance=2'), /"instance" more than once/);
    assert.match(reason('/connect', 'instance=1&profile=work&profile=default'), /"profile" more than once/);
    assert.match(reason('/rent', 'offer=1'), /asks for "rent", which GPU Rental does not do/);
    assert.match(reason('', 'instance=1'), /asks for ""/);
  });

  it('shows untrusted text with its control characters as escapes, and short', () => {
    const parsed = parseLink('/connect', `instance=${encodeURIComponent('1\n2')}`, profiles);
    assert.equal(parsed.kind === 'refused' && parsed.reason, '"1\\u000A2" is not an instance id (a positive whole number).');
    const long = parseLink('/connect', `instance=1&profile=${'p'.repeat(200)}`, profiles);
    assert.ok(long.kind === 'refused' && long.reason.length < 150);
  });

  it('refuses a profile name with a right-to-left override or zero-width characters, showing them as escapes', () => {
    // "work" then U+202E: shown raw, the rest of the sentence would read reversed after it.
    const hidden = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B-\u200D\u2060\uFEFF]/u;
    const crafted = parseLink('/connect', `instance=1&profile=${encodeURIComponent('work\u202Etsixe ton seod\u200B')}`, profiles);
    assert.equal(crafted.kind, 'refused', 'not the profile "work"');
    const reason = crafted.kind === 'refused' ? crafted.reason : '';
    assert.doesNotMatch(reason, hidden);
    assert.equal(reason, 'the link names the profile "work\\u202Etsixe ton seod\\u200B", which does not exist here.');
    for (const [path, query] of [
      [`/con\u202Enect`, 'instance=1'],
      ['/connect', `instance=${encodeURIComponent('1\u2067\uFEFF')}`],
    ] as const) {
      const parsed = parseLink(path, query, profiles);
      assert.ok(parsed.kind === 'refused' && !hidden.test(parsed.reason) && /\\u(202E|2067)/.test(parsed.reason), parsed.kind);
    }
  });

  it('builds the links it reads', () => {
    const link = connectLink('vscode://pub.gpu-rental', 42, 'work');
    assert.equal(link, 'vscode://pub.gpu-rental/connect?instance=42&profile=work');
    const url = new URL(link);
    assert.deepEqual(parseLink(url.pathname, url.search.slice(1), profiles), { kind: 'connect', instanceId: 42, profileId: 'work' });
  });
});
