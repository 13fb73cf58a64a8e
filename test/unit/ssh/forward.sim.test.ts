import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { SshConnector, type PreparedHost } from '../../../src/core/ssh/connector';
import { PortForwards, freeLocalPort, portAccepts, startPortForward, type PortForward } from '../../../src/core/ssh/forward';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { SshConfigManager, sshPaths } from '../../../src/core/ssh/manager';
import { waitForSshBanner } from '../../../src/core/ssh/probe';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, MemoryLogger, startSimulator, type Marketplace, instanceIn } from '../../support';

function listenOn(server: Server | HttpServer, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

const close = (server: Server | HttpServer) => new Promise<void>((resolve) => server.close(() => resolve()));

/** A forward without an ssh process: ends when stopped, or when the test ends it ("ssh died"). */
function fakeForward(instanceId: number, remotePort: number) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const state = { stops: 0 };
  const forward: PortForward = {
    instanceId,
    remotePort,
    localPort: 50_000 + remotePort,
    url: `http://localhost:${50_000 + remotePort}/`,
    stop: () => {
      state.stops++;
      end();
    },
    ended,
  };
  return { forward, state, end };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('local ports for forwards', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(close));
  });

  it('gives the preferred port when it is free', async () => {
    const probe = createServer();
    const free = await listenOn(probe);
    await close(probe);
    assert.equal(await freeLocalPort(free), free);
  });

  it('gives another port when the preferred one is taken, and any port when none is preferred', async () => {
    const taken = createServer();
    servers.push(taken);
    const port = await listenOn(taken);
    const other = await freeLocalPort(port);
    assert.notEqual(other, port);
    assert.ok(other > 0 && other < 65536);
    assert.equal(await portAccepts(other), false, 'the port it gives is not in use');
    const any = await freeLocalPort();
    assert.ok(any > 0 && any < 65536);
  });
});

describe('the forwards of a window', () => {
  it('finds a forward by instance and port, and lists them by instance', () => {
    const forwards = new PortForwards();
    const a = fakeForward(1, 8080);
    const b = fakeForward(1, 6006);
    const c = fakeForward(2, 8080);
    for (const f of [a, b, c]) forwards.add(f.forward);
    assert.equal(forwards.find(1, 8080), a.forward);
    assert.equal(forwards.find(2, 8080), c.forward);
    assert.equal(forwards.find(2, 6006), undefined);
    assert.deepEqual(forwards.list(1), [a.forward, b.forward]);
    assert.equal(forwards.list().length, 3);
    forwards.dispose();
  });

  it("stops an instance's forwards and only those", () => {
    const forwards = new PortForwards();
    const a = fakeForward(1, 8080);
    const b = fakeForward(1, 6006);
    const c = fakeForward(2, 8080);
    for (const f of [a, b, c]) forwards.add(f.forward);
    forwards.stopInstance(1);
    assert.deepEqual([a.state.stops, b.state.stops, c.state.stops], [1, 1, 0]);
    assert.deepEqual(forwards.list(), [c.forward]);
    assert.equal(forwards.find(1, 8080), undefined);
    forwards.stopInstance(1);
    assert.deepEqual([a.state.stops, b.state.stops], [1, 1], 'nothing left to stop');
    forwards.dispose();
  });

  it('drops a forward whose ssh ended by itself', async () => {
    const forwards = new PortForwards();
    const a = fakeForward(3, 8888);
    forwards.add(a.forward);
    a.end();
    await tick();
    assert.equal(forwards.find(3, 8888), undefined);
    assert.equal(a.state.stops, 0);
  });

  it('stops every forward when disposed', () => {
    const forwards = new PortForwards();
    const all = [fakeForward(1, 1), fakeForward(2, 2), fakeForward(3, 3)];
    for (const f of all) forwards.add(f.forward);
    forwards.dispose();
    assert.deepEqual(
      all.map((f) => f.state.stops),
      [1, 1, 1],
    );
    assert.deepEqual(forwards.list(), []);
  });
});

