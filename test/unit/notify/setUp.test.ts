// Notify Me's Set Up, with the extension's client against a stub of the service's webhook routes
// (stubService.ts), in process and without a process started, so every branch runs in the fast
// tier; simulator.sim.test.ts runs the same flows against the simulator's own routes.
import { checkNotifyUrl } from '../../../src/core/notify/url';
import assert from 'node:assert/strict';
import type { InputPrompt } from '../../../src/core/prompts';
import { setUpNotify } from '../../../src/core/notify/setUp';
import { assertNeverShown, kit } from './kit';
import { startStubService, type StubService } from './stubService';

describe('Notify Me: Set Up', () => {
  let stub: StubService;
  beforeEach(async () => (stub = await startStubService()));
  afterEach(() => stub.close());

  const URL_OK = 'https://ntfy.sh/gpu-rental-it-7Hq2';

  /** What the URL box says to each text, and the flow's end when the user then dismisses it. */
  async function refusals(texts: string[]) {
    const k = kit(stub, []);
    const said: (string | undefined)[] = [];
    let box: InputPrompt | undefined;
    const outcome = await setUpNotify({
      ...k.d,
      ask: { ...k.d.ask, input: (o) => ((box = o), said.push(...texts.map((t) => o.validate?.(t))), Promise.resolve(undefined)) },
    });
    return { said, outcome, box };
  }

  it('refuses an http:// URL at the box and when given, without any request', async () => {
    const { said, outcome, box } = await refusals(['http://ntfy.sh/my-topic', 'ftp://example.com/x']);
    assert.match(said[0]!, /^The service delivers only to https:\/\/ URLs\. Enter the https:\/\/ address of your receiver/);
    assert.equal(said[1], said[0]);
    assert.match(box!.placeholder!, /ntfy\.sh\/<topic>.*ntfy topic: a push on your phone/, 'the placeholder says an ntfy topic URL works');
    assert.deepEqual(outcome, { value: undefined });
    const given = await setUpNotify(kit(stub, []).d, { url: 'http://ntfy.sh/my-topic', events: ['client:outbid'] });
    assert.equal(given.value, undefined);
    assert.equal(given.notice?.severity, 'error');
    assert.match(given.notice!.text, /^GPU Rental: not set up\. The service delivers only to https:\/\/ URLs/);
    assert.deepEqual(stub.requests, [], 'nothing was sent');
  });

  it('refuses a URL over 2,048 characters, saying how long it is and what to do', async () => {
    const long = `https://ntfy.sh/${'a'.repeat(2_033)}`;
    assert.equal(long.length, 2_049);
    const { said } = await refusals([long, long.slice(0, 2_048)]);
    assert.equal(said[0], 'The service accepts a URL of at most 2,048 characters; this one has 2,049. Use a shorter URL.');
    assert.equal(said[1], undefined, 'exactly 2,048 is fine');
    assert.deepEqual(stub.requests, []);
  });

  it('refuses a URL without a host name, this machine, and text that is no URL', async () => {
    const { said } = await refusals(['https://', 'https:///topic', 'https://:443/x', 'https://user@/x', 'https://ntfy.sh/a b']);
    for (const s of said.slice(0, 4))
      assert.match(s!, /^The URL has no host name after https:\/\/\. Enter it whole, for example https:\/\/ntfy\.sh\/<topic>\.$/);
    assert.match(said[4]!, /no spaces, quotes, backslashes or control characters/);
    const given = await setUpNotify(kit(stub, []).d, { url: 'https:///topic' });
    assert.match(given.notice!.text, /no host name/);
    assert.deepEqual(stub.requests, []);
  });

  it('refuses this machine or a private network for a public service, and lets a service on this machine reach it', () => {
    for (const url of ['https://localhost/x', 'https://127.0.0.1:8443/x', 'https://10.1.2.3/x', 'https://[::1]/x'])
      assert.match(checkNotifyUrl(url, 'https://console.vast.ai')!, /is this machine or a private network, which the service cannot reach/);
    assert.equal(checkNotifyUrl('https://localhost:8443/hook', 'http://127.0.0.1:41000'), undefined);
    assert.equal(checkNotifyUrl('https://ntfy.sh/topic', 'https://console.vast.ai'), undefined);
  });

  it('registers one "GPU Rental" webhook for the usual events, keeps its secret in secret storage only and shows it once with Copy', async () => {
    const k = kit(stub, [{ input: URL_OK }, { choose: 'Copy Secret' }], ['ticked']);
    const outcome = await setUpNotify(k.d);
    const [hook] = stub.hooks;
    assert.deepEqual(outcome.value, { id: hook!.id, url: URL_OK });
    assert.deepEqual(stub.requests, ['GET /api/v0/webhooks/', 'GET /api/v0/notification-types/', 'POST /api/v0/webhooks/']);
    // The renter's types only, named for people, the usual ones ticked.
    const offered = k.many[0]!.items.map((i) => `${i.picked ? '[x]' : '[ ]'} ${i.label} (${String(i.value)})`);
    assert.deepEqual(offered, [
      '[x] Outbid notifications (client:outbid)',
      '[x] Low balance notifications (client:low_credit)',
      '[x] Instance offline (client:instance_offline)',
      '[x] Contract expiring (client:contract_expiring)',
      '[ ] Invoices (client:invoice)',
    ]);
    assert.deepEqual(stub.bodies[0], {
      name: 'GPU Rental',
      webhook_url: URL_OK,
      event_types: ['client:outbid', 'client:low_credit', 'client:instance_offline', 'client:contract_expiring'],
    });
    const secret = hook!.secret;
    assert.equal(await k.vault.secretOf(k.scope, hook!.id), secret, 'kept for this profile');
    assert.deepEqual(k.copied, [secret], 'Copy Secret put it on the clipboard');
    assert.match(k.ask.asked[1]!.text, /signing secret of "GPU Rental"\. Copy it now .*X-Vast-Signature-256.*not shown again/);
    assert.equal(await k.vault.jobEndUrl(k.scope), URL_OK, "a job's end goes to the same URL");
    // Another profile (or another service) on this machine keeps its own: nothing of this one.
    const other = { ...k.scope, profileId: 'work' };
    assert.equal(await k.vault.secretOf(other, hook!.id), undefined);
    assert.equal(await k.vault.jobEndUrl(other), undefined);
    assert.equal(await k.vault.jobEndUrl({ ...k.scope, baseUrl: 'https://console.vast.ai' }), undefined);
    assert.equal([...k.secrets.values.keys()].length, 1, 'one entry in secret storage');
    assertNeverShown(k, secret, [outcome]);
    assert.match(outcome.notice!.text, /^GPU Rental: notifications go to https:\/\/ntfy\.sh\/gpu-rental-it-7Hq2 now\. .*unsigned text/);
  });

  it('a secret that secret storage refuses is still shown once, said, and never logged', async () => {
    const k = kit(stub, [{ choose: undefined }], []);
    k.secrets.failing = true;
    const outcome = await setUpNotify(k.d, { url: URL_OK, events: ['client:outbid'] });
    const secret = stub.hooks[0]!.secret;
    assert.match(k.ask.asked[0]!.text, /VS Code could not keep it, and it is not shown again/);
    assert.match(k.logger.lines.join('\n'), /could not be kept in secret storage: Error/);
    assert.equal(await k.vault.jobEndUrl(k.scope), undefined);
    assertNeverShown(k, secret, [outcome]);
  });

  it('with four webhooks on the account says so and offers Manage, creating nothing', async () => {
    for (let i = 0; i < 4; i++)
      stub.hooks.push({ id: 100 + i, name: `hook ${i}`, webhook_url: `https://example.com/${i}`, event_types: [], secret: 'x' });
    const k = kit(stub, [{ input: URL_OK }, { choose: 'Manage Webhooks' }, { pick: undefined }]);
    const outcome = await setUpNotify(k.d);
    assert.equal(k.ask.asked[1]!.text, 'GPU Rental: the account has 4 webhooks, the most the service allows.');
    assert.equal(k.ask.asked[1]!.detail, 'Remove one you no longer need in Manage, then set this one up again.');
    assert.equal(k.ask.asked[2]!.kind, 'pick', 'Manage lists the webhooks');
    assert.deepEqual(outcome, { value: undefined, notice: undefined });
    assert.ok(!stub.requests.includes('POST /api/v0/webhooks/'), 'no create was sent');
  });

  it("a fifth webhook the service refuses (400) shows the service's own message", async () => {
    for (let i = 0; i < 3; i++)
      stub.hooks.push({ id: 100 + i, name: null, webhook_url: `https://example.com/${i}`, event_types: [], secret: 'x' });
    const k = kit(stub, [{ input: URL_OK }], []);
    // Another client makes the fourth while the events are picked.
    const outcome = await setUpNotify({
      ...k.d,
      pickMany: (p) => {
        stub.hooks.push({ id: 200, name: 'elsewhere', webhook_url: 'https://example.com/e', event_types: [], secret: 'x' });
        return Promise.resolve(p.items.slice(0, 1).map((i) => i.value));
      },
    });
    assert.equal(outcome.value, undefined);
    assert.equal(outcome.notice?.severity, 'error');
    assert.equal(
      outcome.notice?.text,
      'GPU Rental: the service refused to create the webhook: "You can have at most 4 webhooks.". Check the URL and the events, then try again.',
    );
    assert.equal(stub.hooks.length, 4);
    assert.deepEqual([...k.secrets.values.keys()], [], 'nothing kept');
  });

  it('a URL that has a webhook already offers Manage instead of a second one', async () => {
    stub.hooks.push({ id: 5, name: 'GPU Rental', webhook_url: URL_OK, event_types: ['client:outbid'], secret: 'x' });
    const k = kit(stub, [{ choose: undefined }]);
    const outcome = await setUpNotify(k.d, { url: URL_OK });
    assert.equal(k.ask.asked[0]!.text, 'GPU Rental: "GPU Rental" sends to this URL already.');
    assert.deepEqual(outcome, { value: undefined });
    assert.deepEqual(stub.requests, ['GET /api/v0/webhooks/']);
  });

  it('given events the service does not list are refused by name; dismissing the events creates nothing', async () => {
    const given = await setUpNotify(kit(stub, []).d, { url: URL_OK, events: ['client:outbid', 'host:machine_offline'] });
    assert.match(
      given.notice!.text,
      /^GPU Rental: the service lists no notification type host:machine_offline\. Use one of: client:outbid, /,
    );
    const k = kit(stub, [{ input: URL_OK }], [undefined]);
    assert.deepEqual(await setUpNotify(k.d), { value: undefined });
    assert.deepEqual(stub.hooks, []);
  });
});
