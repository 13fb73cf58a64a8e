// Notify Me's flows against the simulator's own webhook routes (test/marketplace/routes/
// notifications.ts), and a delivery the simulator really signs, checked with verifyDelivery. Its
// webhooks run in test mode: a receiver on localhost with a self-signed certificate gets them. The
// flows refuse such a URL (the service cannot reach it), so those webhooks are made with the client.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { manageNotify } from '../../../src/core/notify/manage';
import { setUpNotify } from '../../../src/core/notify/setUp';
import { verifyDelivery } from '../../../src/core/notify/verify';
import { selfSignedCertificate } from '../../harness/proxy';
import { clientFor, DEMO_KEY, simulatorForSuite } from '../../support';
import type { Answer } from '../../support/scriptedAsk';
import { assertNeverShown, kit, type ManyAnswer } from './kit';

describe('Notify Me against the simulator', function () {
  this.timeout(30_000);
  const sim = simulatorForSuite({}, { each: true });
  const received: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
  let server: Server;
  let hookUrl = '';

  before(async () => {
    server = createServer(selfSignedCertificate('localhost'), (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `https://localhost:${(server.address() as AddressInfo).port}/vast`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const simKit = (answers: Answer[], many: ManyAnswer[] = []) => kit(sim, answers, many, 'default', DEMO_KEY);
  const URL_OK = 'https://ntfy.sh/gpu-rental-sim-5Tq8';

  it('Set Up registers "GPU Rental" with the usual renter events ticked and keeps its secret; the fifth is refused', async () => {
    const k = simKit([{ input: URL_OK }, { choose: 'Copy Secret' }], ['ticked']);
    const outcome = await setUpNotify(k.d);
    const ticked = k.many[0]!.items.filter((i) => i.picked).map((i) => i.value);
    assert.ok(ticked.includes('client:outbid') && ticked.includes('client:low_credit'), `ticked: ${ticked.join(', ')}`);
    assert.ok(!k.many[0]!.items.some((i) => String(i.value).startsWith('host:')), 'no host types are offered');
    const listed = await k.d.webhooks.list();
    assert.deepEqual(
      listed.map((w) => [w.id, w.name, w.webhook_url, w.event_types]),
      [[outcome.value!.id, 'GPU Rental', URL_OK, ticked]],
    );
    const secret = k.copied[0]!;
    assert.equal(await k.vault.secretOf(k.scope, outcome.value!.id), secret);
    assertNeverShown(k, secret, [outcome]);

    const { client } = clientFor(sim.url, DEMO_KEY);
    for (let i = 0; i < 3; i++) await client.webhooks.create({ webhook_url: `https://example.com/${i}`, event_types: ['client:outbid'] });
    const full = simKit([{ input: 'https://ntfy.sh/another-topic' }, { choose: undefined }]);
    assert.deepEqual(await setUpNotify(full.d), { value: undefined });
    assert.equal(full.ask.asked[1]!.text, 'GPU Rental: the account has 4 webhooks, the most the service allows.');

    // The service's own refusal, when a fourth appears after the list was read.
    await client.webhooks.delete(listed[0]!.id);
    const raced = simKit([{ input: 'https://ntfy.sh/another-topic' }]);
    const refused = await setUpNotify({
      ...raced.d,
      pickMany: async (p) => {
        await client.webhooks.create({ webhook_url: 'https://example.com/late', event_types: ['client:outbid'] });
        return p.items.slice(0, 1).map((i) => i.value);
      },
    });
    assert.equal(refused.notice?.severity, 'error');
    assert.match(refused.notice!.text, /^GPU Rental: the service refused to create the webhook: "An account may have at most 4 webhooks/);
  });

  it('a secret made elsewhere: Copy offers Rotate; the test delivery then verifies with the kept secret only', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const made = await client.webhooks.create({ name: 'receiver', webhook_url: hookUrl, event_types: ['client:outbid'] });
    const k = simKit([{ choose: 'Rotate Secret' }, { choose: 'Copy Secret' }]);
    const rotated = await manageNotify(k.d, { id: made.webhook.id, action: 'copy' });
    assert.equal(rotated.value, true);
    const secret = await k.vault.secretOf(k.scope, made.webhook.id);
    assert.ok(secret && secret !== made.secret?.reveal(), 'a new secret, kept here');
    assert.deepEqual(k.copied, [secret]);

    const tested = await manageNotify(k.d, { id: made.webhook.id, action: 'test' });
    assert.equal(tested.notice?.text, 'GPU Rental: the service sent a test delivery to "receiver" and answered: "Test webhook delivered".');
    assert.equal(received.length, 1);
    const [delivery] = received;
    const now = Math.floor(Date.now() / 1000);
    assert.equal(verifyDelivery(secret, delivery!.headers, delivery!.body, now, 300).ok, true, 'signed with the kept secret');
    assert.deepEqual(verifyDelivery(made.secret!.reveal(), delivery!.headers, delivery!.body, now, 300), {
      ok: false,
      reason: 'bad signature',
    });
    assert.deepEqual(verifyDelivery(secret, delivery!.headers, delivery!.body, now + 3_600, 300), { ok: false, reason: 'too old' });
    assertNeverShown(k, secret, [rotated, tested]);
  });

  it("a test delivery that fails shows the service's words; a webhook removed meanwhile reads as already removed", async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const dead = await client.webhooks.create({ name: 'dead end', webhook_url: 'https://localhost:1/x', event_types: ['client:outbid'] });
    const k = simKit([]);
    const failed = await manageNotify(k.d, { id: dead.webhook.id, action: 'test' });
    assert.equal(failed.notice?.severity, 'error');
    assert.match(
      failed.notice!.text,
      /^GPU Rental: the service refused to send a test delivery to "dead end": "Test webhook not delivered: /,
    );
    k.d.ask.confirm = async () => (await client.webhooks.delete(dead.webhook.id), true);
    const removed = await manageNotify(k.d, { id: dead.webhook.id, action: 'remove' });
    assert.deepEqual(
      [removed.value, removed.notice?.severity, removed.notice?.text],
      [false, 'info', 'GPU Rental: "dead end" was already removed from the account (elsewhere, or a moment ago).'],
    );
  });
});
