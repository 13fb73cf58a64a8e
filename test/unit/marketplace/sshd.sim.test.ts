import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { readBanner, waitForSshBanner } from '../../../src/core/ssh/probe';
import { sshEndpoint } from '../../../src/core/instances/ssh';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace, instanceIn, sshdGone } from '../../support';

const run = promisify(execFile);

/** Runs `true` over real ssh with `key`; resolves to ssh's exit code. */
async function sshTrue(key: string, host: string, port: number, home: string): Promise<number> {
  const args = [
    '-i',
    key,
    '-p',
    String(port),
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=accept-new',
    '-o',
    `UserKnownHostsFile=${join(home, 'known_hosts')}`,
    '-o',
    'ConnectTimeout=5',
    `root@${host}`,
    'true',
  ];
  try {
    await run('ssh', args);
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? 255;
  }
}

(sshdAvailable() && process.getuid?.() === 0 ? describe : describe.skip)('marketplace: a real sshd per running instance', function () {
  this.timeout(60_000);
  let sim: Marketplace;
  let home: string;
  before(async () => {
    sim = await startSimulator({ ssh: true, bootSeconds: 0.5 });
    home = await mkdtemp(join(tmpdir(), 'gpu-rental-sshd-test-'));
  });
  after(async () => {
    await sim.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('accepts the account key the instance was created with, by proxy and direct address; refuses others; follows attach, stop and start', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const mine = await generateKey(join(home, 'mine'), 'mine');
    const late = await generateKey(join(home, 'late'), 'late');
    await client.sshKeys.create(mine.publicKey);
    const [offer] = await client.offers.search({
      query: { filters: { rentable: { eq: true }, direct_port_count: { gte: 1 } }, order: [], type: 'on-demand' },
      limit: 1,
    });
    const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_direct' });
    const running = await instanceIn(client, instanceId, 'running', 10_000);
    const proxy = { host: running.ssh_host!, port: running.ssh_port! };
    const direct = sshEndpoint(running)!;
    assert.equal(direct.via, 'direct');
    assert.equal(direct.host, '127.0.0.1');
    await waitForSshBanner(proxy.host, proxy.port, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(await sshTrue(mine.privateKeyPath, proxy.host, proxy.port, home), 0, 'proxy form');
    assert.equal(await sshTrue(mine.privateKeyPath, direct.host, direct.port, home), 0, 'direct form');
    assert.notEqual(await sshTrue(late.privateKeyPath, proxy.host, proxy.port, home), 0, 'a key never registered is refused');

    await client.sshKeys.attach(instanceId, late.publicKey);
    assert.equal(await sshTrue(late.privateKeyPath, proxy.host, proxy.port, home), 0, 'attached later: accepted');

    await client.instances.stop(instanceId);
    await instanceIn(client, instanceId, 'stopped', 10_000);
    await sshdGone(proxy.host, proxy.port);
    await client.instances.start(instanceId);
    const again = await instanceIn(client, instanceId, 'running', 15_000);
    assert.notEqual(again.ssh_port, proxy.port, 'a restart moves the port, as on the real service');
    await waitForSshBanner(again.ssh_host!, again.ssh_port!, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(await sshTrue(mine.privateKeyPath, again.ssh_host!, again.ssh_port!, home), 0);

    await client.instances.destroy(instanceId);
    await sshdGone(again.ssh_host!, again.ssh_port!);
  });

  it('a Jupyter launch reports ssh_port as the service does and listens one port above it, where the client connects', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const key = await generateKey(join(home, 'jupyter'), 'jupyter');
    await client.sshKeys.create(key.publicKey);
    const [offer] = await client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 1,
    });
    // What the CLI sends for --jupyter: Jupyter and SSH through the proxy, nothing mapped directly.
    const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype: 'jupyter_proxy ssh_proxy' });
    const running = await instanceIn(client, instanceId, 'running', 10_000);
    assert.equal(running.image_runtype, 'jupyter_proxy ssh_proxy');
    assert.equal(running.ports?.['22/tcp'], undefined, 'port 22 is not mapped');
    const endpoint = sshEndpoint(running)!;
    assert.deepEqual(endpoint, { host: running.ssh_host, port: running.ssh_port! + 1, via: 'proxy' });
    await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(await sshTrue(key.privateKeyPath, endpoint.host, endpoint.port, home), 0, 'ssh_port + 1 reaches the instance');
    await assert.rejects(
      readBanner(running.ssh_host!, running.ssh_port!, 500),
      'no sshd on ssh_port itself: a client without the +1 fails, as on the service',
    );
    await client.instances.destroy(instanceId);
    await sshdGone(endpoint.host, endpoint.port);
  });

  it('a second simulator with the same seed gives its instance other ports than the ones already listening', async () => {
    // Two fresh simulators with one seed number their instances alike: the same id would hash to the same ports.
    const [a, b] = [await startSimulator({ ssh: true, bootSeconds: 0.2 }), await startSimulator({ ssh: true, bootSeconds: 0.2 })];
    try {
      const rent = async (url: string) => {
        const { client } = clientFor(url, DEMO_KEY);
        const [offer] = await client.offers.search({
          query: { filters: { rentable: { eq: true }, direct_port_count: { gte: 1 } }, order: [], type: 'on-demand' },
          limit: 1,
        });
        const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_direct' });
        return instanceIn(client, instanceId, 'running', 10_000);
      };
      const first = await rent(a.url);
      await waitForSshBanner(first.ssh_host!, first.ssh_port!, { timeoutMs: 10_000, intervalMs: 50 });
      const second = await rent(b.url);
      assert.equal(second.id, first.id);
      assert.notEqual(second.ssh_port, first.ssh_port, 'the proxy port in use is skipped');
      assert.notEqual(sshEndpoint(second)!.port, sshEndpoint(first)!.port, 'and so is the direct block');
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
