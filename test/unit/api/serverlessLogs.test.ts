import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import { isApiError } from '../../../src/core/api/errors';
import { WORKER_GROUP_LOG_PATHS } from '../../../src/core/api/serverless';
import type { RequestDispatcher } from '../../../src/core/api/transport';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace } from '../../support';

/** Records the path and body of every request, then sends it on. */
function recording(): { dispatcher: RequestDispatcher; seen: Array<{ path: string; body: string }> } {
  const agent = new Agent();
  const seen: Array<{ path: string; body: string }> = [];
  return {
    seen,
    dispatcher: {
      request(options: Dispatcher.RequestOptions) {
        seen.push({ path: options.path, body: String(options.body ?? '') });
        return agent.request(options);
      },
    },
  };
}

/** A simulator without some routes, with one endpoint and one worker group; the group's id. */
async function withGroup(withoutRoutes: string[]): Promise<{ sim: Marketplace; groupId: number }> {
  const sim = await startSimulator({ withoutRoutes });
  const { client } = clientFor(sim.url, DEMO_KEY);
  const endpointId = await client.serverless.createEndpoint({ endpoint_name: 'logs' });
  const [template] = await client.templates.search();
  const groupId = await client.serverless.createWorkerGroup({
    endpoint_id: endpointId,
    template_hash: template!.hash_id,
    test_workers: 0,
    cold_workers: 1,
    max_workers: 1,
  });
  return { sim, groupId };
}

describe('worker-group logs under either route name', () => {
  let sim: Marketplace | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });

  it("asks the CLI's /get_autogroup_logs/ first, with the account key in the body, and keeps asking it", async () => {
    const made = await withGroup([]);
    sim = made.sim;
    const { dispatcher, seen } = recording();
    const { client } = clientFor(sim.url, DEMO_KEY, { dispatcher });
    assert.equal(client.serverless.workerGroupLogPath, '/get_autogroup_logs/');
    const log = await client.serverless.workerGroupLogs(made.groupId, 5);
    assert.match(log, new RegExp(`worker group ${made.groupId} created`));
    await client.serverless.workerGroupLogs(made.groupId, 5);
    assert.deepEqual(
      seen.map((r) => r.path),
      ['/get_autogroup_logs/', '/get_autogroup_logs/'],
    );
    assert.deepEqual(JSON.parse(seen[0]!.body), { id: made.groupId, tail: 5, api_key: DEMO_KEY });
  });

  it('falls back to the OpenAPI name on a 404, and remembers it for that client only', async () => {
    const made = await withGroup(['/get_autogroup_logs']);
    sim = made.sim;
    const { dispatcher, seen } = recording();
    const { client, logger } = clientFor(sim.url, DEMO_KEY, { dispatcher });
    const first = await client.serverless.workerGroupLogs(made.groupId);
    assert.match(first, /created/);
    assert.equal(client.serverless.workerGroupLogPath, '/get_workergroup_logs/');
    const second = await client.serverless.workerGroupLogs(made.groupId);
    assert.equal(second, first);
    assert.deepEqual(
      seen.map((r) => r.path),
      ['/get_autogroup_logs/', '/get_workergroup_logs/', '/get_workergroup_logs/'],
      'the 404 is paid once',
    );
    assert.ok(
      logger.lines.some((l) => /get_autogroup_logs\/ answered 404; trying the other name/.test(l)),
      logger.lines.join('\n'),
    );
    assert.ok(logger.lines.every((l) => !l.includes(DEMO_KEY)));
    // Another client (another window, another account) finds out for itself.
    assert.equal(clientFor(sim.url, DEMO_KEY).client.serverless.workerGroupLogPath, '/get_autogroup_logs/');
  });

  it('goes back to the other name when the remembered one disappears', async () => {
    // Two services behind one base URL: the first serves only the OpenAPI's name, the second (after
    // an upgrade, say) only the CLI's. Fresh simulators give the group the same id.
    const before = await withGroup(['/get_autogroup_logs']);
    const after = await withGroup(['/get_workergroup_logs']);
    sim = before.sim;
    assert.equal(after.groupId, before.groupId);
    const agent = new Agent();
    let target = before.sim.url;
    const seen: string[] = [];
    const dispatcher: RequestDispatcher = {
      request(options: Dispatcher.RequestOptions) {
        seen.push(`${target === before.sim.url ? 'before' : 'after'} ${options.path}`);
        return agent.request({ ...options, origin: target });
      },
    };
    const { client } = clientFor(before.sim.url, DEMO_KEY, { dispatcher });
    try {
      await client.serverless.workerGroupLogs(before.groupId);
      assert.equal(client.serverless.workerGroupLogPath, '/get_workergroup_logs/');
      target = after.sim.url;
      assert.match(await client.serverless.workerGroupLogs(before.groupId), /created/);
      assert.equal(client.serverless.workerGroupLogPath, '/get_autogroup_logs/');
      assert.deepEqual(seen, [
        'before /get_autogroup_logs/',
        'before /get_workergroup_logs/',
        'after /get_workergroup_logs/',
        'after /get_autogroup_logs/',
      ]);
    } finally {
      await after.sim.stop();
    }
  });

  it('when neither name is served, says the logs were not found, with the 404', async () => {
    const made = await withGroup([...WORKER_GROUP_LOG_PATHS].map((p) => p.replace(/\/$/, '')));
    sim = made.sim;
    const { dispatcher, seen } = recording();
    const { client } = clientFor(sim.url, DEMO_KEY, { dispatcher });
    await assert.rejects(client.serverless.workerGroupLogs(made.groupId), (e: unknown) => {
      assert.ok(isApiError(e, 'not_found'), String(e));
      assert.equal(e.status, 404);
      assert.match(e.message, new RegExp(`^Could not read the logs of worker group ${made.groupId}: it was not found`));
      assert.ok(!inspect(e).includes(DEMO_KEY) && !e.toLogString().includes(DEMO_KEY));
      return true;
    });
    assert.deepEqual(
      seen.map((r) => r.path),
      ['/get_autogroup_logs/', '/get_workergroup_logs/'],
    );
  });

  it("an unknown group (the autoscaler's 200 with a string) is not a missing route: no fallback", async () => {
    const made = await withGroup([]);
    sim = made.sim;
    const { dispatcher, seen } = recording();
    const { client } = clientFor(sim.url, DEMO_KEY, { dispatcher });
    await assert.rejects(client.serverless.workerGroupLogs(987_654), (e: unknown) => isApiError(e, 'not_found') && e.status === 200);
    assert.deepEqual(
      seen.map((r) => r.path),
      ['/get_autogroup_logs/'],
    );
    assert.equal(client.serverless.workerGroupLogPath, '/get_autogroup_logs/');
  });

  it('a key without misc is forbidden on either name, and the key in the body never shows', async () => {
    const made = await withGroup(['/get_autogroup_logs']);
    sim = made.sim;
    const owner = clientFor(sim.url, DEMO_KEY).client;
    const readOnly = (await owner.apiKeys.create({ name: 'ro', permissions: { api: { instance_read: {} } } })).key;
    const { client, logger } = clientFor(sim.url, readOnly);
    await assert.rejects(client.serverless.workerGroupLogs(made.groupId), (e: unknown) => {
      assert.ok(isApiError(e, 'forbidden'), String(e));
      assert.ok(!inspect(e).includes(readOnly) && !JSON.stringify(e).includes(readOnly));
      return true;
    });
    assert.ok(logger.lines.every((l) => !l.includes(readOnly)));
  });
});
