// Which agent options each proxy address gets: the pure decision behind the dispatcher. The
// requests through real proxies of each kind are in proxy.test.ts.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { proxyAgentOptions, readProxyAddress, type ProxyKind } from '../../../src/ui/net/proxyAddress';

/** Every scheme VS Code's http.proxy accepts. */
const VS_CODE_SCHEMES = ['http', 'https', 'socks', 'socks4', 'socks4a', 'socks5', 'socks5h'];

const refusal = (address: string): string => {
  try {
    readProxyAddress(address);
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail(`${address} was accepted`);
};

describe('proxy address: which agent options each scheme gets', () => {
  const cases: Array<[address: string, kind: ProxyKind, uri: string, host: string]> = [
    ['http://127.0.0.1:3128', 'http', 'http://127.0.0.1:3128/', '127.0.0.1:3128'],
    ['127.0.0.1:3128', 'http', 'http://127.0.0.1:3128/', '127.0.0.1:3128'],
    ['https://proxy.example:8443', 'https', 'https://proxy.example:8443/', 'proxy.example:8443'],
    ['socks5://127.0.0.1:1080', 'socks5', 'socks5://127.0.0.1:1080', '127.0.0.1:1080'],
    ['SOCKS5://Proxy.Example:9050/', 'socks5', 'socks5://proxy.example:9050', 'proxy.example:9050'],
    ['socks5h://proxy.example:1081', 'socks5', 'socks5://proxy.example:1081', 'proxy.example:1081'],
    ['socks://proxy.example', 'socks5', 'socks5://proxy.example:1080', 'proxy.example:1080'],
    ['socks5://[::1]:1080', 'socks5', 'socks5://[::1]:1080', '[::1]:1080'],
  ];
  for (const [address, kind, uri, host] of cases) {
    it(`${address}: a ${kind} proxy at ${uri}`, () => {
      const proxy = readProxyAddress(address);
      assert.deepEqual(proxy, { kind, uri, host, credentials: undefined });
    });
  }

  for (const strictSSL of [true, false]) {
    it(`only an https:// proxy gets proxyTls (TLS to the proxy itself); strictSSL ${strictSSL} reaches the service's TLS`, () => {
      const tls = { rejectUnauthorized: strictSSL };
      const options = (address: string) => proxyAgentOptions(readProxyAddress(address)!, strictSSL);
      assert.deepEqual(options('https://proxy.example:8443'), { uri: 'https://proxy.example:8443/', requestTls: tls, proxyTls: tls });
      for (const address of [
        'http://proxy.example:3128',
        'socks5://proxy.example:1080',
        'socks5h://proxy.example',
        'socks://proxy.example',
      ]) {
        const got = options(address);
        assert.equal('proxyTls' in got, false, `${address} must not be spoken to over TLS`);
        assert.deepEqual(got.requestTls, tls);
      }
    });
  }

  it('an HTTP(S) proxy gets the credentials as Proxy-Authorization, a SOCKS5 proxy as its RFC 1929 user name and password', () => {
    const expected = `Basic ${Buffer.from('alice:p@ss:word').toString('base64')}`;
    for (const scheme of ['http', 'https']) {
      const options = proxyAgentOptions(readProxyAddress(`${scheme}://alice:p%40ss%3Aword@proxy.example:3128`)!, true);
      assert.equal(options.token, expected);
      assert.equal(options.username, undefined);
      assert.equal(options.uri, `${scheme}://proxy.example:3128/`);
    }
    for (const scheme of ['socks5', 'socks5h', 'socks']) {
      const options = proxyAgentOptions(readProxyAddress(`${scheme}://alice:p%40ss%3Aword@proxy.example:1080`)!, true);
      assert.deepEqual(options, {
        uri: 'socks5://proxy.example:1080',
        requestTls: { rejectUnauthorized: true },
        username: 'alice',
        password: 'p@ss:word',
      });
    }
  });

  it('credentials are never part of the URI undici is given, the host in messages, or a refusal (property, 500 cases)', () => {
    const secret = fc.string({ minLength: 1, maxLength: 24 }).map((s) => `s3cr3t-${s}`);
    fc.assert(
      fc.property(fc.constantFrom(...VS_CODE_SCHEMES, 'ftp'), secret, secret, (scheme, user, password) => {
        const address = `${scheme}://${encodeURIComponent(user)}:${encodeURIComponent(password)}@proxy.example:1080`;
        let text: string;
        try {
          const proxy = readProxyAddress(address)!;
          assert.deepEqual(proxy.credentials, { user, password });
          const options = proxyAgentOptions(proxy, true);
          text = `${proxy.uri} ${proxy.host} ${options.uri}`;
        } catch (error) {
          text = (error as Error).message;
        }
        assert.doesNotMatch(text, /s3cr3t/);
      }),
      { seed: 20_260_301, numRuns: 500 },
    );
  });

  for (const scheme of ['socks4', 'socks4a']) {
    it(`refuses ${scheme}://, saying that SOCKS4 is not supported and what to use instead`, () => {
      const message = refusal(`${scheme}://bob:hunter2@127.0.0.1:1080`);
      assert.match(message, new RegExp(`starts with ${scheme}://`));
      assert.match(message, /SOCKS4/);
      assert.match(message, /socks5:\/\/host:port/);
      assert.match(message, /http:\/\/host:port/);
      assert.ok(!message.includes('hunter2') && !message.includes('bob'), message);
    });
  }

  it('the message for another scheme lists exactly the schemes that are accepted', () => {
    const message = refusal('ftp://proxy.example:21');
    assert.match(message, /\(got ftp:\/\/\)/);
    const listed = [...message.replace(/\(got .*\)/, '').matchAll(/([a-z0-9]+):\/\//g)].map((m) => m[1]!);
    const accepted = VS_CODE_SCHEMES.filter((scheme) => {
      try {
        return readProxyAddress(`${scheme}://proxy.example:1080`) !== undefined;
      } catch {
        return false;
      }
    });
    assert.deepEqual(listed.sort(), accepted.sort());
    assert.deepEqual(accepted.sort(), ['http', 'https', 'socks', 'socks5', 'socks5h']);
  });

  it('an address that is not a URL is refused without echoing it', () => {
    const message = refusal('http://bob:hunter2@proxy host:8080');
    assert.match(message, /is not a URL; use the form http:\/\/host:port or socks5:\/\/host:port/);
    assert.ok(!message.includes('hunter2'));
  });

  it('an empty address means no proxy', () => {
    assert.equal(readProxyAddress(undefined), undefined);
    assert.equal(readProxyAddress('   '), undefined);
  });
});