(sshdAvailable() && process.getuid?.() === 0 ? describe : describe.skip)('port forwards over real ssh', function () {
  this.timeout(60_000);
  let sim: Marketplace;
  let client: GpuRentalClient;
  let home: string;
  let host: PreparedHost;
  let instanceId: number;
  let web: HttpServer;
  let webPort: number;
  const BODY = `hello from the instance, test process ${process.pid}`;
  const started: PortForward[] = [];

  before(async () => {
    // A seed of its own: sshd ports follow the seed, and other simulators (seed 1) may be running here.
    sim = await startSimulator({ ssh: true, bootSeconds: 0.5, seed: 12 });
    ({ client } = clientFor(sim.url, DEMO_KEY));
    home = await mkdtemp(join(tmpdir(), 'gpu-rental-forward-'));
    const key = await generateKey(join(home, '.ssh', 'id_ed25519'), 'gpu-rental forward test');
    await client.sshKeys.create(key.publicKey);
    const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    ({ instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 }));
    const instance = await instanceIn(client, instanceId, 'running', 15_000);
    const config = new SshConfigManager(sshPaths(join(home, '.ssh', 'config'), home), new MemoryLogger());
    const connector = new SshConnector({
      keys: () => client.sshKeys,
      config: () => config,
      findKey: async () => key,
      createKey: async () => undefined,
      logger: new MemoryLogger(),
    });
    host = await connector.prepare(instance);
    await waitForSshBanner(host.endpoint.host, host.endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
    // The simulated instance is this machine: a port "on the instance" is a port here.
    web = createHttpServer((_req, res) => res.end(BODY));
    webPort = await listenOn(web);
  });
  after(async () => {
    for (const f of started) f.stop();
    await Promise.all(started.map((f) => f.ended));
    if (web) await close(web);
    await sim?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const forward = async (over: Partial<Parameters<typeof startPortForward>[0]> = {}) => {
    const f = await startPortForward({
      instanceId,
      alias: host.alias,
      remotePort: webPort,
      localPort: await freeLocalPort(),
      sshArgs: ['-F', host.hostFile],
      timeoutMs: 15_000,
      ...over,
    });
    started.push(f);
    return f;
  };

  it("serves the instance's port on a local one, and stop() ends it", async () => {
    const f = await forward();
    assert.equal(f.instanceId, instanceId);
    assert.equal(f.remotePort, webPort);
    assert.notEqual(f.localPort, webPort);
    assert.equal(f.url, `http://localhost:${f.localPort}/`);
    const res = await fetch(f.url);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), BODY);

    f.stop();
    await f.ended;
    assert.equal(await portAccepts(f.localPort), false, 'the local port is closed once ssh ends');
    f.stop(); // a second stop is harmless
  });

  it("ends with the instance's forwards, and with the window", async () => {
    const forwards = new PortForwards();
    const first = await forward();
    forwards.add(first);
    assert.equal(forwards.find(instanceId, webPort), first);
    forwards.stopInstance(instanceId);
    await first.ended;
    assert.equal(forwards.find(instanceId, webPort), undefined);

    const second = await forward();
    forwards.add(second);
    assert.equal(await (await fetch(second.url)).text(), BODY);
    forwards.dispose();
    await second.ended;
    assert.equal(await portAccepts(second.localPort), false);
  });

  it('rejects, naming the port and the instance, when ssh cannot connect', async () => {
    const probe = createServer();
    const closedPort = await listenOn(probe);
    await close(probe);
    const t0 = Date.now();
    await assert.rejects(
      startPortForward({
        instanceId: 7,
        alias: '127.0.0.1',
        remotePort: 8080,
        localPort: await freeLocalPort(),
        sshArgs: ['-F', '/dev/null', '-o', 'ConnectTimeout=2', '-o', `Port=${closedPort}`],
      }),
      /^Error: Could not forward port 8080 of instance #7: ssh: connect to host 127\.0\.0\.1 port \d+: Connection refused/,
    );
    await assert.rejects(
      startPortForward({
        instanceId: 7,
        alias: 'gpu-rental-nowhere.invalid',
        remotePort: 8080,
        localPort: await freeLocalPort(),
        sshArgs: ['-F', '/dev/null', '-o', 'ConnectTimeout=2'],
      }),
      /^Error: Could not forward port 8080 of instance #7: ssh: Could not resolve hostname gpu-rental-nowhere\.invalid/,
    );
    assert.ok(Date.now() - t0 < 6_000, `took ${Date.now() - t0} ms`);
  });
});
