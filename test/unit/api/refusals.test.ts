import assert from 'node:assert/strict';
import * as z from 'zod';
import type { ApiErrorKind, ForbiddenReason } from '../../../src/core/api/errors';
import { clientFor, DEMO_KEY, failure, simulatorForSuite, mockedApi } from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'sk-refusal-0123456789abcdef0123456789';

const mocked = () => mockedApi(BASE, KEY);

const call = (path: string, keyCheck: boolean) => ({
  action: keyCheck ? 'read the account' : 'read invoices',
  method: 'GET' as const,
  path,
  schema: z.unknown(),
  permission: keyCheck ? ('user_read' as const) : ('billing_read' as const),
  keyCheck,
  retry: 'read' as const,
});

describe('refusals: a 401 is a bad key only when the body or the key check says so', () => {
  const KEY_CHECK = '/api/v0/users/current/';
  const OTHER = '/api/v1/invoices/';
  const TFA = { success: false, error: 'tfa_required', msg: 'This action requires Two Factor Authentication.' };
  const cases: Array<[string, string, number, unknown, ApiErrorKind, ForbiddenReason?]> = [
    ['a deleted key anywhere', OTHER, 401, { msg: 'Invalid user key' }, 'auth'],
    ['auth_error anywhere', OTHER, 401, { success: false, error: 'auth_error', msg: 'nope' }, 'auth'],
    ['the key check with no explanation', KEY_CHECK, 401, 'Unauthorized', 'auth'],
    ['the key check with an empty body', KEY_CHECK, 401, '', 'auth'],
    [
      'a missing permission on the key check',
      KEY_CHECK,
      401,
      { success: false, error: 'permission_denied', msg: "This API key lacks the 'user_read' permission." },
      'forbidden',
      'permission',
    ],
    ['a missing permission elsewhere (401)', OTHER, 401, { msg: 'API key scope does not include this.' }, 'forbidden', 'permission'],
    ['any other 401 elsewhere', OTHER, 401, '<html><title>401</title></html>', 'forbidden', 'permission'],
    ['a missing permission (403)', OTHER, 403, { msg: 'not allowed' }, 'forbidden', 'permission'],
    ['a two-factor refusal', OTHER, 401, TFA, 'forbidden', 'two_factor'],
    ['a two-factor refusal on the key check', KEY_CHECK, 401, TFA, 'forbidden', 'two_factor'],
    [
      'a two-factor refusal labelled auth_error',
      OTHER,
      401,
      { error: 'auth_error', msg: 'Please enable Two Factor Authentication first' },
      'forbidden',
      'two_factor',
    ],
    ['a two-factor refusal known by its code alone', OTHER, 401, { error: 'tfa_required', msg: 'Not now.' }, 'forbidden', 'two_factor'],
    ['403 requires login', OTHER, 403, { success: false, error: 'auth_error', msg: 'This action requires login.' }, 'auth'],
    ['404 auth_error', OTHER, 404, { success: false, error: 'auth_error', msg: 'Invalid user key' }, 'auth'],
  ];
  for (const [name, path, status, body, kind, reason] of cases) {
    it(`${name} (${status} on ${path === KEY_CHECK ? 'the key check' : 'invoices'}): ${kind}${reason ? ` (${reason})` : ''}`, async () => {
      const { pool, transport } = mocked();
      pool.intercept({ path, method: 'GET' }).reply(status, body as object);
      const error = await failure(transport.send(call(path, path === KEY_CHECK)));
      assert.equal(error.kind, kind, error.message);
      assert.equal(error.status, status);
      assert.equal(error.reason, reason);
      if (reason === 'permission') {
        assert.equal(error.permission, path === KEY_CHECK ? 'user_read' : 'billing_read');
        assert.match(error.message, /this API key lacks the "(user_read|billing_read)" permission/);
      }
      if (reason === 'two_factor') {
        assert.equal(error.permission, undefined);
        assert.match(error.message, /two-factor authentication/);
        assert.match(error.message, /web console/);
        assert.match(error.message, /still signed in/);
      }
      if (kind === 'auth') assert.match(error.message, /the API key was rejected/);
    });
  }

  it('the account read is the key check: a bare 401 there is a bad key', async () => {
    const { pool, client } = mocked();
    pool.intercept({ path: KEY_CHECK, method: 'GET' }).reply(401, '');
    assert.equal((await failure(client.account.currentUser())).kind, 'auth');
  });
});

describe('refusals against the simulator', () => {
  const sim = simulatorForSuite({}, { each: true });

  it('a key without billing_read gets 401 on invoices and charges, read as forbidden naming billing_read', async () => {
    const created = await clientFor(sim.url, DEMO_KEY).client.apiKeys.create({
      name: 'no-billing',
      permissions: { api: { user_read: {}, instance_read: {} } },
    });
    const { client } = clientFor(sim.url, created.key, { maxAttempts: 1 });
    const range = { from: 0, to: Math.floor(Date.now() / 1000) };
    for (const read of [() => client.billing.invoices(range), () => client.billing.charges(range)]) {
      const error = await failure(read());
      assert.equal(error.status, 401, 'the simulator answers this one with 401');
      assert.equal(error.kind, 'forbidden');
      assert.equal(error.reason, 'permission');
      assert.equal(error.permission, 'billing_read');
      assert.match(error.serverMessage ?? '', /lacks the 'billing_read' permission/);
    }
    // The same key still reads the account: it was never a bad key.
    assert.equal((await client.account.currentUser()).id, sim.accountId);
  });

  it('an account with two-factor authentication refuses key creation with a two-factor refusal, not a bad key', async () => {
    sim.control.setAccountQuirks(sim.accountId, { twoFactor: true });
    const { client } = clientFor(sim.url, DEMO_KEY, { maxAttempts: 1 });
    const error = await failure(client.apiKeys.create({ name: 'x', permissions: { api: { misc: {} } } }));
    assert.equal(error.status, 401);
    assert.equal(error.kind, 'forbidden');
    assert.equal(error.reason, 'two_factor');
    assert.match(error.serverMessage ?? '', /Two Factor Authentication/);
    assert.match(error.message, /Could not create an API key: the service allows this only after a login with two-factor authentication/);
    assert.ok((await client.apiKeys.list()).length > 0, 'reads still work');
    sim.control.setAccountQuirks(sim.accountId, { twoFactor: false });
    assert.ok((await client.apiKeys.create({ name: 'x', permissions: { api: { misc: {} } } })).key);
  });
});
