import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import { presentInstance } from '../../../src/core/instances/present';
import { UnusableSshAddress, checkSshPort, isSshHost, proxySshPort, sshCommand, sshEndpoint } from '../../../src/core/instances/ssh';
import { shellQuote } from '../../../src/core/shell';
import { endpointFor } from '../../../src/core/ssh/connector';
import { tempDirForSuite } from '../../support';

/**
 * An instance with the given address fields, as they reach the check: not through the schema, so
 * that the check is tested on its own, whatever the schema lets through.
 */
const direct = (public_ipaddr: unknown, hostPort: unknown = 41022): Instance =>
  ({
    ...InstanceSchema.parse({ id: 7 }),
    public_ipaddr,
    ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: hostPort }] },
    ssh_host: 'ssh5.example.net',
    ssh_port: 12345,
  }) as Instance;
const proxy = (ssh_host: unknown, ssh_port: unknown = 12345): Instance =>
  ({ ...InstanceSchema.parse({ id: 7 }), ssh_host, ssh_port }) as Instance;

/** What "Copy SSH Command" would put on the clipboard, or the error it shows instead. */
function copied(instance: Instance): string | UnusableSshAddress | undefined {
  try {
    const endpoint = sshEndpoint(instance);
    return endpoint && sshCommand(endpoint);
  } catch (error) {
    if (error instanceof UnusableSshAddress) return error;
    throw error;
  }
}

