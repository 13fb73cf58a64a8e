import assert from 'node:assert/strict';
import { MockAgent } from 'undici';
import { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { ONSTART_MAX_CHARS } from '../../../src/core/api/instances';
import { silentLogger } from '../../../src/core/log';
import { clientFor, DEMO_KEY, eventually, rentableOffers, simulatorForSuite } from '../../support';

describe('client: instances (simulator)', () => {
  const sim = simulatorForSuite({}, { each: true });
  let client: GpuRentalClient;
  const rentable = async (count = 1) => {
    const offers = await rentableOffers(client, count);
    assert.equal(offers.length, count);
    return offers;
  };
  const status = async (id: number) => (await client.instances.show(id)).actual_status;

  beforeEach(() => {
    client = clientFor(sim.url, DEMO_KEY).client;
  });

  it('lists every instance in one request for the poller, and does not retry when told not to', async () => {
    const offers = await rentable(30);
    for (const offer of offers) await client.instances.create(offer.id, { image: 'ubuntu:22.04', disk: 8 });
    const before = sim.control.state().requestCount;
    const all = await client.instances.listInOneRequest({ retry: 'never' });
    assert.equal(all.length, 30);
    assert.equal(sim.control.state().requestCount - before, 1);
    sim.control.addFault({ kind: 'server_error', status: 503, path: '/api/v0/instances', count: 3 });
    const failedAt = sim.control.state().requestCount;
    await assert.rejects(client.instances.listInOneRequest({ retry: 'never' }), (e) => isApiError(e, 'server'));
    assert.equal(sim.control.state().requestCount - failedAt, 1, 'one request, no retries');
  });

  it('rents an offer and watches it boot: provisioning, loading, running', async () => {
    const [offer] = await rentable();
    const created = await client.instances.create(offer!.id, {
      image: 'pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime',
      disk: 20,
      label: 'boot-test',
      runtype: 'ssh_direct',
      env: { HF_HOME: '/workspace/hf' },
    });
    assert.ok(created.instanceId > 0);
    assert.ok(created.instanceApiKey && created.instanceApiKey.length > 10);
    const seen = new Set<string | null>();
    await eventually(
      async () => {
        const s = await status(created.instanceId);
        seen.add(s);
        return s === 'running';
      },
      'running',
      5_000,
    );
    assert.ok(seen.has('running'));
    const running = await client.instances.show(created.instanceId);
    assert.equal(running.label, 'boot-test');
    assert.equal(running.disk_space, 20);
    assert.ok((running.dph_total ?? 0) >= offer!.dph_total * 0.9, 'the instance carries its price');
    assert.equal(typeof running.ssh_host, 'string');
    assert.ok((running.ssh_port ?? 0) > 0);
    assert.equal(running.intended_status, 'running');
  });

  it('lists every instance across pages of the v1 list', async () => {
    const offers = await rentable(27);
    for (const offer of offers) await client.instances.create(offer.id, { image: 'ubuntu:22.04', disk: 8 });
    const page = await client.instances.listPage({ limit: 25 });
    assert.equal(page.instances.length, 25);
    assert.ok(page.next_token, 'a second page exists');
    const all = await client.instances.list();
    assert.equal(all.length, 27);
    assert.equal(new Set(all.map((i) => i.id)).size, 27);
  });

  it('stops, starts, labels, reboots and destroys', async () => {
    const [offer] = await rentable();
    const { instanceId: id } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 });
    await eventually(async () => (await status(id)) === 'running', 'running', 5_000);
    await client.instances.stop(id);
    await eventually(async () => (await status(id)) === 'stopped', 'stopped', 5_000);
    assert.equal((await client.instances.show(id)).intended_status, 'stopped');
    await client.instances.start(id);
    await eventually(async () => (await status(id)) === 'running', 'running again', 5_000);
    await client.instances.setLabel(id, 'renamed');
    assert.equal((await client.instances.show(id)).label, 'renamed');
    await client.instances.reboot(id);
    await eventually(async () => (await status(id)) === 'running', 'running after reboot', 5_000);
    await client.instances.destroy(id);
    await assert.rejects(client.instances.show(id), (e) => isApiError(e, 'not_found') && /does not exist/.test(e.message));
    assert.deepEqual(await client.instances.list(), []);
  });

  it('releases the offer when its instance is destroyed', async () => {
    const [offer] = await rentable();
    const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 });
    await assert.rejects(
      client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 }),
      (e) => isApiError(e, 'not_found') && /not available/.test(e.message),
    );
    await client.instances.destroy(instanceId);
    const again = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 });
    assert.ok(again.instanceId !== instanceId);
  });

  it('rents from a template', async () => {
    const template = await client.templates.create({
      name: 'torch',
      image: 'pytorch/pytorch',
      tag: 'latest',
      onstart: 'echo hi',
      runtype: 'ssh',
      recommended_disk_space: 16,
    });
    const [offer] = await rentable();
    const { instanceId } = await client.instances.create(offer!.id, { template_hash_id: template.hash_id, disk: 16 });
    const instance = await client.instances.show(instanceId);
    assert.match(instance.image_uuid ?? '', /pytorch\/pytorch/);
  });

  it('refuses a start-up script over the limit before sending anything', async () => {
    const requests = sim.control.state().requestCount;
    await assert.rejects(
      client.instances.create(1, { image: 'ubuntu', disk: 8, onstart: 'x'.repeat(ONSTART_MAX_CHARS + 1) }),
      (e) => isApiError(e, 'bad_request') && /at most 4048/.test(e.message),
    );
    await assert.rejects(
      client.instances.create(1, { disk: 8 }),
      (e) => isApiError(e, 'bad_request') && /image or a template/.test(e.message),
    );
    assert.equal(sim.control.state().requestCount, requests);
  });

  it('reads the log through its result URL', async () => {
    const [offer] = await rentable();
    const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 });
    const log = await client.instances.logs(instanceId, { tail: 100 }, { intervalMs: 20 });
    assert.ok(log.length > 0);
  });

  it('lets an instance API key see only its own instance', async () => {
    const [a, b] = await rentable(2);
    const first = await client.instances.create(a!.id, { image: 'ubuntu:22.04', disk: 8 });
    const second = await client.instances.create(b!.id, { image: 'ubuntu:22.04', disk: 8 });
    const apiKey = first.instanceApiKey!;
    assert.equal((await client.instances.show(first.instanceId, { apiKey })).id, first.instanceId);
    await assert.rejects(
      client.instances.show(second.instanceId, { apiKey }),
      (e) => isApiError(e, 'forbidden') || isApiError(e, 'not_found'),
    );
    await assert.rejects(client.account.currentUser({ apiKey }), (e) => isApiError(e, 'forbidden'));
  });

  it('falls back to the v0 list where the v1 list does not exist', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://old.example.test');
    pool.intercept({ path: /^\/api\/v1\/instances\//, method: 'GET' }).reply(404, { success: false, error: 'not_found', msg: 'no route' });
    pool
      .intercept({ path: '/api/v0/instances/?owner=me', method: 'GET' })
      .reply(200, { instances_found: 1, instances: [{ id: 42, actual_status: 'running' }] })
      .times(2);
    const old = new GpuRentalClient({
      dispatcher: agent,
      baseUrl: 'https://old.example.test',
      getApiKey: () => 'k',
      logger: silentLogger,
      timeoutMs: 1000,
    });
    assert.deepEqual(
      (await old.instances.list()).map((i) => i.id),
      [42],
    );
    assert.deepEqual(
      (await old.instances.list()).map((i) => i.id),
      [42],
      'the fallback is remembered',
    );
  });
});
