import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { InstancePoller } from '../../../src/core/instances/poller';
import { silentLogger } from '../../../src/core/log';
import type { BootChange } from '../../../src/core/ssh/bootWatch';
import { BootWatch } from '../../../src/core/ssh/bootWatch';
import { readBanner } from '../../../src/core/ssh/probe';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace } from '../../support';

describe('ssh: a banner read can be aborted', () => {
  it('an address that accepts and says nothing is let go at once on abort, not at the timeout', async () => {
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const abort = new AbortController();
      const read = readBanner('127.0.0.1', port, 60_000, abort.signal);
      setTimeout(() => abort.abort(), 50);
      await assert.rejects(read, /cancelled/);
      await assert.rejects(readBanner('127.0.0.1', port, 60_000, abort.signal), /cancelled/, 'already aborted: no connection');
    } finally {
      server.close();
    }
  });
});

(sshdAvailable() && process.getuid?.() === 0 ? describe : describe.skip)('ssh: ready the moment the simulator’s sshd answers', function () {
  this.timeout(60_000);
  let sim: Marketplace;
  before(async () => {
    sim = await startSimulator({ ssh: true, bootSeconds: 2, seed: 29 });
  });
  after(() => sim.stop());

  it('says ready by its sshd long before a 60 s poll would, with one request besides the first', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const [offer] = await client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 1,
    });
    let requests = 0;
    const poller = new InstancePoller({
      fetch: (signal) => {
        requests++;
        return client.instances.listInOneRequest({ signal, retry: 'never' });
      },
      intervalMs: () => 60_000,
      logger: silentLogger,
    });
    poller.setEnabled(true);
    const watch = new BootWatch({ poller, readBanner: (h, p, o) => readBanner(h, p, o.timeoutMs, o.signal) });
    const ready = new Promise<BootChange>((resolve) => watch.onDidChange((c) => c.booted.length > 0 && resolve(c)));
    try {
      const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_proxy' });
      watch.track(instanceId);
      await poller.refresh();
      const first = poller.snapshot!.instances.find((i) => i.id === instanceId)!;
      assert.notEqual(first.actual_status, 'running', 'the first look finds it booting');
      assert.ok(first.ssh_host && first.ssh_port, 'the simulator gives the proxy address while it boots');
      assert.deepEqual(watch.probing, [instanceId]);

      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no ready within 20 s')), 20_000).unref());
      const change = await Promise.race([ready, timeout]);
      assert.deepEqual(
        change.booted.map((b) => [b.instance.id, b.by]),
        [[instanceId, 'sshd']],
      );
      assert.match(await readBanner(first.ssh_host, first.ssh_port, 2_000), /^SSH-2\.0-/, 'what answered is the instance’s sshd');
      // The refresh asked for on the banner: the record catches up without waiting a minute.
      const phase = () => poller.snapshot!.instances.find((i) => i.id === instanceId)!.actual_status;
      for (let i = 0; i < 100 && phase() !== 'running'; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(phase(), 'running', 'the refreshed record says running: the simulator flips it before its sshd starts');
      assert.equal(requests, 2, 'the first look and the refresh on the banner: the probe itself asks nothing');
      assert.deepEqual(watch.probing, []);
    } finally {
      watch.dispose();
      poller.dispose();
    }
  });
});
