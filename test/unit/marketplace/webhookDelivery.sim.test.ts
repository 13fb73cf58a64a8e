// Notification webhook deliveries (service notes §15.3) to a real https receiver on localhost (a
// self-signed certificate, which only test mode accepts): raised by an instance stopping, an outbid
// and low credit, signed with the webhook's secret, retried on 408/429/5xx with the same event id,
// never on another 4xx or a redirect, the test route's single event, and a loopback target refused
// outside test mode. The webhook routes themselves are in webhooks.sim.test.ts.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { selfSignedCertificate } from '../../harness/proxy';
import { call, control, eventually, obj, rentOne, simulatorForSuite, startSimulator, type Marketplace, rentBid } from '../../support';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  /** Requests left unanswered (a `hold` answer). */
  held: ServerResponse[];
  close(): Promise<void>;
}

let certificate: { key: string; cert: string };

/** An https server on localhost that records every request and answers `answer(n)` to the n-th (1-based). */
async function receiver(answer: (n: number) => number | 'hold' = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(certificate, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = answer(received.length);
      if (status === 'hold') held.push(res);
      else res.writeHead(status, status >= 300 && status < 400 ? { location: 'https://localhost/elsewhere' } : {}).end('ok');
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}/hooks/vast?team=1`,
    received,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const sign = (secret: string, timestamp: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

describe('marketplace: notification webhook deliveries', function () {
  this.timeout(30_000);
  const sim = simulatorForSuite({ credit: 1000 }, { each: true });
  let hook: Receiver | undefined;

  before(() => {
    certificate = selfSignedCertificate('localhost');
  });

  afterEach(async () => {
    await hook?.close();
    hook = undefined;
  });

  async function listen(answer?: (n: number) => number | 'hold'): Promise<Receiver> {
    hook = await receiver(answer);
    return hook;
  }

  /** Creates a webhook; answers its id and secret. */
  async function subscribe(url: string, eventTypes: string[], name: string | null = 'ops'): Promise<{ id: number; secret: string }> {
    const res = await call(sim, 'POST', '/api/v0/webhooks/', { name, webhook_url: url, event_types: eventTypes });
    assert.equal(res.status, 200, res.text);
    const webhook = obj(res).webhook as { id: number; webhook_secret: string };
    return { id: webhook.id, secret: webhook.webhook_secret };
  }

  const payload = (r: Received) => JSON.parse(r.body) as Record<string, unknown>;

  it('delivers a signed POST when an instance stops, naming it; the signature verifies with the secret', async () => {
    const receiving = await listen();
    const { secret } = await subscribe(receiving.url, ['client:instance_stopped']);
    const { id } = await rentOne(sim);
    const started = Date.now();
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'stopped' })).status, 200);
    assert.ok(Date.now() - started < 2_000, 'the answer did not wait on the delivery');
    await sim.control.webhooksIdle();
    assert.equal(receiving.received.length, 1);
    const [got] = receiving.received as [Received];
    const body = payload(got);
    assert.deepEqual(Object.keys(body).sort(), ['event_id', 'message', 'notif_type', 'subject', 'timestamp', 'user_id']);
    assert.equal(body.notif_type, 'instance_stopped');
    assert.equal(body.user_id, sim.accountId);
    assert.match(String(body.message), new RegExp(`\\b${id}\\b`));
    assert.ok(Number.isInteger(body.timestamp));
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-vast-event-id'], body.event_id);
    assert.equal(got.headers['x-vast-delivery-attempt'], '1');
    const timestamp = String(got.headers['x-vast-timestamp']);
    assert.match(timestamp, /^\d+$/);
    assert.equal(got.headers['x-vast-signature-256'], sign(secret, timestamp, got.body));
    assert.notEqual(got.headers['x-vast-signature-256'], sign('another secret', timestamp, got.body));
    const [attempt] = sim.control.webhookDeliveries();
    assert.deepEqual(
      [attempt?.url, attempt?.event_id, attempt?.attempt, attempt?.status, attempt?.outcome],
      [receiving.url, body.event_id, 1, 200, 'delivered'],
    );
  });

  it('after a rotation, deliveries are signed with the new secret', async () => {
    const receiving = await listen();
    const { id: hookId, secret: old } = await subscribe(receiving.url, ['client:instance_stopped']);
    const rotated = (obj(await call(sim, 'POST', `/api/v0/webhooks/${hookId}/rotate-secret/`)).webhook as { webhook_secret: string })
      .webhook_secret;
    await call(sim, 'PUT', `/api/v0/instances/${(await rentOne(sim)).id}/`, { state: 'stopped' });
    await sim.control.webhooksIdle();
    const [got] = receiving.received as [Received];
    const timestamp = String(got.headers['x-vast-timestamp']);
    assert.equal(got.headers['x-vast-signature-256'], sign(rotated, timestamp, got.body));
    assert.notEqual(got.headers['x-vast-signature-256'], sign(old, timestamp, got.body));
  });

  it('retries 503 and 429 with the same event id and rising attempt numbers until delivered', async () => {
    const answers = [503, 429, 200];
    const receiving = await listen((n) => answers[n - 1] ?? 200);
    const { id: hookId } = await subscribe(receiving.url, ['client:instance_stopped']);
    await call(sim, 'PUT', `/api/v0/instances/${(await rentOne(sim)).id}/`, { state: 'stopped' });
    await sim.control.webhooksIdle();
    assert.equal(receiving.received.length, 3);
    const ids = new Set(receiving.received.map((r) => r.headers['x-vast-event-id']));
    assert.equal(ids.size, 1, 'one event id across the retries');
    assert.deepEqual(
      receiving.received.map((r) => r.headers['x-vast-delivery-attempt']),
      ['1', '2', '3'],
    );
    assert.equal(new Set(receiving.received.map((r) => r.body)).size, 1, 'the same body each time');
    const attempts = (
      obj(await call(sim, 'GET', '/__control/webhook-deliveries', undefined, null)).deliveries as Array<Record<string, unknown>>
    ).filter((a) => a.webhook_id === hookId);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status, a.outcome]),
      [
        [1, 503, 'retrying'],
        [2, 429, 'retrying'],
        [3, 200, 'delivered'],
      ],
    );
  });

  it('gives up after four attempts of a 5xx, and never retries another 4xx or a redirect', async () => {
    for (const [status, expected] of [
      [500, 4],
      [408, 4],
      [404, 1],
      [400, 1],
      [302, 1],
    ] as const) {
      const receiving = await listen(() => status);
      const { id: hookId } = await subscribe(receiving.url, ['client:instance_stopped'], `answers ${status}`);
      await call(sim, 'PUT', `/api/v0/instances/${(await rentOne(sim)).id}/`, { state: 'stopped' });
      await sim.control.webhooksIdle();
      assert.equal(receiving.received.length, expected, `${status}: attempts`);
      const attempts = sim.control.webhookDeliveries().filter((a) => a.webhook_id === hookId);
      assert.equal(attempts.length, expected);
      assert.equal(attempts.at(-1)!.outcome, 'failed', `${status}: failed in the end`);
      assert.equal(attempts.at(-1)!.status, status);
      assert.equal(obj(await call(sim, 'DELETE', `/api/v0/webhooks/${hookId}/`)).success, true);
      await receiving.close();
      hook = undefined;
    }
  });

  it('sends one webhook_test event on the test route, not retried, and says whether it was delivered', async () => {
    const answers = [200, 500];
    const receiving = await listen((n) => answers[n - 1] ?? 200);
    const { id: hookId, secret } = await subscribe(receiving.url, ['client:outbid']);
    const ok = await call(sim, 'POST', `/api/v0/webhooks/${hookId}/test/`);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(obj(ok), { success: true, msg: 'Test webhook delivered' });
    const [got] = receiving.received as [Received];
    assert.equal(payload(got).notif_type, 'webhook_test');
    assert.equal(got.headers['x-vast-signature-256'], sign(secret, String(got.headers['x-vast-timestamp']), got.body));
    const failed = await call(sim, 'POST', `/api/v0/webhooks/${hookId}/test/`);
    assert.equal(failed.status, 400, failed.text);
    assert.match(String(obj(failed).msg), /500/);
    await sim.control.webhooksIdle();
    assert.equal(receiving.received.length, 2, 'the failed test was not retried');
  });

  it('tells of an outbid, naming the instance, to every webhook on the type', async () => {
    const receiving = await listen();
    await subscribe(receiving.url, ['client:outbid']);
    await subscribe(receiving.url, ['client:outbid', 'client:low_credit']);
    await subscribe(receiving.url, ['client:low_credit']);
    const id = await rentBid(sim, 0.01);
    await control(sim, 'POST', `instances/${id}/outbid`, {});
    await sim.control.webhooksIdle();
    const outbids = receiving.received.filter((r) => payload(r).notif_type === 'outbid');
    assert.equal(outbids.length, 2, 'the two webhooks on client:outbid');
    assert.match(String(payload(outbids[0]!).message), new RegExp(`\\b${id}\\b`));
    assert.match(String(payload(outbids[0]!).subject), new RegExp(`\\b${id}\\b`));
  });

  it('tells of low credit once per crossing of the threshold', async () => {
    const receiving = await listen();
    await subscribe(receiving.url, ['client:low_credit']);
    const lows = () => receiving.received.filter((r) => payload(r).notif_type === 'low_credit');
    const dropped = (await control(sim, 'POST', `accounts/${sim.accountId}/low-credit`, {})) as { credit: number; threshold: number };
    assert.deepEqual(dropped, { success: true, credit: 2.5, threshold: 5 });
    await sim.control.webhooksIdle();
    assert.equal(lows().length, 1);
    assert.match(String(payload(lows()[0]!).message), /2\.50/);
    await control(sim, 'POST', `accounts/${sim.accountId}/low-credit`, { balance: 1 });
    await sim.control.webhooksIdle();
    assert.equal(lows().length, 1, 'still below: no second notice');
    await control(sim, 'POST', `accounts/${sim.accountId}/credit`, { amount: 20 });
    await call(sim, 'GET', '/api/v0/users/current/');
    await control(sim, 'POST', `accounts/${sim.accountId}/low-credit`, { balance: 3 });
    await sim.control.webhooksIdle();
    assert.equal(lows().length, 2, 'back above and down again: told again');
    const refused = await call(sim, 'POST', `/__control/accounts/${sim.accountId}/low-credit`, { balance: 50 }, null);
    assert.equal(refused.status, 400, 'the control only takes credit away');
  });

  it('stays silent for a type whose webhooks channel the preferences turned off', async () => {
    const receiving = await listen();
    await subscribe(receiving.url, ['client:instance_stopped']);
    await call(sim, 'PUT', `/api/v0/users/${sim.accountId}/notification-prefs/`, {
      notification_preferences: { client: { instance_stopped: { email: true, webhooks: false } } },
    });
    await call(sim, 'PUT', `/api/v0/instances/${(await rentOne(sim)).id}/`, { state: 'stopped' });
    await sim.control.webhooksIdle();
    assert.equal(receiving.received.length, 0);
    assert.equal(
      (
        await call(
          sim,
          'POST',
          `/api/v0/webhooks/${(obj(await call(sim, 'GET', '/api/v0/webhooks/')).webhooks as Array<{ id: number }>)[0]!.id}/test/`,
        )
      ).status,
      200,
      'a test is sent anyway',
    );
  });

  it('closes a delivery in flight when the simulator stops, and the API answer never waits on it', async () => {
    const receiving = await listen(() => 'hold');
    await subscribe(receiving.url, ['client:instance_stopped']);
    const started = Date.now();
    await call(sim, 'PUT', `/api/v0/instances/${(await rentOne(sim)).id}/`, { state: 'stopped' });
    assert.ok(Date.now() - started < 2_000);
    await eventually(() => receiving.held.length === 1, 'the receiver holding the delivery');
    const closed = new Promise<void>((resolve) => receiving.held[0]!.on('close', () => resolve()));
    const stopping = Date.now();
    await sim.stop();
    await closed;
    assert.ok(Date.now() - stopping < 5_000, 'the simulator stopped without waiting on the receiver');
  });
});

describe('marketplace: webhooks outside test mode', function () {
  this.timeout(30_000);
  let sim: Marketplace | undefined;
  let hook: Receiver | undefined;

  before(() => {
    certificate ??= selfSignedCertificate('localhost');
  });

  afterEach(async () => {
    await sim?.stop();
    await hook?.close();
  });

  it('refuses a loopback target at delivery: nothing reaches it, and the test route says why', async () => {
    sim = await startSimulator({ webhookTestMode: false });
    hook = await receiver();
    const created = await call(sim, 'POST', '/api/v0/webhooks/', { webhook_url: hook.url, event_types: ['client:instance_stopped'] });
    assert.equal(created.status, 200, 'a loopback URL is accepted at create; it fails at delivery');
    const hookId = (obj(created).webhook as { id: number }).id;
    const tested = await call(sim, 'POST', `/api/v0/webhooks/${hookId}/test/`);
    assert.equal(tested.status, 400, tested.text);
    assert.match(String(obj(tested).msg), /127\.0\.0\.1|::1/);
    await call(sim, 'PUT', `/api/v0/instances/${(await rentOne(sim)).id}/`, { state: 'stopped' });
    await sim.control.webhooksIdle();
    assert.equal(hook.received.length, 0, 'nothing was sent');
    const attempts = sim.control.webhookDeliveries();
    assert.deepEqual(
      attempts.map((a) => [a.notif_type, a.attempt, a.status, a.outcome]),
      [
        ['webhook_test', 1, null, 'failed'],
        ['instance_stopped', 1, null, 'failed'],
      ],
      'refused once, not retried',
    );
    assert.match(String(attempts[1]!.error), /not a public address/);
  });
});
