// Notification webhooks (service notes §15.3, openapi's Notifications routes): the types, the
// preferences, and webhook create/list/update/delete/rotate with every refusal. Deliveries are in
// webhookDelivery.sim.test.ts.
import assert from 'node:assert/strict';
import { call, control, obj, simulatorForSuite } from '../../support';

type Prefs = Record<string, Record<string, Record<string, boolean>>>;

describe('marketplace: notification webhooks', () => {
  const sim = simulatorForSuite({ credit: 1000 }, { each: true });

  /** Creates a webhook; answers its id and secret. */
  async function subscribe(url: string, eventTypes: string[], name: string | null = 'ops'): Promise<{ id: number; secret: string }> {
    const res = await call(sim, 'POST', '/api/v0/webhooks/', { name, webhook_url: url, event_types: eventTypes });
    assert.equal(res.status, 200, res.text);
    const webhook = obj(res).webhook as { id: number; webhook_secret: string };
    return { id: webhook.id, secret: webhook.webhook_secret };
  }

  it('lists the notification types in the OpenAPI’s shape', async () => {
    const res = obj(await call(sim, 'GET', '/api/v0/notification-types/'));
    assert.equal(res.success, true);
    const types = res.notification_types as Array<Record<string, unknown>>;
    const keys = types.map((t) => t.key);
    for (const key of [
      'client:outbid',
      'client:low_credit',
      'client:instance_stopped',
      'client:instance_offline',
      'client:disk_full',
      'client:contract_expiring',
      'host:machine_offline',
    ])
      assert.ok(keys.includes(key), key);
    for (const t of types) {
      assert.deepEqual(Object.keys(t).sort(), [
        'category',
        'context',
        'default_preferences',
        'display_name',
        'key',
        'mandatory_email',
        'slug',
        'topic',
      ]);
      assert.equal(t.key, `${String(t.context)}:${String(t.slug)}`);
      assert.ok(t.context === 'client' || t.context === 'host');
      assert.equal(typeof (t.default_preferences as Record<string, unknown>).webhooks, 'boolean');
    }
  });

  it('creates, lists, updates, rotates and deletes webhooks; the secret shows only at create and rotate', async () => {
    const url = 'https://hooks.example.com/vast';
    const created = obj(
      await call(sim, 'POST', '/api/v0/webhooks/', { name: 'ops', webhook_url: url, event_types: ['client:low_credit'] }),
    );
    const webhook = created.webhook as Record<string, unknown>;
    assert.match(String(webhook.webhook_secret), /^[0-9a-f]{64}$/);
    assert.deepEqual(
      [webhook.user_id, webhook.name, webhook.webhook_url, webhook.event_types],
      [sim.accountId, 'ops', url, ['client:low_credit']],
    );
    assert.deepEqual(created.enabled_notification_preferences, ['client:low_credit']);
    const listed = obj(await call(sim, 'GET', '/api/v0/webhooks/')).webhooks as Array<Record<string, unknown>>;
    assert.equal(listed.length, 1);
    assert.ok(!('webhook_secret' in listed[0]!), 'the list never shows the secret');
    assert.deepEqual(Object.keys(listed[0]!).sort(), ['created_at', 'event_types', 'id', 'name', 'updated_at', 'user_id', 'webhook_url']);

    const updated = obj(
      await call(sim, 'PUT', `/api/v0/webhooks/${String(webhook.id)}/`, {
        name: 'primary',
        event_types: ['client:low_credit', 'client:outbid'],
      }),
    );
    assert.deepEqual(updated.enabled_notification_preferences, ['client:outbid'], 'only the type whose channel was off');
    assert.deepEqual((updated.webhook as Record<string, unknown>).event_types, ['client:low_credit', 'client:outbid']);
    assert.ok(!('webhook_secret' in (updated.webhook as object)));

    const rotated = obj(await call(sim, 'POST', `/api/v0/webhooks/${String(webhook.id)}/rotate-secret/`)).webhook as Record<
      string,
      unknown
    >;
    assert.match(String(rotated.webhook_secret), /^[0-9a-f]{64}$/);
    assert.notEqual(rotated.webhook_secret, webhook.webhook_secret);

    assert.deepEqual(obj(await call(sim, 'DELETE', `/api/v0/webhooks/${String(webhook.id)}/`)), { success: true });
    assert.deepEqual(obj(await call(sim, 'GET', '/api/v0/webhooks/')).webhooks, []);
    assert.equal((await call(sim, 'DELETE', `/api/v0/webhooks/${String(webhook.id)}/`)).status, 404);
  });

  it('refuses a fifth webhook, a bad URL, a long name and empty or unknown event types, each with a 400 and a msg', async () => {
    const refused = async (body: Record<string, unknown>, what: RegExp) => {
      const res = await call(sim, 'POST', '/api/v0/webhooks/', {
        webhook_url: 'https://hooks.example.com/x',
        event_types: ['client:outbid'],
        ...body,
      });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      const refusal = obj(res);
      assert.equal(refusal.success, false);
      assert.match(String(refusal.msg), what);
    };
    await refused({ webhook_url: 'http://hooks.example.com/x' }, /https/);
    await refused({ webhook_url: 'ftp://hooks.example.com/x' }, /https/);
    await refused({ webhook_url: `https://hooks.example.com/${'a'.repeat(2048)}` }, /2048/);
    await refused({ webhook_url: 'https://' }, /host name/);
    await refused({ webhook_url: 'https://:443/x' }, /host name/);
    await refused({ webhook_url: undefined }, /webhook_url/);
    await refused({ name: 'n'.repeat(121) }, /120/);
    await refused({ event_types: [] }, /at least one/);
    await refused({ event_types: undefined }, /at least one/);
    await refused({ event_types: ['client:outbid', 'client:nope'] }, /client:nope/);
    assert.deepEqual(obj(await call(sim, 'GET', '/api/v0/webhooks/')).webhooks, [], 'nothing was made');

    // A URL of exactly 2,048 characters and a name of 120 are fine.
    const long = 'https://hooks.example.com/';
    await subscribe(long + 'a'.repeat(2048 - long.length), ['client:outbid'], 'n'.repeat(120));
    for (let i = 0; i < 3; i++) await subscribe(`https://hooks.example.com/${i}`, ['client:outbid']);
    await refused({}, /at most 4/);
    const update = await call(
      sim,
      'PUT',
      `/api/v0/webhooks/${(obj(await call(sim, 'GET', '/api/v0/webhooks/')).webhooks as Array<{ id: number }>)[0]!.id}/`,
      {
        webhook_url: 'http://insecure.example.com',
      },
    );
    assert.equal(update.status, 400, update.text);
  });

  it('answers 404 for another account’s webhook and an unknown one', async () => {
    const mine = await subscribe('https://hooks.example.com/mine', ['client:outbid']);
    const other = (await control(sim, 'POST', 'accounts', { credit: 100 })) as { key: string };
    for (const [method, path, body] of [
      ['PUT', `/api/v0/webhooks/${mine.id}/`, { name: 'theirs' }],
      ['DELETE', `/api/v0/webhooks/${mine.id}/`, undefined],
      ['POST', `/api/v0/webhooks/${mine.id}/rotate-secret/`, undefined],
      ['POST', `/api/v0/webhooks/${mine.id}/test/`, undefined],
      ['PUT', '/api/v0/webhooks/424242/', { name: 'x' }],
      ['POST', '/api/v0/webhooks/424242/test/', undefined],
    ] as const) {
      const key = path.includes('424242') ? undefined : other.key;
      const res = await call(sim, method, path, body, key);
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(obj(res).success, false);
    }
    assert.deepEqual(obj(await call(sim, 'GET', '/api/v0/webhooks/', undefined, other.key)).webhooks, []);
    assert.equal((obj(await call(sim, 'GET', '/api/v0/webhooks/')).webhooks as unknown[]).length, 1, 'mine is untouched');
  });

  it('turns the webhooks channel on for what a webhook subscribes to, and checks a preferences update', async () => {
    const prefsPath = `/api/v0/users/${sim.accountId}/notification-prefs/`;
    const prefs = async () => obj(await call(sim, 'GET', prefsPath)).notification_preferences as Prefs;
    assert.deepEqual((await prefs()).client!.outbid, { email: true, webhooks: false });
    await subscribe('https://hooks.example.com/p', ['client:outbid', 'host:machine_offline']);
    assert.deepEqual((await prefs()).client!.outbid, { email: true, webhooks: true });
    assert.equal((await prefs()).host!.machine_offline!.webhooks, true);
    assert.equal((await prefs()).client!.low_credit!.webhooks, false);
    assert.deepEqual(obj(await call(sim, 'GET', '/api/v0/users/me/notification-prefs/')).notification_preferences, await prefs());

    const put = (notification_preferences: unknown) => call(sim, 'PUT', prefsPath, { notification_preferences });
    const changed = obj(await put({ client: { low_credit: { email: false, webhooks: true } } }));
    assert.deepEqual((changed.notification_preferences as Prefs).client!.low_credit, { email: false, webhooks: true });
    assert.deepEqual(
      (await prefs()).client!.outbid,
      { email: true, webhooks: false },
      'a replace: what it leaves out is back to its default',
    );
    for (const bad of [
      'yes',
      { client: { nope: { email: true } } },
      { planet: { outbid: { email: true } } },
      { client: { outbid: { sms: true } } },
      { client: { outbid: { email: 'yes' } } },
      { client: { contract_expiring: { email: false } } },
    ]) {
      const res = await put(bad);
      assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`);
      assert.equal(typeof obj(res).msg, 'string');
    }
    const other = (await control(sim, 'POST', 'accounts', { credit: 100 })) as { id: number };
    assert.equal((await call(sim, 'GET', `/api/v0/users/${other.id}/notification-prefs/`)).status, 404);
  });
});
