import assert from 'node:assert/strict';
import fc from 'fast-check';
import { writeOutcome } from '../../../src/core/api/clusters';
import { isApiError } from '../../../src/core/api/errors';
import { checkCreate, joinOverlayEnv, overlayNameProblem } from '../../../src/core/api/instanceRequests';
import { unreadableOf } from '../../../src/core/api/unreadable';
import { failure, mockedApi } from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'sk-clusters-0123456789abcdef0123456789';
const OVERLAY = '/api/v0/overlay/';

/** The client against scripted answers; every JSON body sent is kept in `sent`, with its method. */
function mocked(extra: Parameters<typeof mockedApi>[2] = {}) {
  const api = mockedApi(BASE, KEY, extra);
  const sent: Array<{ method: string; body: unknown }> = [];
  const answer = (method: string, path: string, status: number, data: unknown) =>
    api.pool.intercept({ path, method }).reply((req) => {
      sent.push({ method, body: req.body === undefined || req.body === null ? undefined : JSON.parse(String(req.body)) });
      return { statusCode: status, data: typeof data === 'string' ? data : JSON.stringify(data) };
    });
  return { ...api, sent, answer };
}

describe('clusters client: overlay networks (scripted answers)', () => {
  it('lists overlays in the shape the CLI reads, ids sent as text read as numbers', async () => {
    const m = mocked();
    m.answer('GET', OVERLAY, 200, [
      { overlay_id: 3, name: 'train-a', internal_subnet: '10.0.0.0/24', cluster_id: 4812, instances: [101, '102'] },
      { overlay_id: '4', name: 'empty-one', internal_subnet: '10.0.1.0/24', cluster_id: '4813', instances: null, extra: { odd: true } },
    ]);
    assert.deepEqual(await m.client.clusters.overlays(), [
      { overlay_id: 3, name: 'train-a', internal_subnet: '10.0.0.0/24', cluster_id: 4812, instances: [101, 102] },
      { overlay_id: 4, name: 'empty-one', internal_subnet: '10.0.1.0/24', cluster_id: 4813, instances: [] },
    ]);
  });

  it('keeps an overlay whose member list is odd with its members unknown, never an empty list', async () => {
    const m = mocked();
    m.answer('GET', OVERLAY, 200, {
      overlays: [
        { overlay_id: 5, name: 'half-read', cluster_id: 1, instances: [7, 'seven'] },
        { overlay_id: 6, name: 'no-list', cluster_id: 1, instances: 'all' },
        { overlay_id: 7, name: 'missing', cluster_id: 1 },
      ],
    });
    const list = await m.client.clusters.overlays();
    assert.deepEqual(
      list.map((o) => [o.overlay_id, o.instances]),
      [
        [5, undefined],
        [6, undefined],
        [7, undefined],
      ],
    );
  });

  it('leaves out an overlay without a usable id, counts it and logs where, not what', async () => {
    const m = mocked();
    m.answer('GET', OVERLAY, 200, [
      { overlay_id: 8, name: 'good', cluster_id: 2, instances: [] },
      { name: 'secret-looking-name-xyz', cluster_id: 2, instances: [] },
    ]);
    const list = await m.client.clusters.overlays();
    assert.deepEqual(
      list.map((o) => o.overlay_id),
      [8],
    );
    assert.equal(unreadableOf(list)?.dropped, 1);
    const log = m.logger.lines.join('\n');
    assert.match(log, /list overlay networks: 1 record could not be read/);
    assert.ok(!log.includes('secret-looking-name-xyz'), log);
  });

  it('findOverlay answers the overlay of that name, or undefined', async () => {
    const m = mocked();
    m.answer('GET', OVERLAY, 200, [{ overlay_id: 9, name: 'mine', cluster_id: 3, instances: [1] }]);
    m.answer('GET', OVERLAY, 200, [{ overlay_id: 9, name: 'mine', cluster_id: 3, instances: [1] }]);
    assert.equal((await m.client.clusters.findOverlay('mine'))?.overlay_id, 9);
    assert.equal(await m.client.clusters.findOverlay('other'), undefined);
  });

  it('creates, adds to and deletes an overlay with the bodies the CLI sends', async () => {
    const m = mocked();
    m.answer('POST', OVERLAY, 200, { success: true, msg: 'Overlay network created.', overlay_id: 11 });
    m.answer('PUT', OVERLAY, 200, { success: true, msg: 'Instance added.' });
    m.answer('DELETE', OVERLAY, 200, { success: true });
    m.answer('DELETE', OVERLAY, 200, '"Overlay deleted."');
    assert.deepEqual(await m.client.clusters.createOverlay({ clusterId: 4812, name: 'train-a' }), { overlayId: 11 });
    await m.client.clusters.addInstance('train-a', 101);
    await m.client.clusters.deleteOverlay({ overlayId: 11 });
    await m.client.clusters.deleteOverlay({ name: 'train-a' });
    assert.deepEqual(m.sent, [
      { method: 'POST', body: { cluster_id: 4812, name: 'train-a' } },
      { method: 'PUT', body: { name: 'train-a', instance_id: 101 } },
      { method: 'DELETE', body: { overlay_id: 11 } },
      { method: 'DELETE', body: { overlay_name: 'train-a' } },
    ]);
  });

  it('a create answered without an id still succeeds, the id unknown', async () => {
    const m = mocked();
    m.answer('POST', OVERLAY, 200, { success: true, msg: 'ok' });
    assert.deepEqual(await m.client.clusters.createOverlay({ clusterId: 1, name: 'n1' }), { overlayId: undefined });
  });

  it('refuses a name the service would refuse before sending anything: a known outcome', async () => {
    const m = mocked();
    for (const name of ['Train', 'train_a', 'train a', '', 'über', 'a/b']) {
      for (const send of [
        () => m.client.clusters.createOverlay({ clusterId: 1, name }),
        () => m.client.clusters.addInstance(name, 5),
        () => m.client.clusters.deleteOverlay({ name }),
      ]) {
        const error = await failure(send());
        assert.equal(error.kind, 'bad_request', name);
        assert.equal(writeOutcome(error), 'refused', name);
        assert.match(error.message, name === '' ? /needs a name/ : /lower-case letters, digits and hyphens/);
      }
    }
    assert.deepEqual(m.sent, [], 'nothing reached the service');
  });

  it("tells the service's refusals (refused) from answers not seen (unknown), each write sent once", async () => {
    const cases: Array<[string, (m: ReturnType<typeof mocked>, method: string) => void, 'refused' | 'unknown']> = [
      [
        '400 with the reason',
        (m, method) => m.answer(method, OVERLAY, 400, { success: false, msg: 'Overlay name already taken.' }),
        'refused',
      ],
      ['200 with success false', (m, method) => m.answer(method, OVERLAY, 200, { success: false, error: 'no_such_cluster' }), 'refused'],
      ['404', (m, method) => m.answer(method, OVERLAY, 404, { msg: 'no such overlay' }), 'refused'],
      ['502 from a gateway', (m, method) => m.answer(method, OVERLAY, 502, '<html><title>Bad Gateway</title></html>'), 'unknown'],
      ['200 that is not JSON', (m, method) => m.answer(method, OVERLAY, 200, '<html>ok</html>'), 'unknown'],
      [
        'a connection lost after sending',
        (m, method) =>
          m.pool
            .intercept({ path: OVERLAY, method })
            .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
            .persist(),
        'unknown',
      ],
    ];
    const writes: Array<[string, (m: ReturnType<typeof mocked>) => Promise<unknown>]> = [
      ['POST', (m) => m.client.clusters.createOverlay({ clusterId: 4812, name: 'train-a' })],
      ['PUT', (m) => m.client.clusters.addInstance('train-a', 101)],
      ['DELETE', (m) => m.client.clusters.deleteOverlay({ overlayId: 11 })],
    ];
    for (const [what, script, expected] of cases) {
      for (const [method, send] of writes) {
        const m = mocked({ maxAttempts: 3, retryBaseMs: 1, retryMaxMs: 1 });
        script(m, method);
        const error = await failure(send(m));
        assert.equal(writeOutcome(error), expected, `${what} ${method}: ${error.message}`);
        assert.ok(m.sent.length <= 1, `${what} ${method}: sent once, never repeated blindly`);
      }
    }
  });

  it('names the permission a scoped key lacks: user_read to list, user_write to change', async () => {
    const m = mocked();
    m.answer('GET', OVERLAY, 403, { msg: 'API key lacks permission user_read' });
    m.answer('POST', OVERLAY, 401, { success: false, error: 'permission_denied', msg: 'This API key lacks the permission.' });
    m.answer('GET', '/api/v0/clusters/', 403, { msg: 'not allowed' });
    const list = await failure(m.client.clusters.overlays());
    const create = await failure(m.client.clusters.createOverlay({ clusterId: 1, name: 'a' }));
    const clusters = await failure(m.client.clusters.list());
    assert.ok(isApiError(list, 'forbidden') && list.permission === 'user_read', list.message);
    assert.ok(isApiError(create, 'forbidden') && create.permission === 'user_write', create.message);
    assert.ok(isApiError(clusters, 'forbidden') && clusters.permission === 'user_read', clusters.message);
    assert.equal(writeOutcome(create), 'refused');
  });

  it('anything but an ApiError (a cancel mid-request) is an unknown outcome', () => {
    assert.equal(writeOutcome(new DOMException('aborted', 'AbortError')), 'unknown');
    assert.equal(writeOutcome(undefined), 'unknown');
  });
});

