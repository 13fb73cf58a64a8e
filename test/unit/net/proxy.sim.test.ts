// The HTTP chunk as it ships: dist/undici.js is built by esbuild.mjs into a private folder before
// the tests, so that a bundling regression (a module left out, a require of vscode) fails here.
// Every request goes to servers on this machine: the simulator, a TLS or TCP front before it, and a
// recording proxy (HTTP in clear, HTTP over TLS, or SOCKS5) that maps marketplace.test to 127.0.0.1
// (the client never resolves that name).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isApiError } from '../../../src/core/api/errors';
import type { OwnedDispatcher, ProxySettings } from '../../../src/ui/net/undici';
import { hasIpv6Loopback, selfSignedCertificate, startFront, startProxy, type Front, type RecordingProxy } from '../../harness/proxy';
import { startSocksProxy, type SocksProxy } from '../../harness/socksProxy';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace, instanceIn } from '../../support';

type Chunk = typeof import('../../../src/ui/net/undici');

const REPO = join(__dirname, '..', '..', '..');
const HOST = 'marketplace.test';
const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'] as const;

describe('proxy: the built dist/undici.js', function () {
  this.timeout(60_000);
  let outdir: string;
  let chunk: Chunk;
  let sim: Marketplace;
  let front: Front;
  let proxy: RecordingProxy;
  const owned: OwnedDispatcher[] = [];
  const saved = new Map<string, string | undefined>();

  /** A dispatcher from the built chunk; `env` defaults to none, so the machine's variables cannot interfere. */
  const dispatcher = (settings: Partial<ProxySettings>, env: Record<string, string | undefined> | 'process' = {}) => {
    const full = { proxy: undefined, noProxy: [], strictSSL: true, ...settings };
    const d = env === 'process' ? chunk.createDispatcher(full) : chunk.createDispatcher(full, env);
    owned.push(d);
    return d;
  };
  const httpsUrl = () => `https://${HOST}:${front.port}`;

  before(async () => {
    outdir = mkdtempSync(join(tmpdir(), 'gpu-rental-chunk-'));
    execFileSync(process.execPath, ['esbuild.mjs', '--chunk', `--outdir=${outdir}`], { cwd: REPO, stdio: 'pipe' });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    chunk = require(join(outdir, 'undici.js')) as Chunk;
    sim = await startSimulator();
    front = await startFront({ targetPort: sim.port, tls: selfSignedCertificate(HOST) });
    for (const name of PROXY_VARIABLES) saved.set(name, process.env[name]);
  });
  after(async () => {
    await front?.stop();
    await sim?.stop();
    rmSync(outdir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    proxy = await startProxy({ hosts: { [HOST]: '127.0.0.1' } });
  });
  afterEach(async () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await Promise.all(owned.splice(0).map((d) => d.close()));
    await proxy.stop();
  });

  it('is plain Node: the chunk does not require vscode, nor the extension bundle', () => {
    const text = readFileSync(join(outdir, 'undici.js'), 'utf8');
    assert.doesNotMatch(text, /require\(["']vscode["']\)/);
    assert.doesNotMatch(text, /__gpuRentalLoadStart/, 'the extension banner is not in the chunk');
    assert.equal(typeof chunk.createDispatcher, 'function');
  });

  it('signs in, searches, rents, stops and destroys over https through http.proxy; the proxy sees only CONNECT and no key', async () => {
    const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ proxy: proxy.url, strictSSL: false }) });
    const before = sim.control.state().requestCount;

    const user = await client.account.currentUser();
    assert.ok((user.credit ?? 0) > 0);
    const offers = await client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 3,
    });
    assert.equal(offers.length, 3);
    const { instanceId: id } = await client.instances.create(offers[0]!.id, { image: 'ubuntu:22.04', disk: 8, label: 'via-proxy' });
    await instanceIn(client, id, 'running', 10_000);
    await client.instances.stop(id);
    await instanceIn(client, id, 'stopped', 10_000);
    await client.instances.destroy(id);
    await assert.rejects(client.instances.show(id), (e) => isApiError(e, 'not_found'));

    const served = sim.control.state().requestCount - before;
    assert.ok(served >= 6, `the simulator answered ${served} requests`);
    const connects = proxy.connects();
    assert.ok(connects.length > 0, 'the proxy carried the requests');
    assert.deepEqual(new Set(connects), new Set([`${HOST}:${front.port}`]));
    assert.ok(
      proxy.records.every((r) => r.line.startsWith('CONNECT ')),
      'nothing but CONNECT reached the proxy in clear',
    );
    assert.ok(proxy.tunnelBytes() > 1000, 'the traffic went through the tunnel');
    assert.ok(front.connections() > 0);
    for (const secret of [DEMO_KEY, 'authorization', 'Authorization', 'Bearer', '/api/v0/']) {
      assert.equal(proxy.saw(secret), false, `the proxy read ${secret === DEMO_KEY ? 'the key' : secret}`);
    }
  });

  it('refuses the self-signed certificate with strictSSL, saying why, and sends nothing', async () => {
    const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ proxy: proxy.url, strictSSL: true }), maxAttempts: 1 });
    const before = sim.control.state().requestCount;
    await assert.rejects(client.account.currentUser(), (e) => {
      assert.ok(isApiError(e, 'network'), String(e));
      assert.match(e.message, new RegExp(`TLS certificate of ${HOST}:${front.port} is not trusted \\(DEPTH_ZERO_SELF_SIGNED_CERT\\)`));
      assert.match(e.message, /http\.proxyStrictSSL/);
      assert.ok(!e.message.includes(DEMO_KEY));
      return true;
    });
    assert.equal(sim.control.state().requestCount, before, 'no request reached the service');
    assert.equal(proxy.connects().length, 1);
    assert.equal(proxy.saw(DEMO_KEY), false);
  });

  it('checks certificates on direct connections even with strictSSL off: it applies to proxied traffic only', async () => {
    const { client } = clientFor(`https://127.0.0.1:${front.port}`, DEMO_KEY, {
      dispatcher: dispatcher({ proxy: proxy.url, strictSSL: false }),
      maxAttempts: 1,
    });
    await assert.rejects(
      client.account.currentUser(),
      (e) => isApiError(e, 'network') && /certificate of 127\.0\.0\.1:\d+ is not trusted/.test(e.message),
    );
    assert.deepEqual(proxy.records, [], 'loopback went direct');
  });

  it('sends the credentials in the proxy URL, and says what to do when they are missing', async () => {
    await proxy.stop();
    proxy = await startProxy({ hosts: { [HOST]: '127.0.0.1' }, auth: { user: 'alice', password: 'p@ss:word' } });
    const withAuth = proxy.url.replace('http://', 'http://alice:p%40ss%3Aword@');
    const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ proxy: withAuth, strictSSL: false }) });
    assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
    const expected = `Basic ${Buffer.from('alice:p@ss:word').toString('base64')}`;
    assert.ok(proxy.records.length > 0 && proxy.records.every((r) => r.headers['proxy-authorization'] === expected));

    const { client: anonymous } = clientFor(httpsUrl(), DEMO_KEY, {
      dispatcher: dispatcher({ proxy: proxy.url, strictSSL: false }),
      maxAttempts: 1,
    });
    await assert.rejects(
      anonymous.account.currentUser(),
      (e) => isApiError(e, 'network') && /asked for credentials \(407/.test(e.message) && e.message.includes(`127.0.0.1:${proxy.port}`),
    );
  });

  it('never echoes a proxy address it cannot read, credentials included', async () => {
    const { client } = clientFor(httpsUrl(), DEMO_KEY, {
      dispatcher: dispatcher({ proxy: 'http://bob:hunter2@proxy host:8080', strictSSL: false }),
      maxAttempts: 1,
    });
    await assert.rejects(
      client.account.currentUser(),
      (e) => isApiError(e, 'network') && /proxy address .* is not a URL/.test(e.message) && !e.message.includes('hunter2'),
    );
  });

  /** Signs in, searches, rents, stops and destroys through `d`; what a user behind a proxy relies on. */
  const wholeRound = async (d: OwnedDispatcher) => {
    const { client, logger } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: d });
    const before = sim.control.state().requestCount;
    assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
    const offers = await client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 2,
    });
    assert.equal(offers.length, 2);
    const { instanceId: id } = await client.instances.create(offers[0]!.id, { image: 'ubuntu:22.04', disk: 8, label: 'via-socks' });
    await instanceIn(client, id, 'running', 10_000);
    assert.ok(
      (await client.instances.list()).some((i) => i.id === id),
      'the instance is listed',
    );
    await client.instances.stop(id);
    await instanceIn(client, id, 'stopped', 10_000);
    await client.instances.destroy(id);
    await assert.rejects(client.instances.show(id), (e) => isApiError(e, 'not_found'));
    assert.ok(sim.control.state().requestCount - before >= 7, 'the simulator answered every step');
    return logger;
  };

  describe('through a SOCKS5 proxy', () => {
    let socks: SocksProxy;
    const auth = { user: 'alice', password: 'p@ss:w0rd' };
    const withAuth = (url: string, user = 'alice', password = 'p%40ss%3Aw0rd') => url.replace('socks5://', `socks5://${user}:${password}@`);
    afterEach(async () => {
      await socks?.stop();
    });

    /** Whether any of the proxy's credentials appear in `text`. */
    const namesCredentials = (text: string) => ['alice', 'p@ss', 'p%40ss', 'w0rd', 'wrong-pass'].some((s) => text.includes(s));

    it('signs in, searches, rents, stops and destroys over https; the proxy hears SOCKS5, not TLS, and never the key', async () => {
      socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' } });
      await wholeRound(dispatcher({ proxy: socks.url, strictSSL: false }));

      assert.ok(socks.records.length > 0, 'the proxy carried the requests');
      assert.deepEqual(
        new Set(socks.records.map((r) => r.greeting)),
        new Set(['socks5']),
        'every connection opened with a SOCKS5 greeting',
      );
      assert.ok(socks.records.every((r) => r.method === 'none' && r.reply === 0));
      assert.deepEqual(new Set(socks.targets()), new Set([`${HOST}:${front.port}`]));
      assert.ok(
        socks.records.every((r) => r.addressType === 'domain'),
        'the host name went to the proxy to resolve',
      );
      assert.ok(socks.tunnelBytes() > 1000, 'the traffic went through the tunnel');
      for (const secret of [DEMO_KEY, 'Bearer', '/api/v0/']) {
        assert.equal(socks.saw(secret), false, `the proxy read ${secret === DEMO_KEY ? 'the key' : secret}`);
      }
      assert.deepEqual(proxy.records, [], 'the HTTP proxy saw nothing');
    });

    it('signs in with the user name and password in socks5://user:password@, which reach no message or log line', async () => {
      socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' }, auth });
      const logger = await wholeRound(dispatcher({ proxy: withAuth(socks.url), strictSSL: false }));
      assert.ok(socks.records.length > 0);
      assert.ok(
        socks.records.every((r) => r.greeting === 'socks5' && r.method === 'password' && r.user === 'alice' && r.authenticated === true),
        JSON.stringify(socks.records),
      );
      assert.ok(!logger.lines.some(namesCredentials), logger.lines.join('\n'));
    });

    for (const scheme of ['socks5h', 'socks'] as const) {
      it(`${scheme}:// is SOCKS5 too, with the host name resolved by the proxy`, async () => {
        socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' } });
        const { client } = clientFor(httpsUrl(), DEMO_KEY, {
          dispatcher: dispatcher({ proxy: socks.url.replace('socks5://', `${scheme}://`), strictSSL: false }),
        });
        assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
        assert.deepEqual(new Set(socks.targets()), new Set([`${HOST}:${front.port}`]));
        assert.ok(socks.records.every((r) => r.greeting === 'socks5' && r.addressType === 'domain'));
      });
    }

    it('reaches a SOCKS5 proxy at an IPv6 address, socks5://[::1]:port', async function () {
      if (!(await hasIpv6Loopback())) this.skip();
      socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' }, listen: '::1' });
      assert.match(socks.url, /^socks5:\/\/\[::1\]:\d+$/);
      const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ proxy: socks.url, strictSSL: false }) });
      assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
      assert.deepEqual(new Set(socks.targets()), new Set([`${HOST}:${front.port}`]));
    });

    it('says so when the proxy refuses the password, naming neither it nor the user, and sends nothing', async () => {
      socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' }, auth });
      const { client, logger } = clientFor(httpsUrl(), DEMO_KEY, {
        dispatcher: dispatcher({ proxy: withAuth(socks.url, 'alice', 'wrong-pass'), strictSSL: false }),
        maxAttempts: 1,
      });
      const before = sim.control.state().requestCount;
      await assert.rejects(client.account.currentUser(), (e) => {
        assert.ok(isApiError(e, 'network'), String(e));
        assert.match(e.message, new RegExp(`SOCKS5 proxy 127\\.0\\.0\\.1:${socks.port} refused the user name and password`));
        assert.ok(!namesCredentials(e.message), e.message);
        return true;
      });
      assert.ok(!logger.lines.some(namesCredentials), logger.lines.join('\n'));
      assert.deepEqual(
        socks.records.map((r) => r.authenticated),
        [false],
      );
      assert.equal(sim.control.state().requestCount, before, 'no request reached the service');
    });

    it('says to put the credentials in the address when the proxy asks for them', async () => {
      socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' }, auth });
      const { client } = clientFor(httpsUrl(), DEMO_KEY, {
        dispatcher: dispatcher({ proxy: socks.url, strictSSL: false }),
        maxAttempts: 1,
      });
      await assert.rejects(
        client.account.currentUser(),
        (e) =>
          isApiError(e, 'network') &&
          e.message.includes(`SOCKS5 proxy 127.0.0.1:${socks.port} asked for a user name and password`) &&
          e.message.includes('socks5://user:password@host:port'),
      );
      assert.deepEqual(
        socks.records.map((r) => r.method),
        ['refused'],
      );
    });

    it('says which target the proxy would not reach', async () => {
      socks = await startSocksProxy({});
      const { client } = clientFor(httpsUrl(), DEMO_KEY, {
        dispatcher: dispatcher({ proxy: socks.url, strictSSL: false }),
        maxAttempts: 1,
      });
      await assert.rejects(
        client.account.currentUser(),
        (e) =>
          isApiError(e, 'network') &&
          e.message.includes(
            `SOCKS5 proxy 127.0.0.1:${socks.port} could not connect to ${HOST}:${front.port} (Connection not allowed by ruleset)`,
          ),
      );
      assert.deepEqual(
        socks.records.map((r) => r.reply),
        [2],
      );
    });

    it('checks the service certificate inside the tunnel with strictSSL, and sends nothing', async () => {
      socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' } });
      const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ proxy: socks.url, strictSSL: true }), maxAttempts: 1 });
      const before = sim.control.state().requestCount;
      await assert.rejects(client.account.currentUser(), (e) => {
        assert.ok(isApiError(e, 'network'), String(e));
        assert.match(e.message, new RegExp(`TLS certificate of ${HOST}:${front.port} is not trusted \\(DEPTH_ZERO_SELF_SIGNED_CERT\\)`));
        return true;
      });
      assert.equal(sim.control.state().requestCount, before);
      assert.deepEqual(socks.targets(), [`${HOST}:${front.port}`], 'the tunnel was opened, the TLS inside it refused');
      assert.equal(socks.saw(DEMO_KEY), false);
    });

    it('HTTP_PROXY=socks5:// carries plain http (a tunnel, the request inside)', async () => {
      socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' } });
      const d = dispatcher({}, { HTTP_PROXY: socks.url });
      const res = await d.request({ origin: `http://${HOST}:${sim.port}`, path: '/api/v0/users/current/', method: 'GET' });
      assert.equal(res.statusCode, 401, 'the simulator answered, without a key');
      await res.body.text();
      assert.deepEqual(socks.targets(), [`${HOST}:${sim.port}`]);
      assert.ok(socks.saw('GET /api/v0/users/current/'), 'the request went inside the tunnel');
    });

    it('says that an HTTP proxy written as socks5:// does not answer as SOCKS5', async () => {
      const { client } = clientFor(httpsUrl(), DEMO_KEY, {
        dispatcher: dispatcher({ proxy: proxy.url.replace('http://', 'socks5://'), strictSSL: false }),
        maxAttempts: 1,
      });
      await assert.rejects(
        client.account.currentUser(),
        (e) =>
          isApiError(e, 'network') &&
          e.message.includes(`the proxy 127.0.0.1:${proxy.port} did not answer as a SOCKS5 proxy`) &&
          e.message.includes('http://host:port'),
      );
      assert.deepEqual(proxy.records, [], 'the HTTP proxy read no request');
    });

    for (const scheme of ['socks4', 'socks4a'] as const) {
      it(`refuses ${scheme}://, which undici cannot speak, saying what to use, and connects to nothing`, async () => {
        socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' } });
        const before = sim.control.state().requestCount;
        const { client } = clientFor(httpsUrl(), DEMO_KEY, {
          dispatcher: dispatcher({ proxy: withAuth(socks.url).replace('socks5://', `${scheme}://`), strictSSL: false }),
          maxAttempts: 1,
        });
        await assert.rejects(client.account.currentUser(), (e) => {
          assert.ok(isApiError(e, 'network'), String(e));
          assert.match(e.message, new RegExp(`starts with ${scheme}://, but GPU Rental can use SOCKS version 5 only`));
          assert.match(e.message, /use a SOCKS5 proxy \(socks5:\/\/host:port/);
          assert.ok(!namesCredentials(e.message), e.message);
          return true;
        });
        assert.deepEqual(socks.records, [], 'nothing connected to the proxy');
        assert.equal(sim.control.state().requestCount, before, 'nothing went direct either');
      });
    }
  });

  describe('through an https:// proxy (TLS to the proxy)', () => {
    let secure: RecordingProxy;
    before(async () => {
      secure = await startProxy({ hosts: { [HOST]: '127.0.0.1' }, tls: selfSignedCertificate('proxy.test') });
    });
    after(async () => {
      await secure?.stop();
    });
    beforeEach(() => secure.clear());

    it('signs in, searches, rents, stops and destroys; the proxy reads CONNECT only, and never the key', async () => {
      assert.match(secure.url, /^https:\/\//);
      await wholeRound(dispatcher({ proxy: secure.url, strictSSL: false }));
      assert.ok(secure.connects().length > 0, 'the proxy, reached over TLS, carried the requests');
      assert.deepEqual(new Set(secure.connects()), new Set([`${HOST}:${front.port}`]));
      assert.ok(secure.records.every((r) => r.line.startsWith('CONNECT ')));
      assert.equal(secure.saw(DEMO_KEY), false);
      assert.equal(secure.saw('Bearer'), false);
    });

    it("refuses the proxy's self-signed certificate with strictSSL, naming the proxy, and sends nothing", async () => {
      const { client } = clientFor(httpsUrl(), DEMO_KEY, {
        dispatcher: dispatcher({ proxy: secure.url, strictSSL: true }),
        maxAttempts: 1,
      });
      const before = sim.control.state().requestCount;
      await assert.rejects(
        client.account.currentUser(),
        (e) =>
          isApiError(e, 'network') &&
          e.message.includes(`or of the proxy 127.0.0.1:${secure.port} is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)`) &&
          e.message.includes('http.proxyStrictSSL'),
      );
      assert.deepEqual(secure.records, [], 'no CONNECT was sent to a proxy whose certificate failed');
      assert.equal(sim.control.state().requestCount, before);
    });
  });

  describe('loopback is never proxied', () => {
    const fronts: Front[] = [];
    afterEach(async () => {
      await Promise.all(fronts.splice(0).map((f) => f.stop()));
    });

    const loopbackUrls = async (): Promise<string[]> => {
      const second = await startFront({ targetPort: sim.port, listen: '127.0.0.2' });
      fronts.push(second);
      const urls = [`http://127.0.0.2:${second.port}`, `http://localhost:${sim.port}`, `http://127.0.0.1:${sim.port}`];
      if (await hasIpv6Loopback()) {
        const v6 = await startFront({ targetPort: sim.port, listen: '::1' });
        fronts.push(v6);
        urls.push(`http://[::1]:${v6.port}`);
      }
      return urls;
    };

    it('with http.proxy set, 127.0.0.2, localhost, 127.0.0.1 and [::1] go direct', async () => {
      const d = dispatcher({ proxy: proxy.url, strictSSL: false });
      for (const url of await loopbackUrls()) {
        const { client } = clientFor(url, DEMO_KEY, { dispatcher: d });
        assert.ok(((await client.account.currentUser()).credit ?? 0) > 0, url);
      }
      assert.deepEqual(proxy.records, [], 'the proxy saw nothing');
    });

    it('with HTTP_PROXY and HTTPS_PROXY set and NO_PROXY empty, they still go direct', async () => {
      process.env.HTTP_PROXY = proxy.url;
      process.env.HTTPS_PROXY = proxy.url;
      process.env.NO_PROXY = '';
      const d = dispatcher({}, 'process');
      for (const url of await loopbackUrls()) {
        const { client } = clientFor(url, DEMO_KEY, { dispatcher: d });
        assert.ok(((await client.account.currentUser()).credit ?? 0) > 0, url);
      }
      assert.deepEqual(proxy.records, []);
    });
  });

  describe('environment variables', () => {
    const clear = () => {
      for (const name of PROXY_VARIABLES) delete process.env[name];
    };

    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY'] as const) {
      it(`${name} carries https requests${name === 'HTTP_PROXY' ? ' when no HTTPS_PROXY is set' : ''}`, async () => {
        clear();
        process.env[name] = proxy.url;
        const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ strictSSL: false }, 'process') });
        assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
        assert.deepEqual(new Set(proxy.connects()), new Set([`${HOST}:${front.port}`]));
        assert.equal(proxy.saw(DEMO_KEY), false);
      });
    }

    it('the lower-case variable wins over the upper-case one', async () => {
      clear();
      process.env.https_proxy = proxy.url;
      process.env.HTTPS_PROXY = 'http://127.0.0.1:1';
      const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ strictSSL: false }, 'process') });
      assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
      assert.ok(proxy.connects().length > 0);
    });

    it('http.proxy wins over the variables', async () => {
      clear();
      process.env.HTTPS_PROXY = 'http://127.0.0.1:1';
      const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ proxy: proxy.url, strictSSL: false }, 'process') });
      assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
      assert.ok(proxy.connects().length > 0);
    });

    it('HTTP_PROXY carries plain http to a host that is not loopback (a tunnel, the request inside)', async () => {
      clear();
      process.env.HTTP_PROXY = proxy.url;
      const d = dispatcher({}, 'process');
      const res = await d.request({ origin: `http://${HOST}:${sim.port}`, path: '/api/v0/users/current/', method: 'GET' });
      assert.equal(res.statusCode, 401, 'the simulator answered, without a key');
      await res.body.text();
      assert.deepEqual(proxy.connects(), [`${HOST}:${sim.port}`]);
    });

    it('a NO_PROXY entry with another port does not exempt the host', async () => {
      clear();
      process.env.HTTPS_PROXY = proxy.url;
      process.env.NO_PROXY = `${HOST}:1,other.test`;
      const { client } = clientFor(httpsUrl(), DEMO_KEY, { dispatcher: dispatcher({ strictSSL: false }, 'process') });
      assert.ok(((await client.account.currentUser()).credit ?? 0) > 0);
      assert.ok(proxy.connects().length > 0);
    });
  });

  describe('no_proxy entries', () => {
    const cases: Array<[string, string, number, boolean]> = [
      ['*', 'anything.example', 443, true],
      ['example.com', 'example.com', 443, true],
      ['example.com', 'api.example.com', 443, true],
      ['example.com', 'badexample.com', 443, false],
      ['.example.com', 'api.example.com', 443, true],
      ['*.example.com', 'api.example.com', 443, true],
      ['EXAMPLE.com', 'example.com', 443, true],
      ['example.com:8443', 'example.com', 443, false],
      ['example.com:8443', 'example.com', 8443, true],
      ['[::1]:8080', '::1', 8080, true],
      ['fd00::1', 'fd00::1', 443, true],
      ['10.0.0.0/8', '10.1.2.3', 443, true],
      ['10.0.0.0/8', '11.0.0.1', 443, false],
      ['192.168.1.0/24', '192.168.1.77', 80, true],
      ['192.168.1.0/24', '192.168.2.1', 80, false],
      ['a.test, b.test  c.test', 'c.test', 443, true],
      ['', 'example.com', 443, false],
    ];
    for (const [entries, host, port, direct] of cases) {
      it(`"${entries}" ${direct ? 'exempts' : 'does not exempt'} ${host}:${port}`, () => {
        assert.equal(chunk.parseNoProxy([entries])(host, port), direct);
      });
    }
  });
});
