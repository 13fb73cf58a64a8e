import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BEGIN_MARKER, END_MARKER, SshConfigError, hostAlias, hostEntryText, includeInstructions, withInclude, withoutInclude } from '../../../src/core/ssh/config';

const INCLUDE = '/home/me/.ssh/gpu-rental/*.conf';

/** Lines a hand-written ssh_config has: Host * blocks, Match, comments, includes (even loops), blank lines. */
const configLine = fc.oneof(
  fc.constantFrom('Host *', '  ServerAliveInterval 60', 'Host work', '  HostName 10.0.0.4', '  User dev', 'Match host *.corp exec "true"', '  ProxyJump bastion', '# a comment', '', '   ', 'Include ~/.ssh/config', 'Include config.d/*', '\tIdentityFile ~/.ssh/id_ed25519', 'Host gpu-rental-12 # mine, not managed'),
  fc.string({ maxLength: 30 }).filter((s) => !/[\r\n]/.test(s) && !s.includes('gpu-rental:') && !s.includes('<<< gpu-rental')),
);
const userConfig = fc.record({ lines: fc.array(configLine, { maxLength: 25 }), crlf: fc.boolean(), finalNewline: fc.boolean(), bom: fc.boolean() }).map(({ lines, crlf, finalNewline, bom }) => {
  const eol = crlf ? '\r\n' : '\n';
  const body = lines.join(eol) + (finalNewline && lines.length ? eol : '');
  return (bom ? '\uFEFF' : '') + body;
});

describe('managed SSH config block', () => {
  it('adds the block at the top and leaves every other byte as it was (property)', () => {
    fc.assert(
      fc.property(userConfig, (original) => {
        const added = withInclude(original, INCLUDE);
        assert.equal(added.changed, true);
        const bom = original.startsWith('\uFEFF') ? '\uFEFF' : '';
        assert.ok(added.text.startsWith(`${bom}${BEGIN_MARKER}`));
        // Outside the markers: exactly the original.
        const removed = withoutInclude(added.text);
        assert.equal(removed.text, original);
        // Adding again changes nothing; so does removing from a file without the block.
        assert.deepEqual(withInclude(added.text, INCLUDE), { text: added.text, changed: false });
        assert.deepEqual(withoutInclude(original), { text: original, changed: false });
      }),
      { numRuns: 500 },
    );
  });

  it('rewrites only the inside of an existing block, wherever the user moved it (property)', () => {
    fc.assert(
      fc.property(userConfig, userConfig, (before, after) => {
        const eol = before.includes('\r\n') ? '\r\n' : '\n';
        const sep = before === '' || before.endsWith('\n') ? '' : eol;
        const text = `${before}${sep}${BEGIN_MARKER}${eol}Include /old/path/*.conf${eol}${END_MARKER}${eol}${after}`;
        const updated = withInclude(text, INCLUDE);
        assert.equal(updated.changed, true);
        const start = updated.text.indexOf(BEGIN_MARKER);
        assert.equal(updated.text.slice(0, start), before + sep, 'bytes before the block');
        assert.ok(updated.text.endsWith(after), 'bytes after the block');
        assert.ok(updated.text.includes(`Include ${INCLUDE}`));
        assert.equal(withoutInclude(updated.text).text, before + sep + after);
      }),
      { numRuns: 300 },
    );
  });

  it('uses the file\'s own line endings for the block', () => {
    const added = withInclude('Host a\r\n  User b\r\n', INCLUDE).text;
    assert.equal(added, `${BEGIN_MARKER}\r\nInclude ${INCLUDE}\r\n${END_MARKER}\r\nHost a\r\n  User b\r\n`);
  });

  it('refuses malformed or duplicated markers, naming the line, and never guesses', () => {
    const cases = [
      `Host a\n${BEGIN_MARKER}\nInclude x\n`,
      `${END_MARKER}\nHost a\n`,
      `${END_MARKER}\n${BEGIN_MARKER}\n`,
      `${BEGIN_MARKER}\nInclude x\n${END_MARKER}\n${BEGIN_MARKER}\nInclude y\n${END_MARKER}\n`,
    ];
    for (const text of cases) {
      assert.throws(() => withInclude(text, INCLUDE), (e: unknown) => e instanceof SshConfigError && /line \d+/.test(e.message) && /by hand/.test(e.message));
      assert.throws(() => withoutInclude(text), SshConfigError);
    }
  });

  it('quotes an include path with spaces', () => {
    assert.match(withInclude('', '/home/my user/.ssh/gpu rental/*.conf').text, /Include "\/home\/my user\/\.ssh\/gpu rental\/\*\.conf"/);
    assert.equal(includeInstructions(INCLUDE), `${BEGIN_MARKER}\nInclude ${INCLUDE}\n${END_MARKER}\n`);
  });
});

describe('per-instance host entries', () => {
  it('writes alias, address, user, identity with IdentitiesOnly, its own known hosts and keep-alives', () => {
    const text = hostEntryText({ alias: hostAlias(31000001), hostName: '127.0.0.1', port: 40022, identityFile: '/home/me/.ssh/id_ed25519', knownHostsFile: '/home/me/.ssh/gpu-rental/known_hosts_31000001', comment: 'RTX 4090 #31000001' });
    assert.equal(
      text,
      [
        '# RTX 4090 #31000001',
        'Host gpu-rental-31000001',
        '  HostName 127.0.0.1',
        '  Port 40022',
        '  User root',
        '  IdentityFile /home/me/.ssh/id_ed25519',
        '  IdentitiesOnly yes',
        '  UserKnownHostsFile /home/me/.ssh/gpu-rental/known_hosts_31000001',
        '  StrictHostKeyChecking accept-new',
        '  ServerAliveInterval 30',
        '  ServerAliveCountMax 4',
        '',
      ].join('\n'),
    );
  });

  it('keeps aliases lowercase and apart per profile, and refuses values that would inject lines', () => {
    assert.equal(hostAlias(7, 'Team Prod'), 'gpu-rental-team-prod-7');
    assert.throws(() => hostEntryText({ alias: 'x', hostName: 'evil\nProxyCommand sh', port: 22, identityFile: '/k', knownHostsFile: '/h' }), SshConfigError);
    assert.throws(() => hostEntryText({ alias: 'x', hostName: 'h', port: 22, identityFile: '/k\nProxyCommand sh', knownHostsFile: '/h' }), SshConfigError);
    assert.throws(() => hostEntryText({ alias: 'x', hostName: 'h', port: 70000, identityFile: '/k', knownHostsFile: '/h' }), SshConfigError);
  });
});
