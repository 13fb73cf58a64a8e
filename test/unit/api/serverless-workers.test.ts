import assert from 'node:assert/strict';
import { Agent, MockAgent } from 'undici';
import { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { serverlessUrlFor } from '../../../src/core/api/transport';
import { WORKER_LOAD_MS } from '../../marketplace/routes/serverless';
import { DEMO_KEY, MemoryLogger, clientFor, startSimulator, type Marketplace } from '../support';

describe('serverless workers and logs', () => {
  let sim: Marketplace;
  let clock = Date.parse('2026-11-01T12:00:00Z');
  before(async () => {
    sim = await startSimulator({ now: () => clock });
  });
  after(() => sim.stop());

  async function endpointWithGroup(name: string, group: { cold_workers: number; max_workers: number; test_workers?: number }) {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const id = await client.serverless.createEndpoint({ endpoint_name: name });
    const [template] = await client.templates.search();
    const groupId = await client.serverless.createWorkerGroup({ endpoint_id: id, template_hash: template!.hash_id, test_workers: 0, ...group });
    return { client, id, groupId };
  }

  it('a new group brings up its workers: loading, then idle once their load time has passed', async () => {
    const { client, id, groupId } = await endpointWithGroup('workers-a', { cold_workers: 2, max_workers: 4 });
    let workers = await client.serverless.workerGroupWorkers(groupId);
    assert.equal(workers.length, 2);
    assert.deepEqual(workers.map((w) => w.status), ['loading', 'loading']);
    clock += WORKER_LOAD_MS + 1;
    workers = await client.serverless.endpointWorkers(id);
    assert.deepEqual(workers.map((w) => w.status), ['idle', 'idle']);
    assert.ok(workers.every((w) => typeof w.url === 'string' && w.created_at !== undefined));
  });

  it('scaling a group up and down changes its workers, and the logs say what happened, in order', async () => {
    const { client, id, groupId } = await endpointWithGroup('workers-b', { cold_workers: 1, max_workers: 3 });
    await client.serverless.updateWorkerGroup(groupId, { cold_workers: 3 });
    assert.equal((await client.serverless.workerGroupWorkers(groupId)).length, 3);
    await client.serverless.updateWorkerGroup(groupId, { max_workers: 2 });
    assert.equal((await client.serverless.endpointWorkers(id)).length, 2, 'capped by max_workers');
    clock += WORKER_LOAD_MS + 1;

    const log = await client.serverless.workerGroupLogs(groupId);
    const lines = log.split('\n');
    assert.match(lines[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d - worker group \d+ created/);
    assert.match(log, /scaled to 3 workers[\s\S]*stopped \(scaled down\)[\s\S]*scaled to 2 workers[\s\S]*ready/);
    assert.equal((await client.serverless.workerGroupLogs(groupId, 2)).split('\n').length, 2, 'tail');
    const endpointLog = await client.serverless.endpointLogs({ id, name: 'workers-b' });
    assert.ok(endpointLog.split('\n').every((l) => l.endsWith(`[worker group ${groupId}]`)));
  });

  it('deleting the group or the endpoint removes its workers', async () => {
    const { client, id, groupId } = await endpointWithGroup('workers-c', { cold_workers: 2, max_workers: 2 });
    const second = await client.serverless.createWorkerGroup({ endpoint_id: id, template_hash: (await client.templates.search())[0]!.hash_id, cold_workers: 1, max_workers: 1, test_workers: 0 });
    assert.equal((await client.serverless.endpointWorkers(id)).length, 3);
    await client.serverless.deleteWorkerGroup(groupId);
    assert.equal((await client.serverless.endpointWorkers(id)).length, 1);
    await client.serverless.deleteEndpoint(id);
    await assert.rejects(client.serverless.workerGroupWorkers(second), (e: unknown) => isApiError(e, 'not_found'));
  });

  it("an unknown id, or another account's, is a clear not-found error, never data", async () => {
    const { id } = await endpointWithGroup('workers-d', { cold_workers: 1, max_workers: 1 });
    const other = sim.control.addAccount({ email: 'other@example.test' });
    const { client } = clientFor(sim.url, other.key);
    await assert.rejects(client.serverless.endpointWorkers(id), (e: unknown) => {
      assert.ok(isApiError(e, 'not_found'), String(e));
      assert.match((e as Error).message, /^Could not list the workers of endpoint \d+: it was not found\. The service said: "authenticate_endpoint_apikey/);
      return true;
    });
    await assert.rejects(client.serverless.endpointLogs({ id, name: 'workers-d' }), (e: unknown) => isApiError(e, 'not_found'));
  });

  it('the production service answers them from run.vast.ai; any other base URL from itself', () => {
    assert.equal(serverlessUrlFor('https://console.vast.ai/'), 'https://run.vast.ai');
    assert.equal(serverlessUrlFor('http://127.0.0.1:8790'), 'http://127.0.0.1:8790');
    assert.equal(serverlessUrlFor('https://gpu.example.com/api-proxy'), 'https://gpu.example.com/api-proxy');
  });

  it('sends the key to the serverless host only over https, and only in the header', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const seen: Array<{ origin: string; auth: string | undefined; body: string }> = [];
    mock
      .get('https://run.vast.ai')
      .intercept({ path: '/get_endpoint_logs/', method: 'POST' })
      .reply(200, (opts) => {
        const headers = opts.headers as Record<string, string>;
        seen.push({ origin: 'https://run.vast.ai', auth: headers.authorization, body: String(opts.body) });
        return { logs: 'line 1\nline 2' };
      });
    const client = new GpuRentalClient({ dispatcher: mock, baseUrl: 'https://console.vast.ai', getApiKey: () => 'secret-key-123', logger: new MemoryLogger(), timeoutMs: 2_000 });
    assert.equal(await client.serverless.endpointLogs({ id: 7, name: 'llm' }, 50), 'line 1\nline 2');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.auth, 'Bearer secret-key-123');
    assert.deepEqual(JSON.parse(seen[0]!.body), { endpoint: 'llm', id: 7, tail: 50 });
    assert.throws(() => new GpuRentalClient({ dispatcher: new Agent(), baseUrl: 'https://console.vast.ai', serverlessUrl: 'http://run.example.com', getApiKey: () => 'k', logger: new MemoryLogger(), timeoutMs: 1_000 }), /plain http/);
    await mock.close();
  });

  it('reads logs given by level when there is no logs field (as the CLI reads them)', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock.get('https://run.vast.ai').intercept({ path: '/get_workergroup_logs/', method: 'POST' }).reply(200, { info0: 'short', info1: 'the usual level', debug: 'noise' });
    const client = new GpuRentalClient({ dispatcher: mock, baseUrl: 'https://console.vast.ai', getApiKey: () => 'k', logger: new MemoryLogger(), timeoutMs: 2_000 });
    assert.equal(await client.serverless.workerGroupLogs(3), 'the usual level');
    await mock.close();
  });
});
