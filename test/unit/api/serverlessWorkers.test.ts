import assert from 'node:assert/strict';
import { Agent, MockAgent, type Dispatcher } from 'undici';
import { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { serverlessUrlFor, type RequestDispatcher } from '../../../src/core/api/transport';
import { WORKER_LOAD_MS } from '../../marketplace/workers';
import { clientFor, DEMO_KEY, MemoryLogger, simulatorForSuite } from '../../support';

describe('serverless workers and logs', () => {
  const sim = simulatorForSuite({ now: () => clock });
  let clock = Date.parse('2026-11-01T12:00:00Z');

  async function endpointWithGroup(name: string, group: { cold_workers: number; max_workers: number; test_workers?: number }) {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const id = await client.serverless.createEndpoint({ endpoint_name: name });
    const [template] = await client.templates.search();
    const groupId = await client.serverless.createWorkerGroup({
      endpoint_id: id,
      template_hash: template!.hash_id,
      test_workers: 0,
      ...group,
    });
    return { client, id, groupId };
  }

  it('a new group brings up its workers: loading, then idle once their load time has passed', async () => {
    const { client, id, groupId } = await endpointWithGroup('workers-a', { cold_workers: 2, max_workers: 4 });
    let workers = await client.serverless.workerGroupWorkers(groupId);
    assert.equal(workers.length, 2);
    assert.deepEqual(
      workers.map((w) => w.status),
      ['loading', 'loading'],
    );
    clock += WORKER_LOAD_MS + 1;
    workers = await client.serverless.endpointWorkers(id);
    assert.deepEqual(
      workers.map((w) => w.status),
      ['idle', 'idle'],
    );
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
    assert.equal(lines.length, 12, log);
    assert.match(log, /scaled to 3 workers[\s\S]*stopped \(scaled down\)[\s\S]*scaled to 2 workers[\s\S]*ready/);
    assert.equal((await client.serverless.workerGroupLogs(groupId, 2)).split('\n').length, 2, 'tail');
    const endpointLog = await client.serverless.endpointLogs({ id, name: 'workers-b' });
    assert.ok(endpointLog.split('\n').every((l) => l.endsWith(`[worker group ${groupId}]`)));
  });

  it('deleting the group or the endpoint removes its workers', async () => {
    const { client, id, groupId } = await endpointWithGroup('workers-c', { cold_workers: 2, max_workers: 2 });
    const second = await client.serverless.createWorkerGroup({
      endpoint_id: id,
      template_hash: (await client.templates.search())[0]!.hash_id,
      cold_workers: 1,
      max_workers: 1,
      test_workers: 0,
    });
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
      assert.match(
        (e as Error).message,
        /^Could not list the workers of endpoint \d+: it was not found\. The service said: "authenticate_endpoint_apikey/,
      );
      return true;
    });
    await assert.rejects(client.serverless.endpointLogs({ id, name: 'workers-d' }), (e: unknown) => isApiError(e, 'not_found'));
  });

  it('the production service answers them from run.vast.ai; any other base URL from itself', () => {
    assert.equal(serverlessUrlFor('https://console.vast.ai/'), 'https://run.vast.ai');
    assert.equal(serverlessUrlFor('http://127.0.0.1:8790'), 'http://127.0.0.1:8790');
    assert.equal(serverlessUrlFor('https://gpu.example.com/api-proxy'), 'https://gpu.example.com/api-proxy');
  });

  it('sends the key to the serverless host only over https: in the header, and in the body as the CLI does', async () => {
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
    const client = new GpuRentalClient({
      dispatcher: mock,
      baseUrl: 'https://console.vast.ai',
      getApiKey: () => 'secret-key-123',
      logger: new MemoryLogger(),
      timeoutMs: 2_000,
    });
    assert.equal(await client.serverless.endpointLogs({ id: 7, name: 'llm' }, 50), 'line 1\nline 2');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.auth, 'Bearer secret-key-123');
    assert.deepEqual(JSON.parse(seen[0]!.body), { endpoint: 'llm', id: 7, tail: 50, api_key: 'secret-key-123' });
    assert.throws(
      () =>
        new GpuRentalClient({
          dispatcher: new Agent(),
          baseUrl: 'https://console.vast.ai',
          serverlessUrl: 'http://run.example.com',
          getApiKey: () => 'k',
          logger: new MemoryLogger(),
          timeoutMs: 1_000,
        }),
      /plain http/,
    );
    await mock.close();
  });

  it('reads logs given by level when there is no logs field (as the CLI reads them)', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock
      .get('https://run.vast.ai')
      .intercept({ path: '/get_autogroup_logs/', method: 'POST' })
      .reply(200, { info0: 'short', info1: 'the usual level', debug: 'noise' });
    const client = new GpuRentalClient({
      dispatcher: mock,
      baseUrl: 'https://console.vast.ai',
      getApiKey: () => 'k',
      logger: new MemoryLogger(),
      timeoutMs: 2_000,
    });
    assert.equal(await client.serverless.workerGroupLogs(3), 'the usual level');
    await mock.close();
  });

  /** What reached the wire: origin, path, headers and body of each request. */
  function recording(): {
    dispatcher: RequestDispatcher;
    seen: Array<{ origin: string; path: string; headers: Record<string, string>; body: string }>;
  } {
    const agent = new Agent();
    const seen: Array<{ origin: string; path: string; headers: Record<string, string>; body: string }> = [];
    const dispatcher: RequestDispatcher = {
      request(options: Dispatcher.RequestOptions) {
        seen.push({
          origin: String(options.origin),
          path: options.path,
          headers: { ...(options.headers as Record<string, string>) },
          body: String(options.body ?? ''),
        });
        return agent.request(options);
      },
    };
    return { dispatcher, seen };
  }

  /** The routing key the service gives each endpoint; the client's schema deliberately drops it. */
  async function routingKeyOf(id: number): Promise<string> {
    const res = await fetch(`${sim.url}/api/v0/endptjobs/`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });
    const { results } = (await res.json()) as { results: Array<{ id: number; api_key: string }> };
    return results.find((e) => e.id === id)!.api_key;
  }

  it("puts the account key in every autoscaler body as api_key (the endpoint's own key when the caller passes it), never in a log", async () => {
    const { id, groupId } = await endpointWithGroup('keyed', { cold_workers: 1, max_workers: 1 });
    const routingKey = await routingKeyOf(id);
    const { dispatcher, seen } = recording();
    const { client, logger } = clientFor(sim.url, DEMO_KEY, { dispatcher });

    await client.serverless.endpointWorkers(id);
    await client.serverless.workerGroupWorkers(groupId);
    await client.serverless.workerGroupLogs(groupId, 5);
    const plain = await client.serverless.endpointLogs({ id, name: 'keyed' });
    const keyed = await client.serverless.endpointLogs({ id, name: 'keyed', apiKey: routingKey }, 2);
    assert.deepEqual(keyed.split('\n'), plain.split('\n').slice(-2), 'the same log, its last two lines');

    assert.deepEqual(
      seen.map((r) => JSON.parse(r.body)),
      [
        { id, api_key: DEMO_KEY },
        { id: groupId, api_key: DEMO_KEY },
        { id: groupId, tail: 5, api_key: DEMO_KEY },
        { endpoint: 'keyed', id, tail: 1000, api_key: DEMO_KEY },
        { endpoint: 'keyed', id, tail: 2, api_key: routingKey },
      ],
    );
    for (const r of seen) {
      assert.equal(r.origin, sim.url);
      assert.equal(r.headers.authorization, `Bearer ${DEMO_KEY}`);
    }
    assert.deepEqual(
      seen.map((r) => r.path),
      ['/get_endpoint_workers/', '/get_workergroup_workers/', '/get_autogroup_logs/', '/get_endpoint_logs/', '/get_endpoint_logs/'],
    );
    assert.ok(logger.lines.length > 0);
    assert.ok(
      logger.lines.every((l) => !l.includes(routingKey) && !l.includes(DEMO_KEY)),
      logger.lines.join('\n'),
    );
  });

  it('a wrong endpoint key is refused as not found, and the message never repeats it', async () => {
    const { id } = await endpointWithGroup('wrong-key', { cold_workers: 1, max_workers: 1 });
    const other = await endpointWithGroup('other-key', { cold_workers: 0, max_workers: 0 });
    const foreign = await routingKeyOf(other.id);
    const { client, logger } = clientFor(sim.url, DEMO_KEY);
    await assert.rejects(client.serverless.endpointLogs({ id, name: 'wrong-key', apiKey: foreign }), (e: unknown) => {
      assert.ok(isApiError(e, 'not_found'), String(e));
      assert.equal(e.status, 200);
      assert.equal(e.serverMessage, 'authenticate_endpoint_apikey: invalid api_key or endpoint wrong-key not found');
      assert.ok(!e.message.includes(foreign) && !e.toLogString().includes(foreign));
      return true;
    });
    assert.ok(logger.lines.every((l) => !l.includes(foreign)));
  });

  it('a refusal that quotes a key shows neither the account key nor the endpoint key', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const accountKey = 'acct-key-0123456789';
    const endpointKey = 'ek-9f3b2c7d1a6e4f08b5';
    mock
      .get('https://run.vast.ai')
      .intercept({ path: '/get_endpoint_logs/', method: 'POST' })
      .reply(200, JSON.stringify(`bad api_key ${endpointKey} (account ${accountKey}) for endpoint llm`));
    const client = new GpuRentalClient({
      dispatcher: mock,
      baseUrl: 'https://console.vast.ai',
      getApiKey: () => accountKey,
      logger: new MemoryLogger(),
      timeoutMs: 2_000,
    });
    await assert.rejects(client.serverless.endpointLogs({ id: 1, name: 'llm', apiKey: endpointKey }), (e: unknown) => {
      assert.ok(isApiError(e, 'not_found'), String(e));
      assert.equal(e.serverMessage, 'bad api_key [redacted] (account [redacted]) for endpoint llm');
      return true;
    });
    await mock.close();
  });

  it('a bare string is an error for all four calls, never data', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const calls: Array<[string, () => Promise<unknown>, RegExp]> = [
      [
        'endpoint workers',
        () => client.serverless.endpointWorkers(424_242),
        /^Could not list the workers of endpoint 424242: it was not found\. The service said: "authenticate_endpoint_apikey: invalid api_key or endpoint 424242 not found"/,
      ],
      [
        'endpoint logs',
        () => client.serverless.endpointLogs({ id: 424_242, name: 'ghost' }),
        /^Could not read the logs of endpoint "ghost": it was not found\. The service said: "authenticate_endpoint_apikey: invalid api_key or endpoint ghost not found"/,
      ],
      [
        'group workers',
        () => client.serverless.workerGroupWorkers(424_242),
        /^Could not list the workers of worker group 424242: it was not found\. .*workergroup 424242 not found/,
      ],
      [
        'group logs',
        () => client.serverless.workerGroupLogs(424_242, 10),
        /^Could not read the logs of worker group 424242: it was not found\. .*workergroup 424242 not found/,
      ],
    ];
    for (const [name, run, message] of calls) {
      await assert.rejects(run(), (e: unknown) => {
        assert.ok(isApiError(e, 'not_found'), `${name}: ${String(e)}`);
        assert.match(e.message, message, name);
        return true;
      });
    }
  });

  it('a wrong account key is an auth error and a key without misc is forbidden, naming it', async () => {
    const { id, groupId } = await endpointWithGroup('guarded', { cold_workers: 1, max_workers: 1 });
    const owner = clientFor(sim.url, DEMO_KEY).client;
    const readOnly = (await owner.apiKeys.create({ name: 'ro', permissions: { api: { instance_read: {} } } })).key;
    await assert.rejects(
      clientFor(sim.url, 'not-a-key-000000000000').client.serverless.workerGroupWorkers(groupId),
      (e: unknown) => isApiError(e, 'auth') && e.status === 401,
    );
    await assert.rejects(clientFor(sim.url, readOnly).client.serverless.endpointLogs({ id, name: 'guarded' }), (e: unknown) => {
      assert.ok(isApiError(e, 'forbidden'), String(e));
      assert.equal(e.permission, 'misc');
      return true;
    });
  });

  it('is retried like any read: a 502 and a 429 from the autoscaler, then its answer', async () => {
    const { groupId } = await endpointWithGroup('flaky', { cold_workers: 2, max_workers: 2 });
    const { client, logger } = clientFor(sim.url, DEMO_KEY);
    sim.control.addFault({ kind: '502', count: 1, path: '/get_workergroup_workers' });
    sim.control.addFault({ kind: '429', count: 1, path: '/get_workergroup_workers' });
    assert.equal((await client.serverless.workerGroupWorkers(groupId)).length, 2);
    assert.equal(logger.lines.filter((l) => /^warn POST \/get_workergroup_workers\/: .* retry/.test(l)).length, 2, logger.lines.join('\n'));
  });

  it('refuses a tail that is not a whole number of lines before sending anything', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const before = sim.control.state().requestCount;
    for (const tail of [0, -5, 2.5, Number.NaN]) {
      await assert.rejects(client.serverless.workerGroupLogs(1, tail), RangeError);
      await assert.rejects(client.serverless.endpointLogs({ id: 1, name: 'x' }, tail), RangeError);
    }
    assert.equal(sim.control.state().requestCount, before);
  });

  it('a configured serverlessUrl gets the four calls and the key; the base URL the rest', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const seen: string[] = [];
    const answer = (origin: string, body: object) => (opts: { path: string; headers?: unknown }) => {
      seen.push(`${origin}${opts.path} ${(opts.headers as Record<string, string>).authorization}`);
      return body;
    };
    mock
      .get('https://autoscaler.example.com')
      .intercept({ path: '/sl/get_endpoint_workers/', method: 'POST' })
      .reply(
        200,
        answer('https://autoscaler.example.com', {
          workers: [
            {
              id: 1,
              status: 'running',
              url: 'http://192.168.1.10:8000',
              created_at: '2023-10-01T12:00:00Z',
              cur_load: 0.5,
              perf: 120,
              reqs_working: 2,
              gpu_util: 0.9,
            },
            { id: 2 },
          ],
        }),
      );
    mock
      .get('https://console.vast.ai')
      .intercept({ path: '/api/v0/endptjobs/', method: 'GET' })
      .reply(200, answer('https://console.vast.ai', { success: true, results: [] }));
    const client = new GpuRentalClient({
      dispatcher: mock,
      baseUrl: 'https://console.vast.ai',
      serverlessUrl: 'https://autoscaler.example.com/sl/',
      getApiKey: () => 'the-account-key',
      logger: new MemoryLogger(),
      timeoutMs: 2_000,
    });
    const workers = await client.serverless.endpointWorkers(7);
    assert.deepEqual(workers, [
      {
        id: 1,
        status: 'running',
        url: 'http://192.168.1.10:8000',
        created_at: '2023-10-01T12:00:00Z',
        cur_load: 0.5,
        perf: 120,
        reqs_working: 2,
      },
      { id: 2 },
    ]);
    await client.serverless.listEndpoints();
    assert.deepEqual(seen, [
      'https://autoscaler.example.com/sl/get_endpoint_workers/ Bearer the-account-key',
      'https://console.vast.ai/api/v0/endptjobs/ Bearer the-account-key',
    ]);
    await mock.close();
  });

  it('derives the serverless host from the base URL, and holds a configured one to the same rules', () => {
    assert.equal(serverlessUrlFor('https://CONSOLE.vast.ai/'), 'https://run.vast.ai');
    assert.equal(serverlessUrlFor('https://console.vast.ai/api/v0'), 'https://run.vast.ai');
    assert.equal(
      serverlessUrlFor('https://console.vast.ai.example.com'),
      'https://console.vast.ai.example.com',
      'only the service itself, not a look-alike',
    );
    assert.equal(serverlessUrlFor('http://localhost:8790/'), 'http://localhost:8790');
    assert.throws(() => serverlessUrlFor('http://console.vast.ai'), /plain http/);
    assert.throws(() => serverlessUrlFor('not a url'), /not a valid URL/);
    const make = (serverlessUrl: string) =>
      new GpuRentalClient({
        dispatcher: new Agent(),
        baseUrl: 'https://console.vast.ai',
        serverlessUrl,
        getApiKey: () => 'k',
        logger: new MemoryLogger(),
        timeoutMs: 1_000,
      });
    assert.throws(() => make('http://10.0.0.5:9000'), /plain http/);
    assert.throws(() => make('ftp://run.vast.ai'), /must start with https/);
    assert.throws(() => make('https://run.vast.ai/?key=1'), /query or a fragment/);
    assert.doesNotThrow(() => make('http://127.0.0.1:9000'));
  });
});