describe('clusters client: the clusters list (scripted answers)', () => {
  const CLUSTERS = '/api/v0/clusters/';

  it('reads clusters keyed by id, with their machines, node count and manager', async () => {
    const m = mocked();
    m.answer('GET', CLUSTERS, 200, {
      clusters: {
        '4812': {
          subnet: '10.1.0.0/24',
          nodes: [
            { machine_id: 31, is_cluster_manager: false, local_ip: '10.1.0.2' },
            { machine_id: '32', is_cluster_manager: true, local_ip: '10.1.0.3' },
          ],
        },
        '4813': { node_count: 4 },
      },
    });
    assert.deepEqual(await m.client.clusters.list(), [
      { id: 4812, machineIds: [31, 32], nodeCount: 2, managerMachineId: 32, subnet: '10.1.0.0/24' },
      { id: 4813, nodeCount: 4 },
    ]);
  });

  it('reads a bare list of records with ids, and machine ids given as a list', async () => {
    const m = mocked();
    m.answer('GET', CLUSTERS, 200, [
      { id: 7, machine_ids: [1, 2, 3] },
      { cluster_id: '8', nodes: [] },
    ]);
    assert.deepEqual(await m.client.clusters.list(), [{ id: 7, machineIds: [1, 2, 3], nodeCount: 3 }, { id: 8 }]);
  });

  it('leaves out a cluster without a usable id and counts it; none is an empty list', async () => {
    const m = mocked();
    m.answer('GET', CLUSTERS, 200, { clusters: { 'not-a-number': { subnet: 'x' }, '9': 'odd', '10': {} } });
    m.answer('GET', CLUSTERS, 200, { clusters: null });
    m.answer('GET', CLUSTERS, 200, {});
    const list = await m.client.clusters.list();
    assert.deepEqual(list, [{ id: 10 }]);
    assert.equal(unreadableOf(list)?.dropped, 2);
    assert.deepEqual(await m.client.clusters.list(), []);
    assert.deepEqual(await m.client.clusters.list(), []);
  });

  it('an answer that is neither a list nor a record is an invalid answer, not "no clusters"', async () => {
    const m = mocked();
    m.answer('GET', CLUSTERS, 200, { clusters: 'none here' });
    const error = await failure(m.client.clusters.list());
    assert.equal(error.kind, 'invalid_response');
  });
});

