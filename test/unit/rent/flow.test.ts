import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/api/errors';
import type { Offer } from '../../../src/core/api/offers';
import { ONSTART_MAX_CHARS } from '../../../src/core/api/limits';
import { WATCHDOG_BEGIN } from '../../../src/core/idle/watchdog';
import { hasResumeHook, RESUME_HOOK_BEGIN, resumeHook } from '../../../src/core/jobs/resumeScripts';
import { presentOffer } from '../../../src/core/offers/present';
import { NO_ACCOUNT_NOTICE, priceRent, rentEnd, rentOnstart, unsettledNotice, type IdleStopSettings } from '../../../src/core/rent/flow';
import { rentConfirmation } from '../../../src/core/rent/confirmation';
import type { PendingRent } from '../../../src/core/rent/journal';
import type { LaunchMode } from '../../../src/core/rent/launchMode';
import { rentRequest, type RentPlan } from '../../../src/core/rent/plan';
import { quoteRent } from '../../../src/core/rent/quote';
import type { RentOutcome } from '../../../src/core/rent/renter';
import { DEMO_KEY, clientFor, priceableOffer, startSimulator, type Marketplace } from '../../support';
import { accountAt, renterFor } from './kit';

const offer = priceableOffer();
const label = presentOffer(offer).label;
const plan: RentPlan = { image: 'ubuntu:22.04', disk: 40, label: 'train' };
const idleOff: IdleStopSettings = { enabled: false, minutes: 30, gpuThreshold: 5 };
const idleOn: IdleStopSettings = { enabled: true, minutes: 30, gpuThreshold: 5 };
const BASE = 'https://console.example.test';

describe('rent flow: before anything is sent', () => {
  it('stops while an earlier rent on the account is not settled, naming it', () => {
    assert.equal(unsettledNotice([]), undefined);
    const pending = { label: 'gpu-rental-1', description: 'RTX 4090' } as PendingRent;
    const notice = unsettledNotice([pending]);
    assert.equal(notice?.severity, 'warning');
    assert.match(notice?.text ?? '', /^GPU Rental: not rented: "gpu-rental-1" \(RTX 4090\) is not confirmed yet/);
    assert.equal(notice?.action, undefined);
  });

  it('quotes the rent with its disk and names it for the renter and the spend cap', () => {
    const priced = priceRent(offer, 40, 100);
    assert.deepEqual(priced.quote, quoteRent(offer, 40, 100));
    assert.equal(priced.refusal, undefined);
    assert.equal(priced.capReason, `rented: ${label} costs $0.410/h`);
    assert.deepEqual(priced.info, { description: label, perHour: priced.quote.totalPerHour });
  });

  it('refuses what the known credit cannot cover for an hour, and never an unknown credit', () => {
    assert.deepEqual(priceRent(offer, 40, 0.3).refusal, {
      severity: 'error',
      text: 'GPU Rental: not rented. This machine costs $0.410/h and the credit left is $0.300: not enough for one hour. Add credit, or pick a cheaper offer.',
    });
    assert.equal(priceRent(offer, 40, undefined).refusal, undefined);
  });

  it('has automation confirm the price, with the volume, the template mode and an unknown credit', () => {
    const confirm = (p: RentPlan, credit: number | undefined, templateMode?: LaunchMode) =>
      rentConfirmation({ offer, plan: p, credit, templateMode });
    const { title, detail, button, quote } = confirm(plan, 100);
    assert.deepEqual(
      { title, detail, button },
      { title: `Rent ${label} for $0.410/h?`, detail: 'GPU $0.400/h + disk $0.010/h (40 GB). About $9.84 per day.', button: 'Rent' },
    );
    assert.deepEqual(quote, quoteRent(offer, 40, 100));
    const withVolume = confirm({ ...plan, volume: { create_new: true, volume_id: 9, size: 50, mount_path: '/data' } }, undefined);
    assert.equal(
      withVolume.detail,
      'GPU $0.400/h + disk $0.010/h (40 GB). About $9.84 per day. With a new 50 GB volume (billed until deleted) at /data. The credit left is unknown, so this was not checked against it.',
    );
    const existing = confirm({ ...plan, volume: { create_new: false, volume_id: 7, mount_path: '/w' } }, 1);
    assert.match(existing.detail, / With volume 7 at \/w\.$/);
    const jupyter: LaunchMode = { kind: 'jupyter', direct: false, text: 'Jupyter' };
    const template = confirm({ disk: 40, label: 't', template: 'abc123' }, 1, jupyter);
    assert.match(template.detail, / Template abc123: Jupyter, as the template says\.$/);
  });
});

