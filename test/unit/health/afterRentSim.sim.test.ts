// The health check after a rent over real ssh into the simulator's containers: a rent runs, the
// first list that shows it running starts the check, and an honest machine is "as offered" with its
// internet speed measured from a local server; one whose nvidia-smi the control route makes lie gets
// the warning with Destroy Instance. Slow (sshd, containers): left out of test:fast.
import { StoredState } from '../../../src/core/state/storedState';
import { STORED } from '../../../src/core/stored';
import { MemoryStore } from '../state/memoryStore';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { GpuRentalClient } from '../../../src/core/api/client';
import type { Instance } from '../../../src/core/api/instances';
import type { Offer } from '../../../src/core/api/offers';
import { HealthAfterRent, type AfterRentResult } from '../../../src/core/health/afterRent';
import { silentLogger } from '../../../src/core/log';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { runRemote } from '../../../src/core/ssh/remote';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, reachableInstance, simulatorForSuite, tempDirForSuite } from '../../support';

(sshdAvailable() ? describe : describe.skip)('health: the check after a rent over ssh (simulator)', function () {
  this.timeout(120_000);
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2, seed: 62 });
  const home = tempDirForSuite('gpu-rental-after-rent-');
  let client: GpuRentalClient;
  let keyPath: string;
  let offers: Offer[];
  let server: Server;
  let speedUrl: string;

  before(async () => {
    ({ client } = clientFor(sim.url, DEMO_KEY));
    const key = await generateKey(join(home(), 'key'), 'health');
    keyPath = key.privateKeyPath;
    await client.sshKeys.create(key.publicKey);
    offers = await client.offers.search({
      // The slowest offered downloads first: what this machine's loopback measures (1.1 Gbit/s on the
      // 2-core CI machine, a 4 MB body with its start-up) must read as the honest machine's, not as
      // under half of a 2.3 Gbit/s offer.
      query: { filters: { rentable: { eq: true }, num_gpus: { gte: 1 } }, order: [['inet_down', 'asc']], type: 'on-demand' },
      limit: 2,
    });
    assert.equal(offers.length, 2);
    // The download test's server: 4 MB; the containers share the host's network.
    const body = Buffer.alloc(4_000_000);
    server = createServer((_req, res) => res.end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    speedUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/blob`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const health = () =>
    new HealthAfterRent({
      store: new StoredState(STORED, new MemoryStore()),
      owner: 'test-window',
      enabled: () => true,
      speedTestUrl: () => speedUrl,
      reach: (instance) => reachableInstance(client, instance.id, keyPath),
      run: (t, script, timeoutMs, signal) => runRemote(t, script, { timeoutMs, signal }),
      now: () => Date.now(),
      logger: silentLogger,
    });

  /** Polls the list as the poller does until a snapshot starts a check, and waits for it. */
  async function firstCheck(h: HealthAfterRent, id: number): Promise<AfterRentResult> {
    for (let i = 0; i < 300; i++) {
      const list: Instance[] = await client.instances.list();
      const [check] = h.update(list.filter((x) => x.id === id));
      if (check) return check;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`instance #${id} never ran`);
  }

  it('an honest machine is as offered, with its download measured; a lying one gets the warning with Destroy Instance', async () => {
    const honest = (await client.instances.create(offers[0]!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
    const liar = (await client.instances.create(offers[1]!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
    try {
      const h = health();
      await h.expect(honest);
      const ok = await firstCheck(h, honest);
      assert.equal(ok.kind, 'asOffered', ok.kind === 'notChecked' ? ok.why : ok.kind === 'finding' ? ok.notice.text : '');
      if (ok.kind !== 'asOffered') return;
      assert.equal(ok.status, `${offers[0]!.num_gpus}× ${offers[0]!.gpu_name} as offered`);
      assert.match(ok.verdict.text, /It downloads at [\d.]+ Mbit\/s/, ok.verdict.text);

      await h.expect(liar);
      await reachableInstance(client, liar, keyPath);
      sim.control.setGpuLie(liar, { name: 'NVIDIA GeForce GTX 1080' });
      const flagged = await firstCheck(h, liar);
      assert.equal(flagged.kind, 'finding');
      if (flagged.kind !== 'finding') return;
      assert.match(flagged.notice.text, /Not what was offered/);
      assert.match(flagged.notice.text, /GTX 1080/);
      assert.match(flagged.notice.text, /It has cost about \$[\d.]+ so far/);
      assert.deepEqual(flagged.notice.actions, ['destroy']);
    } finally {
      await client.instances.destroy(honest).catch(() => undefined);
      await client.instances.destroy(liar).catch(() => undefined);
    }
  });
});