describe('joining an overlay network at rent', () => {
  it('adds {"-n NAME": "1"} to the user\'s variables and keeps every one of them', () => {
    assert.deepEqual(joinOverlayEnv('train-a', { HF_TOKEN: 'hf_x', MODEL: 'llama' }), {
      ok: true,
      env: { HF_TOKEN: 'hf_x', MODEL: 'llama', '-n train-a': '1' },
    });
    assert.deepEqual(joinOverlayEnv('n0'), { ok: true, env: { '-n n0': '1' } });
  });

  it('refuses a name outside [a-z0-9-] with a message that says what is allowed', () => {
    for (const name of ['Train', 'train_a', 'with space', '', 'ünï', '-n x']) {
      const joined = joinOverlayEnv(name, { A: '1' });
      assert.equal(joined.ok, false, name);
      if (!joined.ok) assert.equal(joined.problem, overlayNameProblem(name));
    }
    assert.match(overlayNameProblem('Bad_Name') ?? '', /'Bad_Name' may hold only lower-case letters, digits and hyphens/);
  });

  it('refuses a user key that would join another overlay; the same one is kept once', () => {
    for (const key of ['-n other', ' -n other', '-n', '-n  train-b']) {
      const joined = joinOverlayEnv('train-a', { [key]: '1' });
      assert.equal(joined.ok, false, key);
      if (!joined.ok) assert.match(joined.problem, /would join another overlay network/);
    }
    assert.deepEqual(joinOverlayEnv('train-a', { '-n train-a': '0', '-p 8080:8080': '1' }), {
      ok: true,
      env: { '-n train-a': '1', '-p 8080:8080': '1' },
    });
  });

  it('no user variable is lost or changed, and exactly one join key is added (property, seeded)', () => {
    const name = fc.stringMatching(/^[a-z0-9-]{1,20}$/);
    const env = fc.dictionary(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,15}$/), fc.string({ maxLength: 20 }));
    fc.assert(
      fc.property(name, env, (n, user) => {
        const joined = joinOverlayEnv(n, user);
        assert.ok(joined.ok);
        const { [`-n ${n}`]: flag, ...rest } = joined.env;
        assert.equal(flag, '1');
        assert.deepEqual(Object.entries(rest), Object.entries(user));
        assert.equal(Object.keys(joined.env).filter((k) => k.startsWith('-n')).length, 1);
      }),
      { seed: 26, numRuns: 300 },
    );
  });

  it('the rent check refuses a create that joins two networks or names a bad one', () => {
    const base = { image: 'pytorch/pytorch', disk: 20 };
    assert.equal(checkCreate({ ...base, env: { '-n a': '1' } }), undefined);
    assert.match(checkCreate({ ...base, env: { '-n a': '1', '-n b': '1' } }) ?? '', /only one overlay network/);
    assert.match(checkCreate({ ...base, env: { '-n Bad': '1' } }) ?? '', /lower-case letters/);
  });

  it('a rent into an overlay sends the join key in the create body, and a bad one sends nothing', async () => {
    const m = mocked();
    m.answer('PUT', '/api/v0/asks/77/', 200, { success: true, new_contract: 501 });
    const joined = joinOverlayEnv('train-a', { HF_TOKEN: 'hf_abcdefgh' });
    assert.ok(joined.ok);
    await m.client.instances.create(77, { image: 'pytorch/pytorch', disk: 20, env: joined.env });
    const body = m.sent[0]?.body as { env: Record<string, string> };
    assert.deepEqual(body.env, { HF_TOKEN: 'hf_abcdefgh', '-n train-a': '1' });
    const refused = await failure(m.client.instances.create(77, { image: 'x', disk: 20, env: { '-n A': '1' } }));
    assert.equal(refused.kind, 'bad_request');
    assert.equal(m.sent.length, 1);
  });
});
