import assert from 'node:assert/strict';
import { call, DEMO_KEY, obj, PUBLIC_KEY, rentOne, simulatorForSuite } from '../../support';

describe('marketplace: keys, permissions and routing', () => {
  const sim = simulatorForSuite({}, { each: true });

  const scoped = async (permissions: unknown, name = 'scoped') => {
    const res = await call(sim, 'POST', '/api/v0/auth/apikeys/', { name, permissions });
    assert.equal(res.status, 200, res.text);
    return obj(res) as { id: number; key: string; permissions: unknown };
  };

  it('answers 401 for a missing, unknown or deleted key', async () => {
    const missing = await call(sim, 'GET', '/api/v0/users/current/', undefined, null);
    assert.equal(missing.status, 401);
    assert.deepEqual(obj(missing), { success: false, error: 'auth_error', msg: 'This action requires login.' });
    const unknown = await call(sim, 'GET', '/api/v0/users/current/', undefined, 'nope');
    assert.equal(unknown.status, 401);
    assert.deepEqual(obj(unknown), { success: false, error: 'auth_error', msg: 'Invalid user key' });
    const created = await scoped({ api: { user_read: {} } });
    assert.equal((await call(sim, 'GET', '/api/v0/users/current/', undefined, created.key)).status, 200);
    const deleted = await call(sim, 'DELETE', `/api/v0/auth/apikeys/${created.id}/`);
    assert.equal(deleted.json, 'Successfully Deleted API Key');
    assert.equal((await call(sim, 'GET', '/api/v0/users/current/', undefined, created.key)).status, 401);
    const again = await call(sim, 'DELETE', `/api/v0/auth/apikeys/${created.id}/`);
    assert.equal(again.status, 404);
    assert.deepEqual(obj(again), { msg: 'API Key not found.' });
  });

  it('shows the account without ever echoing a key', async () => {
    const user = obj(await call(sim, 'GET', '/api/v0/users/current/'));
    for (const field of ['id', 'email', 'username', 'credit', 'balance', 'ssh_key', 'key_id']) assert.ok(field in user, field);
    assert.equal(user.credit, 250);
    assert.ok(!JSON.stringify(user).includes(DEMO_KEY));
    assert.ok(!('api_key' in user));
  });

  it('lists keys with rights as a JSON string (null for full access) and never their values', async () => {
    const created = await scoped({ api: { misc: {}, instance_read: {} } }, 'reader');
    const list = obj(await call(sim, 'GET', '/api/v0/auth/apikeys/')).apikeys as Array<Record<string, unknown>>;
    const row = list.find((k) => k.id === created.id)!;
    assert.equal(row.name, 'reader');
    assert.deepEqual(JSON.parse(String(row.rights)), { api: { misc: {}, instance_read: {} } });
    assert.ok(list.some((k) => k.rights === null));
    for (const field of ['id', 'user_id', 'name', 'rights', 'team_id', 'team_name', 'created_at']) assert.ok(field in row, field);
    assert.ok(!JSON.stringify(list).includes(created.key) && !JSON.stringify(list).includes(DEMO_KEY));
    assert.equal((await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'x' })).status, 400, 'permissions are required');
    assert.equal((await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'x', permissions: { api: { root: {} } } })).status, 400);
  });

  it('maps every route to its permission category (403 without it; 401 on billing routes)', async () => {
    const { id } = await rentOne(sim);
    const cases: Array<[string, string, string, unknown?]> = [
      ['misc', 'POST', '/api/v0/bundles/', {}],
      ['misc', 'POST', '/api/v0/volumes/search/', {}],
      ['misc', 'GET', '/api/v0/endptjobs/'],
      ['misc', 'GET', '/api/v0/autojobs/'],
      ['user_read', 'GET', '/api/v0/users/current/'],
      ['user_read', 'GET', '/api/v0/auth/apikeys/'],
      ['user_read', 'GET', '/api/v0/ssh/'],
      ['user_read', 'GET', '/api/v0/template/'],
      ['user_write', 'POST', '/api/v0/ssh/', { ssh_key: PUBLIC_KEY }],
      ['user_write', 'POST', '/api/v0/template/', { name: 't', image: 'ubuntu' }],
      ['instance_read', 'GET', `/api/v0/instances/${id}/`],
      ['instance_read', 'GET', '/api/v1/instances/'],
      ['instance_read', 'PUT', `/api/v0/instances/request_logs/${id}/`, {}],
      ['instance_read', 'GET', `/api/v0/instances/${id}/ssh/`],
      ['instance_read', 'GET', '/api/v0/volumes/?owner=me&type=all_volume'],
      ['instance_write', 'PUT', `/api/v0/instances/${id}/`, { label: 'x' }],
      ['instance_write', 'PUT', `/api/v0/instances/reboot/${id}/`, {}],
      ['instance_write', 'POST', `/api/v0/instances/${id}/ssh/`, { ssh_key: PUBLIC_KEY }],
      ['billing_read', 'GET', '/api/v0/charges/?select_filters=%7B%7D'],
      ['billing_read', 'GET', '/api/v1/invoices/'],
      ['team_read', 'GET', '/api/v0/team/members/'],
      ['team_read', 'GET', '/api/v0/team/roles-full/'],
      ['team_write', 'POST', '/api/v0/team/invite/?email=a%40b.c&role=member', {}],
    ];
    const everything = [
      'misc',
      'user_read',
      'user_write',
      'instance_read',
      'instance_write',
      'billing_read',
      'billing_write',
      'team_read',
      'team_write',
    ];
    for (const [category, method, path, body] of cases) {
      const others = Object.fromEntries(everything.filter((c) => c !== category).map((c) => [c, {}]));
      const without = await scoped({ api: others });
      const res = await call(sim, method, path, body, without.key);
      assert.equal(res.status, category.startsWith('billing_') ? 401 : 403, `${method} ${path} without ${category}: ${res.text}`);
      assert.deepEqual(obj(res), { success: false, error: 'permission_denied', msg: `This API key lacks the '${category}' permission.` });
      const only = await scoped({ api: { [category]: {} } });
      const allowed = await call(sim, method, path, body, only.key);
      assert.ok(allowed.status !== 401 && allowed.status !== 403, `${method} ${path} with ${category}: ${allowed.status} ${allowed.text}`);
    }
  });

  it('honours action constraints inside a category', async () => {
    const a = await rentOne(sim);
    const b = await rentOne(sim);
    const key = (
      await scoped({ api: { instance_read: {}, instance_write: { 'api.instance.destroy': { constraints: { id: { eq: a.id } } } } } })
    ).key;
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${b.id}/`, {}, key)).status, 403, 'another id');
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/${a.id}/`, { state: 'stopped' }, key)).status, 403, 'an action not listed');
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${a.id}/`, {}, key)).status, 200, 'the allowed action on the allowed id');
    const range = (
      await scoped({
        api: { instance_write: { 'api.instance.reboot': { constraints: { id: { gte: b.id, lte: b.id + 10 } } }, 'api.instance.stop': {} } },
      })
    ).key;
    assert.equal(
      (await call(sim, 'PUT', `/api/v0/instances/${b.id}/`, { state: 'stopped' }, range)).status,
      200,
      'an unconstrained action',
    );
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/${b.id}/`, { label: 'x' }, range)).status, 403);
  });

  it('confines an instance API key to show, start/stop and destroy of its own instance', async () => {
    const a = await rentOne(sim);
    const b = await rentOne(sim);
    const k = a.instanceKey;
    assert.equal((obj(await call(sim, 'GET', `/api/v0/instances/${a.id}/`, undefined, k)).instances as { id: number }).id, a.id);
    assert.equal((await call(sim, 'GET', `/api/v0/instances/${b.id}/`, undefined, k)).status, 403);
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/${a.id}/`, { state: 'stopped' }, k)).status, 200);
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/${a.id}/`, { label: 'no' }, k)).status, 403);
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/reboot/${a.id}/`, {}, k)).status, 403);
    for (const [method, path] of [
      ['GET', '/api/v0/users/current/'],
      ['GET', '/api/v1/instances/'],
      ['POST', '/api/v0/bundles/'],
      ['DELETE', `/api/v0/instances/${b.id}/`],
    ]) {
      assert.equal((await call(sim, method!, path!, method === 'GET' ? undefined : {}, k)).status, 403, `${method} ${path}`);
    }
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${a.id}/`, {}, k)).status, 200);
    assert.equal((await call(sim, 'GET', `/api/v0/instances/${a.id}/`, undefined, k)).status, 401, 'the key dies with its instance');
    assert.ok(!JSON.stringify(obj(await call(sim, 'GET', '/api/v0/auth/apikeys/'))).includes(b.instanceKey));
  });

  it('accepts every path with and without the trailing slash', async () => {
    for (const path of [
      '/api/v0/users/current',
      '/api/v0/users/current/',
      '/api/v0/ssh',
      '/api/v0/team/members',
      '/api/v1/instances',
      '/api/v0/template',
    ]) {
      assert.equal((await call(sim, 'GET', path)).status, 200, path);
    }
    assert.equal((await call(sim, 'POST', '/api/v0/bundles', { limit: 1 })).status, 200);
    const { id } = await rentOne(sim);
    assert.equal((await call(sim, 'GET', `/api/v0/instances/${id}`)).status, 200);
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${id}`, {})).status, 200);
  });

  it('answers unknown paths with 404, wrong methods with 405 and bad JSON with 400, in the error shape', async () => {
    const unknown = await call(sim, 'GET', '/api/v0/no/such/thing/');
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /^text\/html/, 'an unknown route answers as the service does: routing.test.ts');
    const wrong = await call(sim, 'PATCH', '/api/v0/users/current/');
    assert.equal(wrong.status, 405);
    const res = await fetch(`${sim.url}/api/v0/bundles/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}` },
      body: '{"limit": ',
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, 'invalid_request');
  });

  it('with two-factor authentication on, refuses key management to an API key with a 401 naming it', async () => {
    const quirks = (body: unknown) => call(sim, 'POST', `/__control/accounts/${sim.accountId}/quirks`, body);
    assert.deepEqual(obj(await quirks({ two_factor: true })), { success: true, two_factor: true, withhold: [] });
    const refused = await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'x', permissions: { api: { misc: {} } } });
    assert.equal(refused.status, 401);
    assert.match(String(obj(refused).msg), /Two Factor Authentication/);
    assert.notEqual(obj(refused).error, 'auth_error', 'not a bad key');
    assert.equal((await call(sim, 'DELETE', '/api/v0/auth/apikeys/1/')).status, 401);
    assert.equal((await call(sim, 'GET', '/api/v0/auth/apikeys/')).status, 200, 'reads are not affected');
    assert.equal((await call(sim, 'GET', '/api/v0/users/current/')).status, 200);
    await quirks({ two_factor: false });
    assert.equal((await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'x', permissions: { api: { misc: {} } } })).status, 200);
    assert.equal((await quirks({ withhold: ['credit', 'nonsense'] })).status, 400);
    assert.equal((await call(sim, 'POST', '/__control/accounts/999999/quirks', { two_factor: true })).status, 404);
  });

  it('sends ssh_key as a string (empty without one), and withholds credit or balance on request', async () => {
    const me = async () => obj(await call(sim, 'GET', '/api/v0/users/current/'));
    assert.equal((await me()).ssh_key, '');
    assert.equal((await call(sim, 'POST', '/api/v0/ssh/', { ssh_key: PUBLIC_KEY })).status, 200);
    assert.equal((await me()).ssh_key, PUBLIC_KEY);
    sim.control.setAccountQuirks(sim.accountId, { withhold: ['credit'] });
    let user = await me();
    assert.ok(!('credit' in user) && 'balance' in user);
    sim.control.setAccountQuirks(sim.accountId, { withhold: ['credit', 'balance'] });
    user = await me();
    assert.ok(!('credit' in user) && !('balance' in user) && user.id === sim.accountId);
    sim.control.setAccountQuirks(sim.accountId, { withhold: [] });
    assert.equal((await me()).credit, 250);
  });

  it('accepts the legacy api_key query parameter', async () => {
    assert.equal((await call(sim, 'GET', `/api/v0/users/current/?api_key=${DEMO_KEY}`, undefined, null)).status, 200);
  });
});
