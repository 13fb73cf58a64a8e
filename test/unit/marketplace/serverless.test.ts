import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKER_LOAD_MS } from '../../marketplace/workers';
import { call, clientFor, DEMO_KEY, FakeClock, obj, simulatorForSuite, startSimulator, type Marketplace } from '../../support';

interface Worker {
  id: number;
  status: string;
  url: string;
  created_at: number;
  cur_load: number;
  perf: number;
  reqs_working: number;
}

/** Times in the logs, to the second, as the service prints them. */
const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

describe('marketplace: serverless workers and logs', () => {
  const sim = simulatorForSuite({}, { each: true, clock: true });
  let templateHash: string;
  beforeEach(async () => {
    templateHash = (obj(await call(sim, 'GET', '/api/v0/template/')).templates as Array<{ hash_id: string }>)[0]!.hash_id;
  });

  async function endpoint(name: string, key = DEMO_KEY): Promise<{ id: number; routingKey: string }> {
    const id = obj(await call(sim, 'POST', '/api/v0/endptjobs/', { client_id: 'me', endpoint_name: name }, key)).result as number;
    const list = obj(await call(sim, 'GET', '/api/v0/endptjobs/', undefined, key)).results as Array<{ id: number; api_key: string }>;
    return { id, routingKey: list.find((e) => e.id === id)!.api_key };
  }

  async function group(endpointId: number, fields: Record<string, unknown>, key = DEMO_KEY): Promise<number> {
    const res = await call(
      sim,
      'POST',
      '/api/v0/workergroups/',
      { endpoint_id: endpointId, template_hash: templateHash, test_workers: 0, ...fields },
      key,
    );
    return obj(res).id as number;
  }

  async function workers(path: string, body: unknown, key = DEMO_KEY): Promise<Worker[]> {
    const res = await call(sim, 'POST', path, body, key);
    assert.equal(res.status, 200, res.text);
    return obj(res).workers as Worker[];
  }

  async function logs(path: string, body: unknown): Promise<string[]> {
    const text = obj(await call(sim, 'POST', path, body)).logs as string;
    return text === '' ? [] : text.split('\n');
  }

  it('a new group brings up cold_workers workers, loading until WORKER_LOAD_MS has passed on the clock, then idle', async () => {
    const created = sim.clock.now();
    const { id } = await endpoint('llm');
    const g = await group(id, { cold_workers: 2, max_workers: 5 });
    // With and without the trailing slash, as every other path.
    const listed = await workers('/get_workergroup_workers/', { id: g });
    assert.deepEqual(await workers('/get_workergroup_workers', { id: g }), listed);
    assert.equal(listed.length, 2);
    for (const w of listed) {
      assert.deepEqual(Object.keys(w).sort(), ['created_at', 'cur_load', 'id', 'perf', 'reqs_working', 'status', 'url']);
      assert.equal(w.status, 'loading');
      assert.equal(w.created_at, created / 1000);
      assert.match(w.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    }
    await sim.clock.advance(WORKER_LOAD_MS - 1000);
    assert.deepEqual(
      (await workers('/get_endpoint_workers/', { id })).map((w) => w.status),
      ['loading', 'loading'],
      'a second before it is due',
    );
    await sim.clock.advance(1000);
    const ready = await workers('/get_endpoint_workers', { id });
    assert.deepEqual(
      ready.map((w) => w.status),
      ['idle', 'idle'],
    );
    assert.ok(ready.every((w) => w.perf > 0));

    const lines = await logs('/get_workergroup_logs/', { id: g });
    assert.deepEqual(lines, [
      `${stamp(created)} - worker group ${g} created with template ${templateHash}`,
      `${stamp(created)} - worker ${listed[0]!.id} loading`,
      `${stamp(created)} - worker ${listed[1]!.id} loading`,
      `${stamp(created)} - scaled to 2 workers`,
      `${stamp(created + WORKER_LOAD_MS)} - worker ${listed[0]!.id} ready`,
      `${stamp(created + WORKER_LOAD_MS)} - worker ${listed[1]!.id} ready`,
    ]);
  });

  it("an endpoint's workers are those of all its groups; max(cold, test) capped by max_workers", async () => {
    const { id } = await endpoint('two-groups');
    const a = await group(id, { cold_workers: 1, max_workers: 3 });
    const b = await group(id, { cold_workers: 0, test_workers: 4, max_workers: 2 });
    const none = await group(id, { cold_workers: 0, max_workers: 9 });
    assert.equal((await workers('/get_workergroup_workers', { id: a })).length, 1);
    assert.equal((await workers('/get_workergroup_workers', { id: b })).length, 2, 'test_workers 4, capped at 2');
    assert.equal((await workers('/get_workergroup_workers', { id: none })).length, 0);
    assert.equal((await workers('/get_endpoint_workers', { id })).length, 3);
  });

  it('updating cold_workers or max_workers scales the list; the newest go first, and the log says so after earlier events', async () => {
    const { id } = await endpoint('scaled');
    const g = await group(id, { cold_workers: 1, max_workers: 4 });
    const first = (await workers('/get_workergroup_workers', { id: g }))[0]!;
    await sim.clock.advance(60_000);
    const scaledAt = sim.clock.now();
    assert.equal((await call(sim, 'PUT', `/api/v0/workergroups/${g}/`, { cold_workers: 4 })).status, 200);
    const up = await workers('/get_workergroup_workers', { id: g });
    assert.equal(up.length, 4);
    assert.deepEqual(
      up.map((w) => w.status),
      ['idle', 'loading', 'loading', 'loading'],
      'the old worker stays, the new ones load',
    );
    assert.equal(up[0]!.id, first.id);

    await call(sim, 'PUT', `/api/v0/autojobs/${g}/`, { max_workers: 2 });
    const down = await workers('/get_workergroup_workers', { id: g });
    assert.deepEqual(
      down.map((w) => w.id),
      [up[0]!.id, up[1]!.id],
      'the two newest stopped',
    );

    const lines = await logs('/get_workergroup_logs', { id: g });
    // The first worker became ready at creation + 5 s, before the update at + 60 s: its line comes first.
    const readyLine = lines.findIndex((l) => l.endsWith(`worker ${first.id} ready`));
    const updateLine = lines.findIndex((l) => l.includes('updated cold_workers=4'));
    assert.ok(readyLine >= 0 && readyLine < updateLine, lines.join('\n'));
    assert.ok(lines[updateLine]!.startsWith(stamp(scaledAt)));
    assert.deepEqual(
      lines.slice(updateLine).map((l) => l.slice(22)),
      [
        'updated cold_workers=4',
        `worker ${up[1]!.id} loading`,
        `worker ${up[2]!.id} loading`,
        `worker ${up[3]!.id} loading`,
        'scaled to 4 workers',
        'updated max_workers=2',
        `worker ${up[2]!.id} stopped (scaled down)`,
        `worker ${up[3]!.id} stopped (scaled down)`,
        'scaled to 2 workers',
      ],
    );
    const times = lines.map((l) => l.slice(0, 19));
    assert.deepEqual(times, [...times].sort(), 'never an earlier time after a later one');
  });

  it("the endpoint's log holds its groups' lines and its own updates; tail keeps the last lines", async () => {
    const { id } = await endpoint('logged');
    const g = await group(id, { cold_workers: 2, max_workers: 2 });
    assert.equal((await call(sim, 'PUT', `/api/v0/endptjobs/${id}/`, { target_util: 0.5, max_workers: 8 })).status, 200);
    const all = await logs('/get_endpoint_logs/', { endpoint: 'logged' });
    assert.equal(all.length, 5);
    assert.ok(all.slice(0, 4).every((l) => l.endsWith(` [worker group ${g}]`)));
    assert.match(all[4]!, new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d - endpoint ${id} updated target_util=0.5 max_workers=8$`));
    assert.deepEqual(await logs('/get_endpoint_logs', { endpoint: 'logged', tail: 2 }), all.slice(-2));
    assert.deepEqual(await logs('/get_workergroup_logs', { id: g, tail: 1 }), [`${stamp(sim.clock.now())} - scaled to 2 workers`]);
    assert.deepEqual(await logs('/get_endpoint_logs', { id }), all, 'found by id when no name is given');
  });

  it('deleting a group removes its workers and its log; deleting the endpoint removes all of them', async () => {
    const { id } = await endpoint('doomed');
    const a = await group(id, { cold_workers: 2, max_workers: 2 });
    const b = await group(id, { cold_workers: 1, max_workers: 1 });
    assert.equal((await workers('/get_endpoint_workers', { id })).length, 3);
    const deleted = obj(await call(sim, 'DELETE', `/api/v0/workergroups/${a}/`, {}));
    assert.equal((deleted.deleted_workers as number[]).length, 2);
    assert.equal((await workers('/get_endpoint_workers', { id })).length, 1);
    assert.equal(
      (await call(sim, 'POST', '/get_workergroup_logs/', { id: a })).json,
      `authenticate_workergroup_apikey: invalid api_key or workergroup ${a} not found`,
    );
    assert.match(
      (await logs('/get_endpoint_logs', { endpoint: 'doomed' })).at(-1)!,
      new RegExp(`worker group ${a} deleted with 2 workers \\[worker group ${a}\\]$`),
    );

    await call(sim, 'DELETE', `/api/v0/endptjobs/${id}/`, {});
    for (const [path, body] of [
      ['/get_workergroup_workers', { id: b }],
      ['/get_endpoint_workers', { id }],
      ['/get_endpoint_logs', { endpoint: 'doomed' }],
    ] as const) {
      const res = await call(sim, 'POST', path, body);
      assert.equal(res.status, 200);
      assert.equal(typeof res.json, 'string', `${path}: ${res.text}`);
    }
  });

  it("an unknown id, another account's, a name not found or a foreign body api_key: 200 with the service's string", async () => {
    const { id, routingKey } = await endpoint('mine');
    const g = await group(id, { cold_workers: 1, max_workers: 1 });
    const other = sim.control.addAccount({ email: 'other@example.test' });
    const theirs = await endpoint('theirs', other.key);
    const refusals: Array<[string, unknown, string, string?]> = [
      ['/get_endpoint_workers', { id: 999_999 }, 'authenticate_endpoint_apikey: invalid api_key or endpoint 999999 not found'],
      ['/get_endpoint_workers', { id: theirs.id }, `authenticate_endpoint_apikey: invalid api_key or endpoint ${theirs.id} not found`],
      [
        '/get_endpoint_logs',
        { endpoint: 'theirs', id: theirs.id },
        'authenticate_endpoint_apikey: invalid api_key or endpoint theirs not found',
      ],
      [
        '/get_endpoint_logs',
        { endpoint: 'nope', id },
        'authenticate_endpoint_apikey: invalid api_key or endpoint nope not found',
        'the name wins over the id',
      ],
      [
        '/get_workergroup_workers',
        { id: g },
        `authenticate_workergroup_apikey: invalid api_key or workergroup ${g} not found`,
        'asked by the other account',
      ],
      ['/get_workergroup_logs', {}, 'authenticate_workergroup_apikey: invalid api_key or workergroup not found'],
      [
        '/get_endpoint_logs',
        { endpoint: 'mine', api_key: theirs.routingKey },
        'authenticate_endpoint_apikey: invalid api_key or endpoint mine not found',
        "another endpoint's key",
      ],
      [
        '/get_workergroup_logs',
        { id: g, api_key: other.key },
        `authenticate_workergroup_apikey: invalid api_key or workergroup ${g} not found`,
        "another account's key",
      ],
    ];
    for (const [path, body, said, why] of refusals) {
      const res = await call(sim, 'POST', path, body, why === 'asked by the other account' ? other.key : DEMO_KEY);
      assert.equal(res.status, 200, `${path} ${JSON.stringify(body)}`);
      assert.equal(res.json, said, `${path} ${JSON.stringify(body)} (${why ?? ''})`);
    }
    // A body api_key that fits: the endpoint's routing key, or (as the CLI sends it) a key of the account.
    assert.equal(typeof obj(await call(sim, 'POST', '/get_endpoint_logs', { endpoint: 'mine', api_key: routingKey })).logs, 'string');
    assert.equal(typeof obj(await call(sim, 'POST', '/get_workergroup_workers', { id: g, api_key: routingKey })).workers, 'object');
    assert.equal(typeof obj(await call(sim, 'POST', '/get_endpoint_workers', { id, api_key: DEMO_KEY })).workers, 'object');
  });

  it('checks the Bearer key like the other serverless routes: 401 without or with a wrong one, 403 without misc', async () => {
    const { id } = await endpoint('guarded');
    const scoped = obj(await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'reader', permissions: { api: { instance_read: {} } } }))
      .key as string;
    const withMisc = obj(await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'misc', permissions: { api: { misc: {} } } }))
      .key as string;
    for (const path of ['/get_endpoint_workers/', '/get_endpoint_logs/', '/get_workergroup_workers/', '/get_workergroup_logs/']) {
      assert.equal((await call(sim, 'POST', path, { id, endpoint: 'guarded' }, null)).status, 401, path);
      assert.equal((await call(sim, 'POST', path, { id, endpoint: 'guarded' }, 'wrong-key-0000000000')).status, 401, path);
      const forbidden = await call(sim, 'POST', path, { id, endpoint: 'guarded' }, scoped);
      assert.equal(forbidden.status, 403, path);
      assert.equal(obj(forbidden).error, 'permission_denied');
      assert.equal((await call(sim, 'POST', path, { id, endpoint: 'guarded' }, withMisc)).status, 200, path);
      assert.equal((await call(sim, 'GET', path, undefined)).status, 405, `${path} is POST only`);
    }
  });
});

describe('marketplace: serverless updates the way the official CLI sends them', () => {
  const sim = simulatorForSuite({}, { each: true });
  let templateHash: string;
  beforeEach(async () => {
    templateHash = (obj(await call(sim, 'GET', '/api/v0/template/')).templates as Array<{ hash_id: string }>)[0]!.hash_id;
  });

  const ENDPOINT_NULLS = {
    endpoint_name: null,
    min_load: null,
    min_cold_load: null,
    target_util: null,
    cold_mult: null,
    cold_workers: null,
    max_workers: null,
    max_queue_time: null,
    target_queue_time: null,
    inactivity_timeout: null,
    endpoint_state: null,
    autoscaler_instance: null,
  };
  const GROUP_NULLS = {
    endpoint_name: null,
    endpoint_id: null,
    template_hash: null,
    template_id: null,
    search_params: null,
    launch_args: null,
    gpu_ram: null,
    test_workers: null,
    min_load: null,
    target_util: null,
    cold_mult: null,
    cold_workers: null,
    max_workers: null,
  };

  it('an endpoint update with every field not given sent as null changes only the given one', async () => {
    const id = obj(
      await call(sim, 'POST', '/api/v0/endptjobs/', { client_id: 'me', endpoint_name: 'keep-me', max_workers: 9, target_util: 0.8 }),
    ).result as number;
    const before = (obj(await call(sim, 'GET', '/api/v0/endptjobs/')).results as Array<Record<string, unknown>>).find((e) => e.id === id)!;
    const res = await call(sim, 'PUT', `/api/v0/endptjobs/${id}/`, {
      client_id: 'me',
      endptjob_id: id,
      ...ENDPOINT_NULLS,
      cold_workers: 2,
    });
    assert.equal(res.status, 200, res.text);
    const after = (obj(await call(sim, 'GET', '/api/v0/endptjobs/')).results as Array<Record<string, unknown>>).find((e) => e.id === id)!;
    assert.equal(after.endpoint_name, 'keep-me');
    assert.equal(after.endpoint_state, 'active');
    assert.deepEqual(after, { ...before, cold_workers: 2 });
    // A real value is still checked.
    assert.equal((await call(sim, 'PUT', `/api/v0/endptjobs/${id}/`, { endpoint_state: 'asleep' })).status, 400);
    assert.equal((await call(sim, 'PUT', `/api/v0/endptjobs/${id}/`, { endpoint_state: 'suspended' })).status, 200);
  });

  it('a worker group update with nulls keeps its template, GPU RAM and endpoint; a create with nulls gets the defaults', async () => {
    const endpointId = obj(await call(sim, 'POST', '/api/v0/endptjobs/', { client_id: 'me', endpoint_name: 'groups' })).result as number;
    const created = await call(sim, 'POST', '/api/v0/workergroups/', {
      client_id: 'me',
      ...GROUP_NULLS,
      endpoint_id: endpointId,
      template_hash: templateHash,
      gpu_ram: 48,
      test_workers: 0,
      cold_workers: 0,
    });
    assert.equal(created.status, 200, created.text);
    const id = obj(created).id as number;
    const list = async () =>
      (obj(await call(sim, 'GET', '/api/v0/workergroups/')).results as Array<Record<string, unknown>>).find((g) => g.id === id)!;
    const before = await list();
    assert.equal(before.max_workers, 20, 'the default, not null');
    assert.equal(before.launch_args, '');
    const res = await call(sim, 'PUT', `/api/v0/workergroups/${id}/`, { client_id: 'me', autojob_id: id, ...GROUP_NULLS, max_workers: 4 });
    assert.equal(res.status, 200, res.text);
    const after = await list();
    assert.equal(after.template_hash, templateHash);
    assert.equal(after.gpu_ram, 48);
    assert.equal(after.endpoint_name, 'groups');
    assert.deepEqual(after, { ...before, max_workers: 4 });
  });

  it("GPU Rental's own lists still read both after such updates", async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const endpointId = await client.serverless.createEndpoint({ endpoint_name: 'read-back' });
    const groupId = await client.serverless.createWorkerGroup({
      endpoint_id: endpointId,
      template_hash: templateHash,
      test_workers: 0,
      cold_workers: 0,
    });
    await call(sim, 'PUT', `/api/v0/endptjobs/${endpointId}/`, { ...ENDPOINT_NULLS, max_workers: 3 });
    await call(sim, 'PUT', `/api/v0/workergroups/${groupId}/`, { ...GROUP_NULLS, min_load: 2 });
    const [endpoint] = await client.serverless.listEndpoints();
    assert.equal(endpoint!.endpoint_name, 'read-back');
    assert.equal(endpoint!.max_workers, 3);
    const [group] = await client.serverless.listWorkerGroups();
    assert.equal(group!.template_hash, templateHash);
    assert.equal(group!.min_load, 2);
    assert.equal(group!.gpu_ram, 24);
  });
});

describe('marketplace: worker-group logs under both names', () => {
  it('serves /get_autogroup_logs/ (the CLI) and /get_workergroup_logs/ (the OpenAPI) alike; withoutRoutes takes one away', async () => {
    for (const without of [[], ['/get_autogroup_logs'], ['/get_workergroup_logs']]) {
      const sim = await startSimulator({ withoutRoutes: without });
      try {
        const templateHash = (obj(await call(sim, 'GET', '/api/v0/template/')).templates as Array<{ hash_id: string }>)[0]!.hash_id;
        const endpointId = obj(await call(sim, 'POST', '/api/v0/endptjobs/', { client_id: 'me', endpoint_name: 'named' })).result as number;
        const id = obj(
          await call(sim, 'POST', '/api/v0/workergroups/', {
            endpoint_id: endpointId,
            template_hash: templateHash,
            test_workers: 0,
            cold_workers: 1,
          }),
        ).id as number;
        const answers: Record<string, { status: number; logs?: unknown }> = {};
        for (const path of ['/get_autogroup_logs/', '/get_workergroup_logs/']) {
          const res = await call(sim, 'POST', path, { id, tail: 50, api_key: DEMO_KEY });
          answers[path] = { status: res.status, logs: res.status === 200 ? obj(res).logs : undefined };
        }
        for (const [path, answer] of Object.entries(answers)) {
          const removed = without.some((w) => path.startsWith(w));
          assert.equal(answer.status, removed ? 404 : 200, `${path} without ${without.join(',') || 'nothing'}`);
          if (!removed) assert.match(String(answer.logs), new RegExp(`worker group ${id} created`));
        }
        if (without.length === 0) assert.equal(answers['/get_autogroup_logs/']!.logs, answers['/get_workergroup_logs/']!.logs);
      } finally {
        await sim.stop();
      }
    }
  });
});

describe('marketplace: serverless state file', () => {
  it('keeps workers, their readiness and the logs in the state file; an older file without them still loads', async () => {
    const clock = new FakeClock();
    const dir = mkdtempSync(join(tmpdir(), 'marketplace-serverless-'));
    let sim: Marketplace | undefined;
    try {
      const file = join(dir, 'state.json');
      sim = await startSimulator({ stateFile: file, now: clock.now });
      const at = (s: Marketplace) => ({
        workers: async (path: string, body: unknown) => obj(await call(s, 'POST', path, body)).workers as Worker[],
        logs: async (path: string, body: unknown) => (obj(await call(s, 'POST', path, body)).logs as string).split('\n').filter(Boolean),
      });
      const hash = (obj(await call(sim, 'GET', '/api/v0/template/')).templates as Array<{ hash_id: string }>)[0]!.hash_id;
      const id = obj(await call(sim, 'POST', '/api/v0/endptjobs/', { endpoint_name: 'kept' })).result as number;
      const g = obj(
        await call(sim, 'POST', '/api/v0/workergroups/', {
          endpoint_id: id,
          template_hash: hash,
          cold_workers: 2,
          max_workers: 3,
          test_workers: 0,
        }),
      ).id as number;
      let { workers, logs } = at(sim);
      await clock.advance(WORKER_LOAD_MS);
      const before = await workers('/get_endpoint_workers', { id });
      const logBefore = await logs('/get_endpoint_logs', { endpoint: 'kept' });
      await sim.stop();

      sim = await startSimulator({ stateFile: file, now: clock.now });
      ({ workers, logs } = at(sim));
      assert.deepEqual(await workers('/get_endpoint_workers', { id }), before);
      assert.deepEqual(await logs('/get_endpoint_logs', { endpoint: 'kept' }), logBefore, 'no worker is announced ready twice');
      await call(sim, 'PUT', `/api/v0/workergroups/${g}/`, { cold_workers: 3 });
      const after = await workers('/get_workergroup_workers', { id: g });
      assert.equal(after.length, 3);
      assert.ok(after[2]!.id > before[1]!.id, 'worker ids keep counting');
      await sim.stop();

      // A file written before workers existed: no `workers`, no `serverlessLogs`, no worker id counter.
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { ids: Record<string, number> };
      delete saved.workers;
      delete saved.serverlessLogs;
      delete saved.ids.worker;
      writeFileSync(file, JSON.stringify(saved));
      sim = await startSimulator({ stateFile: file, now: clock.now });
      ({ workers, logs } = at(sim));
      assert.deepEqual(await workers('/get_workergroup_workers', { id: g }), [], 'its groups have no workers yet');
      assert.deepEqual(await logs('/get_workergroup_logs', { id: g }), []);
      await call(sim, 'PUT', `/api/v0/workergroups/${g}/`, { max_workers: 2 });
      assert.deepEqual(
        (await workers('/get_workergroup_workers', { id: g })).map((w) => w.status),
        ['loading', 'loading'],
        'the next change brings them up',
      );
    } finally {
      await sim?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