describe('rent flow: the wizard for a cluster', () => {
  it('goes on to the cluster confirmation instead of renting, priced per node, and leaves the credit to it', () => {
    const single = rentConfirmation({ offer, plan, credit: 100, templateMode: undefined });
    const cluster = rentConfirmation({ offer, plan, credit: 100, templateMode: undefined, clusterNodes: 3 });
    assert.deepEqual(
      { label: cluster.rows[0]?.label, description: cluster.rows[0]?.description, value: cluster.rows[0]?.value },
      { label: '$(arrow-right) Next: confirm all 3 nodes', description: '$0.410/h for each node', value: 'rent' },
    );
    assert.match(cluster.placeholder, /every node and the total before anything is rented/);
    const creditRows = (rows: typeof single.rows) => rows.filter((r) => /credit/i.test(`${r.label} ${r.description ?? ''}`));
    assert.ok(creditRows(single.rows).length > 0, 'a single rent shows the credit');
    assert.deepEqual(creditRows(cluster.rows), [], "the cluster's own confirmation shows the credit after a day for all nodes");
  });
});

describe('rent flow: the start-up script', () => {
  it('puts the idle watchdog in front of the user script when idle stop is on', () => {
    const script = rentOnstart({ ...plan, onstart: 'echo mine' }, idleOn, BASE);
    assert.equal(script.refusal, undefined);
    const onstart = 'onstart' in script ? (script.onstart ?? '') : '';
    assert.ok(onstart.startsWith(WATCHDOG_BEGIN), 'the watchdog first');
    assert.ok(onstart.endsWith('echo mine'), 'then the user script, kept');
    assert.ok(onstart.includes(BASE));
  });

  it('puts the resume hook in every start-up script, with or without the watchdog, but not with a template', () => {
    const withDog = rentOnstart({ ...plan, onstart: 'echo mine' }, idleOn, BASE);
    const dogScript = 'onstart' in withDog ? (withDog.onstart ?? '') : '';
    assert.ok(hasResumeHook(dogScript), 'with the watchdog');
    assert.ok(dogScript.indexOf(WATCHDOG_BEGIN) < dogScript.indexOf(RESUME_HOOK_BEGIN), 'after the watchdog, before the user script');
    assert.deepEqual(rentOnstart({ ...plan, onstart: 'echo mine' }, idleOff, BASE), { onstart: `${resumeHook()}echo mine` });
    assert.deepEqual(rentOnstart({ ...plan, onstart: 'echo mine', idleStopMinutes: 0 }, idleOn, BASE), {
      onstart: `${resumeHook()}echo mine`,
    });
    assert.deepEqual(
      rentOnstart({ ...plan, onstart: undefined }, idleOff, BASE),
      { onstart: resumeHook() },
      'without a script of the user',
    );
    assert.deepEqual(rentOnstart({ disk: 10, label: 't', template: 'abc' }, idleOn, BASE), { onstart: undefined });
    const forThisRent = rentOnstart({ ...plan, idleStopMinutes: 15 }, idleOff, BASE);
    assert.ok('onstart' in forThisRent && forThisRent.onstart?.startsWith(WATCHDOG_BEGIN), "the rent's own minutes win over the setting");
    // Without the watchdog, a script of the user's that leaves no room for the hook is sent alone, not refused.
    const long = 'x'.repeat(ONSTART_MAX_CHARS - 10);
    assert.deepEqual(rentOnstart({ ...plan, onstart: long }, idleOff, BASE), { onstart: long });
  });

  it('refuses a script the service would refuse as too long once the watchdog is added', () => {
    const script = rentOnstart({ ...plan, onstart: 'x'.repeat(ONSTART_MAX_CHARS - 10) }, idleOn, BASE);
    assert.ok(script.refusal);
    assert.equal(script.refusal.severity, 'error');
    assert.match(script.refusal.text, /^GPU Rental: not rented\. The start-up script with the idle watchdog would be \d+ characters/);
  });

  it('sends the plan as the create request, with the runtype a template keeps', () => {
    assert.deepEqual(rentRequest({ ...plan, volume: { create_new: false, volume_id: 7, mount_path: '/w' } }, 'echo'), {
      image: 'ubuntu:22.04',
      template_hash_id: undefined,
      disk: 40,
      runtype: 'ssh_proxy',
      label: 'train',
      onstart: 'echo',
      volume_info: { create_new: false, volume_id: 7, mount_path: '/w' },
    });
    assert.equal(rentRequest({ disk: 10, label: 't', template: 'abc' }, undefined).runtype, undefined);
  });

  it('says how to fix a rent with no key for the service', () => {
    assert.deepEqual(NO_ACCOUNT_NOTICE, {
      severity: 'error',
      text: 'GPU Rental: not rented: no API key is set for this service. Set one and try again.',
      action: { button: 'Set API Key', run: 'setApiKey' },
    });
  });
});