const IPV4 = '(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV6 = '[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*';
const DNS = '[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\\.[A-Za-z0-9][A-Za-z0-9-]{0,62})*';
/** The only shape a copied command may have: nothing a shell could act on. */
const SAFE_COMMAND = new RegExp(`^ssh -p ([1-9]\\d{0,4}) root@(${IPV4}|${IPV6}|${DNS})$`);

const PAYLOADS = [
  '1.2.3.4; rm -rf ~',
  '$(curl evil)',
  '`id`',
  'host\nid',
  '-oProxyCommand=id',
  '1.2.3.4 -oProxyCommand=id',
  'a.example|id',
  'a.example&&id',
  "a.example'id'",
  'a.example"$x"',
  'a.example>/tmp/x',
  'a.example#',
  'host_name.example',
  'a..example',
  '.example',
  'example.',
  '-example.net',
  '1.2.3.999',
  '1.2.3',
  'fe80::1%eth0',
  '::1]',
  `${'a'.repeat(64)}.example`,
  `${'abcdefghi.'.repeat(25)}example`,
  'exämple.com',
  'evil\u202e.com',
  'a\u0000b',
  '',
  '   ',
];

describe('ssh endpoint', () => {
  it('prefers the direct address when port 22 is mapped, as the CLI does', () => {
    const i = InstanceSchema.parse({
      id: 1,
      public_ipaddr: '203.0.113.7 ',
      ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '41022' }] },
      ssh_host: 'ssh5.example.net',
      ssh_port: 12345,
    });
    assert.deepEqual(sshEndpoint(i), { host: '203.0.113.7', port: 41022, via: 'direct' });
    assert.equal(sshCommand(sshEndpoint(i)!), 'ssh -p 41022 root@203.0.113.7');
  });

  it('falls back to the proxy, and has nothing before the instance runs', () => {
    assert.deepEqual(sshEndpoint(InstanceSchema.parse({ id: 1, ssh_host: 'ssh5.example.net', ssh_port: 12345 })), {
      host: 'ssh5.example.net',
      port: 12345,
      via: 'proxy',
    });
    assert.equal(sshEndpoint(InstanceSchema.parse({ id: 1 })), undefined);
    assert.equal(sshEndpoint(proxy('', 12345)), undefined, 'a blank host is not sent yet');
    assert.equal(sshEndpoint(proxy(null, null)), undefined);
  });

  it('accepts hosts by grammar: IPv4, IPv6 and DNS names', () => {
    for (const host of [
      '203.0.113.7',
      '0.0.0.0',
      '255.255.255.255',
      '2001:db8::1',
      '::1',
      '::ffff:192.0.2.1',
      'ssh5.vast.ai',
      'localhost',
      'a-b.example',
      '1password.example',
      'x'.repeat(63),
      `${'abcdefghi.'.repeat(24)}example`,
    ]) {
      assert.ok(isSshHost(host), host);
      assert.equal(copied(proxy(host)), `ssh -p 12345 root@${host}`);
      assert.equal(copied(direct(host)), `ssh -p 41022 root@${host}`);
    }
  });

  for (const [field, make] of [
    ['ssh_host', (v: string) => proxy(v)],
    ['public_ipaddr', (v: string) => direct(v)],
  ] as const) {
    it(`refuses every shell, option or malformed payload in ${field}, naming the field`, () => {
      for (const payload of PAYLOADS) {
        if (payload.trim() === '') continue;
        const got = copied(make(payload));
        assert.ok(got instanceof UnusableSshAddress, `${JSON.stringify(payload)} gave ${String(got)}`);
        assert.equal(got.field, field);
        assert.match(
          got.message,
          new RegExp(
            `^The service sent an unusable ${field.replace(/[[\]"]/g, '\\$&')} \\(".*" is not a host name or address\\)\\. Refresh the instances and try again`,
          ),
        );
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(got.message, /[\u0000-\u001f\u007f\u202e]/, 'no control characters reach the message');
      }
    });
  }

  it('shows a long bad value truncated, without control characters', () => {
    const got = copied(proxy(`evil\n\u001b[31m${'x'.repeat(500)}`));
    assert.ok(got instanceof UnusableSshAddress);
    assert.match(got.message, /unusable ssh_host \("evil\[31mx{32}…" is not a host name or address\)/);
    assert.ok(got.message.length < 300, got.message);
  });

  it('shows a bad value with link syntax as text, never as a link (issue 36)', () => {
    const got = copied(proxy('[Fix it](command:workbench.action.openSettings)'));
    assert.ok(got instanceof UnusableSshAddress);
    assert.ok(!got.message.includes(']('), got.message);
    assert.match(got.message, /\[Fix it\]\\\\\(command:/);
  });

  it('takes ports as integers from 1 to 65535 only, naming the field', () => {
    assert.equal(copied(direct('203.0.113.7', 65535)), 'ssh -p 65535 root@203.0.113.7');
    assert.equal(copied(proxy('ssh5.example.net', 1)), 'ssh -p 1 root@ssh5.example.net');
    assert.equal(checkSshPort('2222', 'ssh_port'), 2222, 'a numeric string is a port');
    assert.equal(
      copied(direct('203.0.113.7', '')),
      'ssh -p 12345 root@ssh5.example.net',
      'a blank mapped port is one not sent yet: the proxy is used',
    );
    for (const bad of ['abc', '0', '65536', '-1', '22.5', '1e3', '0x16', ' 22 x']) {
      const got = copied(direct('203.0.113.7', bad));
      assert.ok(got instanceof UnusableSshAddress, `HostPort ${JSON.stringify(bad)} gave ${String(got)}`);
      assert.equal(got.field, 'ports["22/tcp"].HostPort');
      assert.match(got.message, /is not a port from 1 to 65535/);
    }
    for (const bad of [0, -22, 22.5, 65536, Number.NaN, Number.POSITIVE_INFINITY, '22; id', '22 -oProxyCommand=id']) {
      const got = copied(proxy('ssh5.example.net', bad));
      assert.ok(got instanceof UnusableSshAddress, `ssh_port ${String(bad)} gave ${String(got)}`);
      assert.equal(got.field, 'ssh_port');
    }
  });

  it('checks a hand-made endpoint again before it becomes a command', () => {
    assert.throws(() => sshCommand({ host: '1.2.3.4; id', port: 22, via: 'proxy' }), UnusableSshAddress);
    assert.throws(() => sshCommand({ host: '1.2.3.4', port: 22.5, via: 'direct' }), UnusableSshAddress);
  });

  it('uses the same check when Connect is set to the proxy, and when it writes the SSH config', () => {
    assert.throws(
      () => endpointFor(proxy('$(id).example'), 'proxy'),
      (e) => e instanceof UnusableSshAddress && e.field === 'ssh_host',
    );
    assert.throws(
      () => endpointFor(direct('1.2.3.4;id'), 'auto'),
      (e) => e instanceof UnusableSshAddress && e.field === 'public_ipaddr',
    );
    assert.deepEqual(endpointFor(direct('203.0.113.7'), 'proxy'), { host: 'ssh5.example.net', port: 12345, via: 'proxy' });
  });

  it('keeps a bad proxy host out of the tooltip', () => {
    const shown = presentInstance(
      { ...proxy('![x](https://tracker.example/p.png)'), actual_status: 'running', intended_status: 'running' },
      { nowMs: Date.now() },
    );
    const tooltip = typeof shown.tooltip === 'string' ? shown.tooltip : JSON.stringify(shown.tooltip);
    assert.ok(!tooltip.includes('tracker.example'), tooltip);
    assert.match(tooltip, /\| SSH \| \(the service sent an unusable address\) \|/);
  });

  describe('an instance launched in a Jupyter mode', () => {
    const launched = (image_runtype: string, fields: Record<string, unknown> = {}) =>
      InstanceSchema.parse({ id: 9, ssh_host: 'ssh5.example.net', ssh_port: 12345, image_runtype, ...fields });

    it('is reached through the proxy one port above ssh_port, as the CLI computes it, whatever the Jupyter runtype', () => {
      for (const runtype of [
        'jupyter',
        'jupyter_proxy',
        'jupyter_proxy ssh_proxy',
        'jupyter_direc ssh_direc ssh_proxy',
        'jupyter_direct',
      ]) {
        assert.deepEqual(sshEndpoint(launched(runtype)), { host: 'ssh5.example.net', port: 12346, via: 'proxy' }, runtype);
        assert.equal(copied(launched(runtype)), 'ssh -p 12346 root@ssh5.example.net', runtype);
      }
    });

    it('keeps ssh_port itself for SSH and entrypoint runtypes, and when the runtype is not sent', () => {
      for (const runtype of ['ssh', 'ssh_proxy', 'ssh_direc ssh_proxy', 'args', '']) {
        assert.equal(sshEndpoint(launched(runtype))?.port, 12345, JSON.stringify(runtype));
      }
      assert.equal(sshEndpoint(InstanceSchema.parse({ id: 9, ssh_host: 'ssh5.example.net', ssh_port: 12345 }))?.port, 12345);
    });

    it("uses the direct address when port 22 is mapped: the +1 is the proxy's, not the machine's", () => {
      const i = launched('jupyter_direc ssh_direc ssh_proxy', {
        public_ipaddr: '203.0.113.7',
        ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '41022' }], '8080/tcp': [{ HostIp: '0.0.0.0', HostPort: '41023' }] },
      });
      assert.deepEqual(sshEndpoint(i), { host: '203.0.113.7', port: 41022, via: 'direct' });
      assert.deepEqual(endpointFor(i, 'auto'), { host: '203.0.113.7', port: 41022, via: 'direct' });
      assert.deepEqual(
        endpointFor(i, 'proxy'),
        { host: 'ssh5.example.net', port: 12346, via: 'proxy' },
        'Connect set to the proxy still goes one port up',
      );
    });

    it("maps only Jupyter's port 8080, not 22: the proxy one port up is used", () => {
      const i = launched('jupyter_direc ssh_proxy', {
        public_ipaddr: '203.0.113.7',
        ports: { '8080/tcp': [{ HostIp: '0.0.0.0', HostPort: '41023' }] },
      });
      assert.deepEqual(sshEndpoint(i), { host: 'ssh5.example.net', port: 12346, via: 'proxy' });
    });

    it('refuses an ssh_port with no port above it, naming the field, and shows the same port in the tooltip', () => {
      const top = { ...launched('jupyter'), ssh_port: 65535 } as Instance;
      assert.throws(
        () => sshEndpoint(top),
        (e) => e instanceof UnusableSshAddress && e.field === 'ssh_port' && /65536 is not a port/.test(e.message),
      );
      assert.equal(proxySshPort(top), undefined);
      assert.equal(proxySshPort(launched('jupyter_proxy ssh_proxy')), 12346);
      assert.equal(proxySshPort(launched('ssh_proxy')), 12345);
      const shown = presentInstance(
        { ...launched('jupyter_proxy ssh_proxy'), actual_status: 'running', intended_status: 'running' },
        { nowMs: Date.now() },
      );
      const tooltip = typeof shown.tooltip === 'string' ? shown.tooltip : JSON.stringify(shown.tooltip);
      assert.match(tooltip, /\| SSH \| ssh5\.example\.net:12346 \|/);
    });
  });

  describe('properties', () => {
    const metachars = fc.constantFrom(...`;&|$\`'"\\ \t\n\r<>(){}[]*?!#~%=-.:,@/_aZ09`.split(''));
    const anyHost = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: metachars }),
      fc.ipV4(),
      fc.ipV6(),
      fc.domain(),
      fc
        .tuple(fc.oneof(fc.ipV4(), fc.domain(), fc.ipV6()), fc.string({ unit: metachars }), fc.boolean())
        .map(([h, s, before]) => (before ? s + h : h + s)),
    );

    for (const [field, make] of [
      ['ssh_host', (v: string) => proxy(v)],
      ['public_ipaddr', (v: string) => direct(v)],
    ] as const) {
      it(`any string as ${field} gives a clear error or a command of the strict shape`, () => {
        fc.assert(
          fc.property(anyHost, (host) => {
            const got = copied(make(host));
            // A blank direct address is one not sent yet: the proxy is used.
            if (host.trim() === '') return got === (field === 'ssh_host' ? undefined : 'ssh -p 12345 root@ssh5.example.net');
            if (got === undefined) return false;
            if (got instanceof UnusableSshAddress) {
              return (
                got.field === field &&
                got.message.includes(`unusable ${field} (`) &&
                // eslint-disable-next-line no-control-regex
                !/[\u0000-\u001f\u007f]/.test(got.message) &&
                got.message.length < 400
              );
            }
            const m = SAFE_COMMAND.exec(got);
            return m !== null && m[2] === host.trim() && m[2]!.length <= 253;
          }),
          { numRuns: 2000 },
        );
      });
    }

    it('every IPv4 and IPv6 address and every DNS name of 253 characters or fewer is accepted as it is', () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.ipV4(),
            fc.ipV6(),
            fc.domain().filter((d) => d.length <= 253),
          ),
          fc.integer({ min: 1, max: 65535 }),
          (host, port) => {
            return copied(proxy(host, port)) === `ssh -p ${port} root@${host}`;
          },
        ),
        { numRuns: 1000 },
      );
    });

    it('any number as a port gives an integer 1..65535 in the command or a clear error', () => {
      fc.assert(
        fc.property(fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, 65536, Number.NaN, -0)), (port) => {
          const got = copied(direct('203.0.113.7', port));
          if (got instanceof UnusableSshAddress)
            return got.field === 'ports["22/tcp"].HostPort' && !(Number.isInteger(port) && port >= 1 && port <= 65535);
          return got === `ssh -p ${port} root@203.0.113.7` && Number.isInteger(port) && port >= 1 && port <= 65535;
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe('in a real shell', function () {
    this.timeout(30_000);
    const dir = tempDirForSuite('gpu-rental-ssh-', { each: true });

    /** Runs a script in bash in `dir()`, with `ssh` a shell function that only prints its arguments. */
    const bash = (script: string) =>
      execFileSync('bash', ['-c', `ssh() { printf '%s\\n' "$@"; }\n${script}`], {
        cwd: dir(),
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
    const touchers = [
      'x; touch pwned',
      '$(touch pwned)',
      '`touch pwned`',
      'x\ntouch pwned',
      "'; touch pwned; '",
      '"$(touch pwned)"',
      "\\'; touch pwned #",
      'x && touch pwned',
      'x | touch pwned',
      '-oProxyCommand=touch pwned',
    ];

    it('runs a payload when it is pasted unchecked (the harness sees it)', () => {
      bash('ssh -p 22 root@x; touch pwned');
      assert.ok(existsSync(join(dir(), 'pwned')));
    });

    it('pastes no payload host: each is refused, and nothing runs', () => {
      for (const payload of touchers) {
        for (const instance of [proxy(payload), direct(payload)]) {
          const got = copied(instance);
          if (typeof got === 'string') bash(got);
          assert.ok(!existsSync(join(dir(), 'pwned')), `${JSON.stringify(payload)} ran when pasted as ${String(got)}`);
          assert.ok(got instanceof UnusableSshAddress, `${JSON.stringify(payload)} was copied as ${String(got)}`);
        }
      }
    });

    it('a copied command hands ssh exactly its three arguments', () => {
      assert.equal(bash(copied(direct('2001:db8::7', 41022)) as string), '-p\n41022\nroot@2001:db8::7\n');
      assert.equal(bash(copied(proxy('ssh5.example.net', 12345)) as string), '-p\n12345\nroot@ssh5.example.net\n');
    });

    it('shell quoting alone keeps a payload one inert word', () => {
      const payloads = [...touchers, "it's", '', 'a b\tc', '\\', "''''", '$HOME', '!!'];
      const script = `printf '%s\\0' ${payloads.map(shellQuote).join(' ')}`;
      assert.equal(execFileSync('bash', ['-n', '-c', script], { cwd: dir(), encoding: 'utf8' }), '', 'the quoted words parse');
      assert.deepEqual(bash(script).split('\0').slice(0, -1), payloads, 'each payload came back as one word, unchanged');
      assert.ok(!existsSync(join(dir(), 'pwned')), 'nothing ran');
    });
  });
});
