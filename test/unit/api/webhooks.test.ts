import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { SigningSecret } from '../../../src/core/api/webhooks';
import { failure, mockedApi } from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'sk-hooktest-0123456789abcdef0123456789';
const SECRET = 'whsec_api_test_9c4e1b7a2f6d8305';

/** The client against scripted answers; every JSON body sent is kept in `sent`, with its method and path. */
function mocked() {
  const api = mockedApi(BASE, KEY);
  const sent: string[] = [];
  const answer = (method: string, path: string, status: number, data: unknown) =>
    api.pool.intercept({ path, method }).reply((req) => {
      sent.push(`${method} ${path} ${req.body === undefined || req.body === null ? '' : String(req.body)}`.trim());
      return { statusCode: status, data: JSON.stringify(data) };
    });
  return { ...api, sent, answer };
}

const HOOK = {
  id: 42,
  user_id: 7,
  name: 'GPU Rental',
  webhook_url: 'https://ntfy.sh/t',
  event_types: ['client:outbid'],
  created_at: 1772490000.0,
  updated_at: 1772490000.0,
};

describe('webhooks client (scripted answers)', () => {
  it("lists webhooks without any secret a record might carry; an odd record's fields are read as far as they go", async () => {
    const m = mocked();
    m.answer('GET', '/api/v0/webhooks/', 200, {
      success: true,
      webhooks: [
        { ...HOOK, webhook_secret: SECRET },
        { id: '43', name: null, webhook_url: 5, event_types: ['client:low_credit', 3] },
      ],
    });
    const hooks = await m.client.webhooks.list();
    assert.deepEqual(hooks, [
      {
        id: 42,
        name: 'GPU Rental',
        webhook_url: 'https://ntfy.sh/t',
        event_types: ['client:outbid'],
        created_at: 1772490000,
        updated_at: 1772490000,
      },
      { id: 43, name: null, webhook_url: undefined, event_types: ['client:low_credit'] },
    ]);
    assert.ok(!JSON.stringify(hooks).includes(SECRET));
  });

  it('creates with the documented body and hands the secret wrapped: it prints as [redacted] everywhere but reveal()', async () => {
    const m = mocked();
    m.answer('POST', '/api/v0/webhooks/', 200, { success: true, webhook: { ...HOOK, webhook_secret: SECRET } });
    const created = await m.client.webhooks.create({
      name: 'GPU Rental',
      webhook_url: 'https://ntfy.sh/t',
      event_types: ['client:outbid'],
    });
    assert.deepEqual(m.sent, [
      'POST /api/v0/webhooks/ {"name":"GPU Rental","webhook_url":"https://ntfy.sh/t","event_types":["client:outbid"]}',
    ]);
    assert.ok(created.secret instanceof SigningSecret);
    assert.equal(created.secret.reveal(), SECRET);
    assert.ok(!('webhook_secret' in created.webhook), 'the record keeps no secret');
    for (const shown of [`${created.secret}`, JSON.stringify(created), inspect(created, { depth: 5 }), String(created.secret)])
      assert.ok(!shown.includes(SECRET), shown);
    assert.equal(JSON.stringify(created.secret), '"[redacted]"');
    assert.equal(m.logger.lines.join('\n').includes(SECRET), false);
  });

  it('changes, rotates, tests and removes on the routes with a trailing slash; says what the test answered', async () => {
    const m = mocked();
    m.answer('PUT', '/api/v0/webhooks/42/', 200, { success: true, webhook: HOOK });
    m.answer('POST', '/api/v0/webhooks/42/rotate-secret/', 200, { success: true, webhook: { ...HOOK, webhook_secret: 'whsec_new_1' } });
    m.answer('POST', '/api/v0/webhooks/42/test/', 200, { success: true, msg: 'Test webhook delivered' });
    m.answer('DELETE', '/api/v0/webhooks/42/', 200, { success: true });
    m.answer('GET', '/api/v0/notification-types/', 200, {
      success: true,
      notification_types: [{ key: 'client:outbid', slug: 'outbid', context: 'client', display_name: 'Outbid' }, { slug: 'no key' }],
    });
    await m.client.webhooks.update(42, { event_types: ['client:outbid', 'client:low_credit'] });
    assert.equal((await m.client.webhooks.rotateSecret(42)).secret?.reveal(), 'whsec_new_1');
    assert.equal(await m.client.webhooks.test(42), 'Test webhook delivered');
    await m.client.webhooks.delete(42);
    const types = await m.client.webhooks.types();
    assert.deepEqual(
      types.map((t) => t.key),
      ['client:outbid'],
      'a type without a key is left out',
    );
    assert.equal(m.sent[0], 'PUT /api/v0/webhooks/42/ {"event_types":["client:outbid","client:low_credit"]}');
    assert.throws(() => m.client.webhooks.delete(0), /0 is not a webhook id/);
  });

  it("a removed webhook is not_found; a refusal keeps the service's own message", async () => {
    const m = mocked();
    m.answer('DELETE', '/api/v0/webhooks/9/', 404, { success: false, error: 'not_found', msg: 'Webhook not found.' });
    m.answer('POST', '/api/v0/webhooks/', 400, { success: false, error: 'webhook_limit', msg: 'You can have at most 4 webhooks.' });
    assert.equal((await failure(m.client.webhooks.delete(9))).kind, 'not_found');
    const refused = await failure(m.client.webhooks.create({ webhook_url: 'https://x.example/h', event_types: ['client:outbid'] }));
    assert.equal(refused.kind, 'bad_request');
    assert.equal(refused.serverMessage, 'You can have at most 4 webhooks.');
  });
});