describe('rent flow: after the answer', () => {
  const quote = quoteRent(offer, 40, 100);
  const error = new ApiError({ kind: 'bad_request', action: 'rent offer 1', method: 'PUT', path: '/api/v0/asks/1/', status: 400 });

  it('for a new instance: follows its boot, remembers the image and template, refreshes, then offers to open it', () => {
    const end = rentEnd({ kind: 'created', instanceId: 42 }, { ...plan, template: 'abc' }, quote);
    assert.deepEqual(end.followUps, [
      { kind: 'trackBoot', instanceId: 42 },
      { kind: 'rememberImage', image: 'ubuntu:22.04' },
      { kind: 'rememberTemplate', hash: 'abc' },
      { kind: 'refreshOffers' },
      { kind: 'refreshInstances' },
    ]);
    assert.deepEqual(end.notice, {
      severity: 'info',
      text: 'GPU Rental: rented "train" as instance #42. It bills $0.410/h; watch it boot in the status bar.',
      action: { button: 'Open When Ready', run: 'connect', instanceId: 42 },
    });
    assert.equal(end.instanceId, 42);
    assert.deepEqual(
      rentEnd({ kind: 'created', instanceId: 43 }, { disk: 10, label: 'x' }, quote).followUps.map((f) => f.kind),
      ['trackBoot', 'refreshOffers', 'refreshInstances'],
    );
  });

  it('for an unknown outcome: shows the check in the status bar, and warns with the logs', () => {
    const entry = { label: 'train', description: label, perHour: 0.41 } as PendingRent;
    const end = rentEnd({ kind: 'uncertain', entry, error: new Error('lost') }, plan, quote);
    assert.deepEqual(end.followUps, [{ kind: 'showPendingRents' }]);
    assert.equal(end.notice.severity, 'warning');
    assert.match(end.notice.text, /^GPU Rental: the rent of "train" \(.+\) is not confirmed: /);
    assert.deepEqual(end.notice.action, { button: 'Show Logs', run: 'showLogs' });
    assert.equal(end.instanceId, undefined);
  });

  it('for a taken offer: warns and offers fresh offers; for a refusal, a busy window or an unsettled rent: an error with the logs', () => {
    const taken = rentEnd({ kind: 'unavailable', error }, plan, quote);
    assert.deepEqual(taken.followUps, []);
    assert.equal(taken.notice.severity, 'warning');
    assert.match(taken.notice.text, /^GPU Rental: the offer was taken or withdrawn meanwhile/);
    assert.deepEqual(taken.notice.action, { button: 'Refresh Offers', run: 'refreshOffers' });
    const stopped: RentOutcome[] = [{ kind: 'refused', error }, { kind: 'busy' }, { kind: 'unsettled', pending: [] }];
    for (const outcome of stopped) {
      const end = rentEnd(outcome, plan, quote);
      assert.deepEqual(end.followUps, [], outcome.kind);
      assert.equal(end.notice.severity, 'error', outcome.kind);
      assert.ok(end.notice.text.startsWith('GPU Rental: '), outcome.kind);
      assert.deepEqual(end.notice.action, { button: 'Show Logs', run: 'showLogs' }, outcome.kind);
      assert.equal(end.instanceId, undefined);
    }
  });
});

describe('rent flow: against the simulator', () => {
  let sim: Marketplace;
  let offers: Offer[];
  before(async () => {
    sim = await startSimulator();
    offers = await clientFor(sim.url, DEMO_KEY).client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 2,
    });
  });
  after(() => sim.stop());

  it('rents what the plan says, and tells a new instance from a taken offer', async () => {
    const { renter } = renterFor();
    const target = offers[0]!;
    const rentPlan: RentPlan = { image: 'ubuntu:22.04', disk: 10, label: renter.uniqueLabel(), onstart: 'echo hi' };
    const priced = priceRent(target, rentPlan.disk, undefined);
    const script = rentOnstart(rentPlan, idleOn, sim.url);
    assert.ok(!script.refusal);
    const first = await renter.rent(accountAt(sim.url), target, rentRequest(rentPlan, script.onstart), priced.info);
    const created = rentEnd(first, rentPlan, priced.quote);
    assert.ok(created.instanceId !== undefined, created.notice.text);
    const instance = await clientFor(sim.url, DEMO_KEY).client.instances.show(created.instanceId);
    assert.equal(instance?.label, rentPlan.label);
    assert.equal(instance?.image_uuid, 'ubuntu:22.04');

    const again = await renter.rent(
      accountAt(sim.url),
      target,
      rentRequest({ ...rentPlan, label: renter.uniqueLabel() }, undefined),
      priced.info,
    );
    assert.equal(rentEnd(again, rentPlan, priced.quote).notice.action?.run, 'refreshOffers', 'the offer was taken by the first rent');
  });
});
