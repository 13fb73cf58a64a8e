import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { GpuRentalClient } from '../../../src/core/api/client';
import type { Instance } from '../../../src/core/api/instances';
import { sshEndpoint } from '../../../src/core/instances/ssh';
import { withoutInclude } from '../../../src/core/ssh/config';
import { NoSshAddress, NoSshKey, SshConnector, type SshKeyCalls } from '../../../src/core/ssh/connector';
import { generateKey, keyFingerprintPart, type LocalKey } from '../../../src/core/ssh/localKeys';
import { SshConfigManager, sshPaths } from '../../../src/core/ssh/manager';
import { waitForSshBanner } from '../../../src/core/ssh/probe';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, eventually, MemoryLogger, startSimulator, type Marketplace, instanceIn, sshdGone } from '../../support';

const run = promisify(execFile);

/** A hand-written config: CRLF line ends, a Host * block, no final newline. */
const USER_CONFIG = 'Host *\r\n  ServerAliveInterval 60\r\n\r\nHost work\r\n  HostName 10.1.2.3\r\n  User dev\r\n# no final newline';

/** Runs `ssh <args> <alias> true` without prompts; resolves to the exit code and what ssh said. */
async function sshTrue(args: readonly string[], alias: string): Promise<{ code: number; stderr: string }> {
  try {
    await run('ssh', [...args, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', alias, 'true']);
    return { code: 0, stderr: '' };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 255, stderr: e.stderr ?? String(error) };
  }
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The client's key calls, counted. */
function countedKeys(client: GpuRentalClient) {
  const counts = { list: 0, create: 0, listForInstance: 0, attach: 0 };
  const k = client.sshKeys;
  const calls: SshKeyCalls = {
    list: () => {
      counts.list++;
      return k.list();
    },
    create: (publicKey) => {
      counts.create++;
      return k.create(publicKey);
    },
    listForInstance: (id) => {
      counts.listForInstance++;
      return k.listForInstance(id);
    },
    attach: (id, publicKey) => {
      counts.attach++;
      return k.attach(id, publicKey);
    },
  };
  return { calls, counts };
}

const copiesOf = (keys: Array<{ public_key: string }>, key: LocalKey) =>
  keys.filter((k) => keyFingerprintPart(k.public_key) === keyFingerprintPart(key.publicKey)).length;

(sshdAvailable() && process.getuid?.() === 0 ? describe : describe.skip)('SSH connector (simulator, real sshd, real ssh)', function () {
  this.timeout(60_000);
  let sim: Marketplace;
  let client: GpuRentalClient;
  let home: string;
  let key: LocalKey;
  let config: SshConfigManager;
  let instanceId: number;

  function connector(keys: SshKeyCalls, over: Partial<ConstructorParameters<typeof SshConnector>[0]> = {}) {
    const logger = new MemoryLogger();
    const c = new SshConnector({
      keys: () => keys,
      config: () => config,
      findKey: async () => key,
      createKey: async () => undefined,
      logger,
      ...over,
    });
    return { connector: c, logger };
  }

  async function running(id: number, timeoutMs = 15_000): Promise<Instance> {
    return eventually(
      async () => {
        const i = await client.instances.show(id);
        return i.actual_status === 'running' ? i : undefined;
      },
      `instance ${id} running`,
      timeoutMs,
    );
  }

  before(async () => {
    // A seed of its own: sshd ports follow the seed, and other simulators (seed 1) may be running here.
    sim = await startSimulator({ ssh: true, bootSeconds: 0.5, seed: 11 });
    ({ client } = clientFor(sim.url, DEMO_KEY));
    home = await mkdtemp(join(tmpdir(), 'gpu-rental-connector-'));
    key = await generateKey(join(home, '.ssh', 'id_ed25519'), 'gpu-rental connector test');
    const paths = sshPaths(join(home, '.ssh', 'config'), home);
    await writeFile(paths.userConfig, USER_CONFIG);
    config = new SshConfigManager(paths, new MemoryLogger());
    // Created before the key is on the account: it does not carry it.
    const [offer] = await client.offers.search({
      query: { filters: { rentable: { eq: true }, direct_port_count: { gte: 1 } }, order: [], type: 'on-demand' },
      limit: 1,
    });
    ({ instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_direct' }));
    await running(instanceId);
  });
  after(async () => {
    await sim?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('registers the key on the account once and attaches it to an instance created before it, then never again', async () => {
    assert.equal(copiesOf(await client.sshKeys.list(), key), 0);
    assert.equal(copiesOf(await client.sshKeys.listForInstance(instanceId), key), 0);
    const { calls, counts } = countedKeys(client);
    const { connector: c, logger } = connector(calls);
    const instance = await client.instances.show(instanceId);

    await c.prepare(instance);
    assert.deepEqual({ create: counts.create, attach: counts.attach }, { create: 1, attach: 1 });
    assert.equal(copiesOf(await client.sshKeys.list(), key), 1, 'on the account');
    assert.equal(copiesOf(await client.sshKeys.listForInstance(instanceId), key), 1, 'on the instance');

    await c.prepare(instance);
    assert.deepEqual(
      { create: counts.create, attach: counts.attach, list: counts.list },
      { create: 1, attach: 1, list: 1 },
      'the second connect asks the account nothing new',
    );
    assert.equal(copiesOf(await client.sshKeys.list(), key), 1);
    assert.equal(copiesOf(await client.sshKeys.listForInstance(instanceId), key), 1);
    assert.equal(logger.lines.filter((l) => l.includes('Registered the public key')).length, 1);
    assert.equal(logger.lines.filter((l) => l.includes('Attached the public key')).length, 1);
    assert.ok(
      !logger.lines.some((l) => l.includes('PRIVATE KEY') || l.includes(keyFingerprintPart(key.publicKey).split(' ')[1]!)),
      'logs name paths, not keys',
    );

    // Another window (a new connector) finds the key on the account and on the instance.
    const fresh = countedKeys(client);
    await connector(fresh.calls).connector.prepare(instance);
    assert.deepEqual({ create: fresh.counts.create, attach: fresh.counts.attach }, { create: 0, attach: 0 });
  });

  it('writes an entry real ssh logs in with, by the direct address and by the proxy', async () => {
    const { connector: c } = connector(countedKeys(client).calls);
    const instance = await client.instances.show(instanceId);

    const auto = await c.prepare(instance);
    assert.deepEqual(auto.endpoint, sshEndpoint(instance), 'auto takes the direct address when port 22 is mapped');
    assert.equal(auto.endpoint.via, 'direct');

    const direct = await c.prepare(instance, 'direct');
    assert.equal(direct.alias, 'gpu-rental-' + instanceId);
    assert.equal(direct.includeInPlace, true);
    assert.equal(direct.userConfig, join(home, '.ssh', 'config'));
    assert.deepEqual(direct.endpoint, { host: '127.0.0.1', port: Number(instance.ports!['22/tcp']![0]!.HostPort), via: 'direct' });
    assert.match(await readFile(direct.hostFile, 'utf8'), new RegExp(`^  Port ${direct.endpoint.port}$`, 'm'));
    await waitForSshBanner(direct.endpoint.host, direct.endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
    const viaDirect = await sshTrue(['-F', direct.userConfig], direct.alias);
    assert.equal(viaDirect.code, 0, viaDirect.stderr);

    const proxy = await c.prepare(instance, 'proxy');
    assert.deepEqual(proxy.endpoint, { host: instance.ssh_host, port: instance.ssh_port, via: 'proxy' });
    assert.notEqual(proxy.endpoint.port, direct.endpoint.port);
    assert.match(await readFile(proxy.hostFile, 'utf8'), new RegExp(`^  Port ${proxy.endpoint.port}$`, 'm'));
    await waitForSshBanner(proxy.endpoint.host, proxy.endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
    const viaProxy = await sshTrue(['-F', proxy.userConfig], proxy.alias);
    assert.equal(viaProxy.code, 0, viaProxy.stderr);
  });

  it('rewrites the entry after a stop and start moves the port, and ssh works again', async () => {
    const { connector: c } = connector(countedKeys(client).calls);
    const before = await c.prepare(await client.instances.show(instanceId));
    await client.instances.stop(instanceId);
    await instanceIn(client, instanceId, 'stopped', 10_000);
    await sshdGone(before.endpoint.host, before.endpoint.port);
    await client.instances.start(instanceId);
    const again = await running(instanceId);

    const after = await c.prepare(again);
    assert.notEqual(after.endpoint.port, before.endpoint.port, 'a restart moves the port, as on the real service');
    const text = await readFile(after.hostFile, 'utf8');
    assert.match(text, new RegExp(`^  Port ${after.endpoint.port}$`, 'm'));
    assert.doesNotMatch(text, new RegExp(`^  Port ${before.endpoint.port}$`, 'm'));
    await waitForSshBanner(after.endpoint.host, after.endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
    const result = await sshTrue(['-F', after.userConfig], after.alias);
    assert.equal(result.code, 0, result.stderr);
  });

  it("keeps the user's config byte for byte outside the markers, through prepare and forget", async () => {
    const { connector: c } = connector(countedKeys(client).calls);
    const instance = await client.instances.show(instanceId);
    const host = await c.prepare(instance);
    await c.prepare(instance, 'proxy');
    const text = await readFile(host.userConfig, 'utf8');
    assert.equal(text.split('Include ').length, 2, 'one Include, however many connects');
    assert.ok(text.includes(`Include ${config.includePattern}\r\n`), "the block uses the file's own CRLF line ends");
    assert.equal(withoutInclude(text).text, USER_CONFIG);

    assert.equal(await exists(config.knownHostsFile(host.alias)), true, 'the earlier logins recorded the host key');
    await c.forget(instanceId);
    assert.equal(await exists(host.hostFile), false, 'the host file is gone');
    assert.equal(await exists(config.knownHostsFile(host.alias)), false, 'so are its known hosts');
    assert.equal(withoutInclude(await readFile(host.userConfig, 'utf8')).text, USER_CONFIG);
    await config.removeInclude();
    assert.equal(await readFile(host.userConfig, 'utf8'), USER_CONFIG, 'byte-identical once the block is taken out');
  });

  it('says NoSshAddress for an instance without an address, before asking for keys', async () => {
    let asked = 0;
    const c = new SshConnector({
      keys: () => {
        asked++;
        return countedKeys(client).calls;
      },
      config: () => config,
      findKey: async () => {
        asked++;
        return key;
      },
      createKey: async () => key,
      logger: new MemoryLogger(),
    });
    const bare = { id: 987654, actual_status: 'loading' } as Instance;
    await assert.rejects(
      c.prepare(bare),
      (e: unknown) => e instanceof NoSshAddress && e.instanceId === 987654 && /#987654 has no SSH address/.test(e.message),
    );
    await assert.rejects(c.prepare({ ...bare, public_ipaddr: '127.0.0.1', ports: {} } as Instance, 'direct'), NoSshAddress);
    await assert.rejects(c.prepare(bare, 'proxy'), NoSshAddress);
    assert.equal(asked, 0);
    assert.equal(await exists(config.hostFile(c.alias(987654))), false);
  });

  it('says NoSshKey when no key is found and none is made, and writes nothing', async () => {
    const { calls, counts } = countedKeys(client);
    const { connector: c } = connector(calls, { findKey: async () => undefined, createKey: async () => undefined });
    await c.forget(instanceId);
    await assert.rejects(c.prepare(await client.instances.show(instanceId)), NoSshKey);
    assert.deepEqual(counts, { list: 0, create: 0, listForInstance: 0, attach: 0 });
    assert.equal(await exists(config.hostFile(c.alias(instanceId))), false);
  });

  it('asks once for a new key when several connects start together (every node of a cluster), and adds it to the account once', async () => {
    const { calls, counts } = countedKeys(client);
    let made: LocalKey | undefined;
    let asked = 0;
    const { connector: c } = connector(calls, {
      findKey: async () => made,
      createKey: async () => {
        asked++;
        // The person reads the question for a while: the other connects arrive meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 200));
        made = await generateKey(join(home, '.ssh', 'id_ed25519_together'), 'gpu-rental connector test, together');
        return made;
      },
    });
    const instance = await client.instances.show(instanceId);
    const hosts = await Promise.all([c.prepare(instance), c.prepare(instance), c.prepare(instance)]);
    assert.equal(asked, 1, 'one question');
    assert.ok(hosts.every((h) => h.key.privateKeyPath === made!.privateKeyPath));
    assert.equal(counts.create, 1, 'one registration');
    assert.equal(copiesOf(await client.sshKeys.list(), made!), 1);
  });

  it('when the user config is a symbolic link, leaves it alone, says what to add, and the host file alone still works', async () => {
    const home2 = await mkdtemp(join(tmpdir(), 'gpu-rental-connector-link-'));
    try {
      await mkdir(join(home2, '.ssh'), { recursive: true, mode: 0o700 });
      await mkdir(join(home2, 'dotfiles'));
      const target = join(home2, 'dotfiles', 'ssh_config');
      await writeFile(target, USER_CONFIG);
      const paths = sshPaths(join(home2, '.ssh', 'config'), home2);
      await symlink(target, paths.userConfig);
      const linked = new SshConfigManager(paths, new MemoryLogger());
      const { connector: c, logger } = connector(countedKeys(client).calls, { config: () => linked });

      const host = await c.prepare(await client.instances.show(instanceId));
      assert.equal(host.includeInPlace, false);
      assert.ok(host.includeLines?.includes('Include'), host.includeLines);
      assert.ok(host.includeLines?.includes(linked.includePattern));
      assert.equal(host.hostFile, linked.hostFile(host.alias));
      assert.equal(await readFile(target, 'utf8'), USER_CONFIG, 'the linked file is untouched');
      assert.ok(logger.lines.some((l) => l.startsWith('warn ') && l.includes('symbolic link')));

      await waitForSshBanner(host.endpoint.host, host.endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
      const result = await sshTrue(['-F', host.hostFile], host.alias);
      assert.equal(result.code, 0, result.stderr);
    } finally {
      await rm(home2, { recursive: true, force: true });
    }
  });
});
