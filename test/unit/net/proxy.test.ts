// The HTTP chunk as it ships: dist/undici.js is built by esbuild.mjs into a private folder before
// the tests, so that a bundling regression (a module left out, a require of vscode) fails here.
// Every request goes to servers on this machine: the simulator, a TLS or TCP front before it, and a
// recording proxy that maps marketplace.test to 127.0.0.1 (the client never resolves that name).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isApiError } from '../../../src/core/api/errors';
import type { OwnedDispatcher, ProxySettings } from '../../../src/ui/net/undici';
import { hasIpv6Loopback, selfSignedCertificate, startFront, startProxy, type Front, type RecordingProxy } from '../../harness/proxy';
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
