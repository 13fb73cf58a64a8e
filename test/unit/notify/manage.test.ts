// Notify Me's Manage, with the extension's client against a stub of the service's webhook routes
// (stubService.ts); simulator.sim.test.ts runs the flows against the simulator's own routes.
import assert from 'node:assert/strict';
import { manageNotify } from '../../../src/core/notify/manage';
import { setUpNotify } from '../../../src/core/notify/setUp';
import type { Answer } from '../../support/scriptedAsk';
import { assertNeverShown, kit, type ManyAnswer } from './kit';
import { startStubService, type StubService } from './stubService';

describe('Notify Me: Manage', () => {
  let stub: StubService;
  beforeEach(async () => (stub = await startStubService()));
  afterEach(() => stub.close());

  const URL_OK = 'https://ntfy.sh/gpu-rental-it-9Zc4';

  /** A webhook set up through the flow (its secret kept in the kit's vault), then Manage with these answers. */
  async function setUpThen(answers: Answer[], many: ManyAnswer[] = []) {
    const k = kit(stub, [{ choose: undefined }, ...answers], many);
    const set = await setUpNotify(k.d, { url: URL_OK, events: ['client:outbid', 'client:low_credit'] });
    return { k, id: set.value!.id, first: stub.hooks[0]!.secret };
  }

  it('lists the webhooks with their URL and events, marking the one whose secret is kept here', async () => {
    const { k } = await setUpThen([{ pick: undefined }]);
    stub.hooks.push({ id: 9, name: null, webhook_url: 'https://example.com/hook', event_types: ['client:invoice'], secret: 'elsewhere' });
    assert.deepEqual(await manageNotify(k.d), { value: false });
    const pick = k.ask.asked[1]!;
    assert.equal(pick.kind, 'pick');
    assert.deepEqual(pick.options, ['GPU Rental', 'webhook 9']);
    assert.deepEqual(k.ask.asked.length, 2);
  });

  it('sends a test delivery and says what the service answered', async () => {
    const { k, id } = await setUpThen([{ pick: 'GPU Rental' }, { pick: 'Send Test Delivery' }]);
    const outcome = await manageNotify(k.d);
    assert.deepEqual(outcome.value, true);
    assert.equal(
      outcome.notice?.text,
      'GPU Rental: the service sent a test delivery to "GPU Rental" and answered: "Test webhook delivered".',
    );
    assert.equal(stub.requests.at(-1), `POST /api/v0/webhooks/${id}/test/`);
  });

  it('Rotate Secret asks first; the new secret replaces the kept one and is shown once with Copy', async () => {
    const { k, id, first } = await setUpThen([{ confirm: false }, { confirm: true }, { choose: 'Copy Secret' }]);
    assert.deepEqual(await manageNotify(k.d, { id, action: 'rotate' }), { value: false }, 'declined: nothing rotated');
    assert.equal(stub.hooks[0]!.secret, first);
    const outcome = await manageNotify(k.d, { id, action: 'rotate' });
    const second = stub.hooks[0]!.secret;
    assert.notEqual(second, first);
    assert.equal(outcome.value, true);
    assert.equal(await k.vault.secretOf(k.scope, id), second, 'the new secret replaces the old one');
    assert.deepEqual(k.copied, [second]);
    assert.match(k.ask.asked[1]!.detail, /receiver that checks X-Vast-Signature-256 with the old one refuses deliveries/);
    assert.equal(await k.vault.jobEndUrl(k.scope), URL_OK, 'still the URL a job ends to');
    assertNeverShown(k, second, [outcome]);
    assertNeverShown(k, first, [outcome], 1);
  });

  it('Copy Signing Secret copies the kept one; one made elsewhere offers Rotate, which keeps the new one but sends no job there', async () => {
    const { k, id, first } = await setUpThen([{ choose: 'Rotate Secret' }, { choose: undefined }]);
    const copied = await manageNotify(k.d, { id, action: 'copy' });
    assert.equal(copied.notice?.text, 'GPU Rental: copied the signing secret of "GPU Rental".');
    assert.deepEqual(k.copied, [first]);
    stub.hooks.push({
      id: 9,
      name: 'console',
      webhook_url: 'https://example.com/hook',
      event_types: ['client:outbid'],
      secret: 'made-there',
    });
    await manageNotify(k.d, { id: 9, action: 'copy' });
    const offer = k.ask.asked[1]!;
    assert.equal(offer.text, 'GPU Rental: the signing secret of "console" is not kept in VS Code.');
    assert.match(offer.detail, /^It was created elsewhere \(the console, another machine or another profile\)/);
    const rotated = stub.hooks[1]!.secret;
    assert.notEqual(rotated, 'made-there');
    assert.equal(await k.vault.secretOf(k.scope, 9), rotated);
    assert.equal(await k.vault.jobEndUrl(k.scope), URL_OK, "a webhook made elsewhere never gets a job's end");
  });

  it('Change Events offers the renter types with the current ones ticked and sends what is picked', async () => {
    const { k, id } = await setUpThen([], [['client:invoice', 'client:outbid']]);
    const outcome = await manageNotify(k.d, { id, action: 'events' });
    const ticked = k.many[0]!.items.filter((i) => i.picked).map((i) => i.value);
    assert.deepEqual(ticked, ['client:outbid', 'client:low_credit']);
    assert.deepEqual(stub.bodies.at(-1), { event_types: ['client:invoice', 'client:outbid'] });
    assert.equal(outcome.notice?.text, 'GPU Rental: "GPU Rental" now tells you about: Invoices, Outbid notifications.');
  });

  it('Remove asks in a modal, removes the webhook and forgets its secret', async () => {
    const { k, id } = await setUpThen([{ confirm: true }]);
    const outcome = await manageNotify(k.d, { id, action: 'remove' });
    assert.equal(k.ask.asked[1]!.kind, 'confirm');
    assert.match(k.ask.asked[1]!.text, /^Remove the webhook "GPU Rental"\?$/);
    assert.deepEqual([outcome.value, outcome.notice?.text], [true, 'GPU Rental: removed "GPU Rental".']);
    assert.deepEqual(stub.hooks, []);
    assert.equal(await k.vault.secretOf(k.scope, id), undefined);
    assert.equal(await k.vault.jobEndUrl(k.scope), undefined, "no job's end goes there any more");
  });

  it('a webhook removed meanwhile (404) reads as already removed, not as an error', async () => {
    const { k, id } = await setUpThen([{ pick: 'GPU Rental' }, { pick: 'Remove' }]);
    // Removed elsewhere while the user confirms.
    k.d.ask.confirm = () => (stub.hooks.splice(0), Promise.resolve(true));
    const outcome = await manageNotify(k.d);
    assert.equal(stub.requests.at(-1), `DELETE /api/v0/webhooks/${id}/`);
    assert.equal(outcome.value, false);
    assert.equal(outcome.notice?.severity, 'info');
    assert.equal(outcome.notice?.text, 'GPU Rental: "GPU Rental" was already removed from the account (elsewhere, or a moment ago).');
    assert.equal(await k.vault.secretOf(k.scope, id), undefined, 'forgotten here too');
    // The same for a test delivery, and for an id that is no longer listed.
    stub.hooks.push({ id: 9, name: 'gone soon', webhook_url: 'https://example.com/h', event_types: [], secret: 'x' });
    const gone = kit(stub, []);
    const api = gone.d.webhooks;
    const vanishing: typeof api = {
      list: () => api.list(),
      create: (f) => api.create(f),
      update: (i, f) => api.update(i, f),
      delete: (i) => api.delete(i),
      rotateSecret: (i) => api.rotateSecret(i),
      types: () => api.types(),
      test: (i) => (stub.hooks.splice(0), api.test(i)),
    };
    const d = { ...gone.d, webhooks: vanishing };
    assert.match((await manageNotify(d, { id: 9, action: 'test' })).notice!.text, /"gone soon" was already removed/);
    assert.match((await manageNotify(d, { id: 9, action: 'test' })).notice!.text, /"webhook 9" was already removed/);
  });

  it('says the account has none, pointing to Set Up', async () => {
    const outcome = await manageNotify(kit(stub, []).d);
    assert.deepEqual(outcome.value, false);
    assert.equal(outcome.notice?.text, 'GPU Rental: the account has no webhooks. Set one up with "Notify Me Away from VS Code…".');
  });
});
