import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  BEGIN_MARKER,
  END_MARKER,
  SshConfigError,
  hostAlias,
  hostEntryText,
  includeInstructions,
  withInclude,
  withoutInclude,
} from '../../../src/core/ssh/config';

const INCLUDE = '/home/me/.ssh/gpu-rental/*.conf';

/** Lines a hand-written ssh_config has: Host * blocks, Match, comments, includes (even loops), blank lines. */
const configLine = fc.oneof(
  fc.constantFrom(
    'Host *',
    '  ServerAliveInterval 60',
    'Host work',
    '  HostName 10.0.0.4',
    '  User dev',
    'Match host *.corp exec "true"',
    '  ProxyJump bastion',
    '# a comment',
    '',
    '   ',
    'Include ~/.ssh/config',
    'Include config.d/*',
    '\tIdentityFile ~/.ssh/id_ed25519',
    'Host gpu-rental-12 # mine, not managed',
  ),
  fc.string({ maxLength: 30 }).filter((s) => !/[\r\n]/.test(s) && !s.includes('gpu-rental:') && !s.includes('<<< gpu-rental')),
);
const userConfig = fc
  .record({ lines: fc.array(configLine, { maxLength: 25 }), crlf: fc.boolean(), finalNewline: fc.boolean(), bom: fc.boolean() })
  .map(({ lines, crlf, finalNewline, bom }) => {
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

  it('rewrites only the inside of an existing block with only comments above it, and moves it to the top when anything ssh reads stands above it (property)', () => {
    fc.assert(
      fc.property(userConfig, userConfig, (before, after) => {
        const eol = before.includes('\r\n') ? '\r\n' : '\n';
        const sep = before === '' || before.endsWith('\n') ? '' : eol;
        const text = `${before}${sep}${BEGIN_MARKER}${eol}Include /old/path/*.conf${eol}${END_MARKER}${eol}${after}`;
        const updated = withInclude(text, INCLUDE);
        assert.equal(updated.changed, true);
        const start = updated.text.indexOf(BEGIN_MARKER);
        // Anything ssh reads (not blank, not a comment) above the block would win over it.
        const directiveAbove = before
          .replace(/^\uFEFF/, '')
          .split('\n')
          .some((line) => line.trim() !== '' && !line.trim().startsWith('#'));
        if (directiveAbove) {
          const bom = before.startsWith('\uFEFF') ? '\uFEFF' : '';
          assert.equal(start, bom.length, 'moved to the top');
        } else {
          assert.equal(updated.text.slice(0, start), before + sep, 'bytes before the block');
        }
        assert.ok(updated.text.endsWith(after), 'bytes after the block');
        assert.ok(updated.text.includes(`Include ${INCLUDE}`));
        assert.equal(withoutInclude(updated.text).text, before + sep + after, 'the rest is as it was');
        assert.equal(withInclude(updated.text, INCLUDE).changed, false, 'stable once placed');
      }),
      { numRuns: 300 },
    );
  });

  it('keeps bytes that are not UTF-8 (a Latin-1 comment) exactly, on add and on removal', () => {
    const latin1 = Buffer.from('# caf\xe9 du coin\r\nHost work\n  HostName 10.1.2.3\r\n\xff\xfe', 'latin1');
    const added = withInclude(latin1, INCLUDE);
    assert.ok(Buffer.isBuffer(added.text));
    // Two of its three lines end in CR LF: so does the block.
    assert.deepEqual(added.text, Buffer.concat([Buffer.from(`${BEGIN_MARKER}\r\nInclude ${INCLUDE}\r\n${END_MARKER}\r\n`), latin1]));
    assert.deepEqual(withoutInclude(added.text).text, latin1);
    assert.equal(withInclude(added.text, INCLUDE).changed, false);
  });

  it('moves the block back to the top when a Host or Match line in any form stands above it', () => {
    const block = `${BEGIN_MARKER}\nInclude ${INCLUDE}\n${END_MARKER}\n`;
    for (const line of [
      'Host other',
      'HOST other',
      '  host other',
      '\tMatch all',
      'Host=other',
      'host = other',
      ' = Host other',
      '"Host" other',
      'Match\tuser me',
      '\rHost x\r',
    ]) {
      const user = `# mine\n${line}\n  User x\n`;
      const moved = withInclude(`${user}${block}Host b\n`, INCLUDE);
      assert.deepEqual(moved, { text: `${block}${user}Host b\n`, changed: true }, JSON.stringify(line));
    }
    // A global option above it would win over the managed entries (ssh keeps the first value): moved too.
    for (const line of ['Port 2222', 'User someone', 'Hostname x', 'HostKeyAlgorithms +ssh-rsa', 'Matches x', 'ServerAliveInterval 5']) {
      const moved = withInclude(`${line}\n${block}Host b\n`, INCLUDE);
      assert.deepEqual(moved, { text: `${block}${line}\nHost b\n`, changed: true }, JSON.stringify(line));
    }
    // Comments and blank lines above it change nothing: left alone.
    for (const line of ['# Host other', '   # Port 2', '', '  \t']) {
      const text = `${line}\n${block}Host b\n`;
      assert.deepEqual(withInclude(text, INCLUDE), { text, changed: false }, JSON.stringify(line));
    }
    // A byte-order mark stays first; a block that ended the file without a newline gets one at the top.
    const moved = withInclude(Buffer.from(`\uFEFFHost a\r\n  Port 2\r\n${BEGIN_MARKER}\r\nInclude ${INCLUDE}\r\n${END_MARKER}`), INCLUDE);
    assert.equal(moved.text.toString('utf8'), `\uFEFF${BEGIN_MARKER}\r\nInclude ${INCLUDE}\r\n${END_MARKER}\r\nHost a\r\n  Port 2\r\n`);
  });

  it("uses the file's own line endings for the block", () => {
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
      assert.throws(
        () => withInclude(text, INCLUDE),
        (e: unknown) => e instanceof SshConfigError && /line \d+/.test(e.message) && /by hand/.test(e.message),
      );
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
    const text = hostEntryText({
      alias: hostAlias(31000001),
      hostName: '127.0.0.1',
      port: 40022,
      identityFile: '/home/me/.ssh/id_ed25519',
      knownHostsFile: '/home/me/.ssh/gpu-rental/known_hosts_31000001',
      comment: 'RTX 4090 #31000001',
    });
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
    assert.throws(
      () => hostEntryText({ alias: 'x', hostName: 'evil\nProxyCommand sh', port: 22, identityFile: '/k', knownHostsFile: '/h' }),
      SshConfigError,
    );
    assert.throws(
      () => hostEntryText({ alias: 'x', hostName: 'h', port: 22, identityFile: '/k\nProxyCommand sh', knownHostsFile: '/h' }),
      SshConfigError,
    );
    assert.throws(
      () => hostEntryText({ alias: 'x', hostName: 'h', port: 70000, identityFile: '/k', knownHostsFile: '/h' }),
      SshConfigError,
    );
    assert.throws(
      () => hostEntryText({ alias: 'x', hostName: 'h', port: 22, user: 'root\nProxyCommand sh', identityFile: '/k', knownHostsFile: '/h' }),
      /\(User\)/,
    );
  });

  it('writes IPv4, IPv6 and DNS host names, and refuses anything ssh would split, quote or expand, naming the field', () => {
    const entry = { alias: 'gpu-rental-1', port: 22, identityFile: '/k', knownHostsFile: '/h' };
    for (const hostName of [
      '127.0.0.1',
      '2001:db8::1',
      '::1',
      'fe80::a00:27ff:fe4e:66a1',
      '::ffff:192.0.2.7',
      'ssh4.vast.ai',
      'host-1.example.net',
      'Host7.example.net',
      'localhost',
    ]) {
      assert.match(hostEntryText({ ...entry, hostName }), new RegExp(`\\n  HostName ${hostName.replace(/\./g, '\\.')}\\n`), hostName);
    }
    for (const hostName of [
      '',
      'a b',
      'a\tb',
      '"a"',
      "a'b",
      'a\nProxyCommand sh',
      'a\rb',
      '%h',
      'a%d',
      '$HOME',
      '${X}.example',
      'fe80::1%eth0',
      '[2001:db8::1]',
      '-oProxyCommand=x',
      'a..b',
      'a;b',
      'a`b`',
      '1:2:3',
      'host_7.example',
      'trailing.dot.',
      'x'.repeat(254),
    ]) {
      assert.throws(
        () => hostEntryText({ ...entry, hostName }),
        (e: unknown) => e instanceof SshConfigError && /SSH address \(HostName\)/.test(e.message) && !e.message.includes('\n'),
        JSON.stringify(hostName),
      );
    }
  });
});
