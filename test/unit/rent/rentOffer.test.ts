import assert from 'node:assert/strict';
import type { Offer } from '../../../src/core/api/offers';
import { ApiError } from '../../../src/core/api/errors';
import { rentBestMatchFlow, type BestMatchDeps } from '../../../src/core/rent/bestMatch';
import { rentConfirmation } from '../../../src/core/rent/confirmation';
import type { PendingRent } from '../../../src/core/rent/journal';
import { runtypeLaunchMode } from '../../../src/core/rent/launchMode';
import type { RentPlan } from '../../../src/core/rent/plan';
import { rentOfferFlow, type RentOfferDeps } from '../../../src/core/rent/rentOffer';
import type { RentOutcome } from '../../../src/core/rent/renter';
import { rentWizard } from '../../../src/core/rent/wizard/wizard';
import { MemoryLogger, priceableOffer } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { silentProgress } from '../../../src/core/progress';
import { scriptedSteps } from './scriptedSteps';

const offer = priceableOffer({ id: 5, disk_space: 100 });
const plan: RentPlan = { image: 'ubuntu:22.04', disk: 40, runtype: 'ssh_proxy', label: 'train', idleStopMinutes: 0 };
const ACCOUNT = { baseUrl: 'https://console.example.test', profileId: 'default', key: 'k' };

/** A rent flow over fakes: what was sent is in `sent`, what was asked in `ask.asked`. */
function rentKit(answers: readonly Answer[], over: Partial<RentOfferDeps> = {}) {
  const ask = scriptedAsk(answers);
  const sent: Array<{ offer: Offer; request: Parameters<RentOfferDeps['rent']>[2] }> = [];
  const deps: RentOfferDeps = {
    ask,
    unsettled: () => [],
    credit: () => Promise.resolve(100),
    priceStats: () => Promise.resolve(undefined),
    wizard: () => Promise.reject(new Error('no wizard in this test')),
    templateMode: () => Promise.resolve(undefined),
    allowsSpend: () => Promise.resolve(true),
    idle: { enabled: false, minutes: 30, gpuThreshold: 5 },
    baseUrl: ACCOUNT.baseUrl,
    account: () => ACCOUNT,
    offer: () => Promise.resolve(offer),
    bidSearch: () => false,
    rent: (_account, o, request) => {
      sent.push({ offer: o, request });
      return Promise.resolve({ kind: 'created', instanceId: 42 });
    },
    ...over,
  };
  return { deps, ask, sent };
}

describe('rent offer (core flow)', () => {
  it('automation confirms the price with the confirmation builder, then rents once', async () => {
    const { deps, ask, sent } = rentKit([{ confirm: true }]);
    const end = await rentOfferFlow(deps, plan);
    const built = rentConfirmation({ offer, plan, credit: 100, templateMode: undefined });
    assert.deepEqual(ask.asked, [{ kind: 'confirm', text: built.title, detail: built.detail, options: ['Rent'] }]);
    assert.equal(sent.length, 1);
    assert.equal(end?.instanceId, 42);
    assert.match(end!.notice.text, /^GPU Rental: rented "train" as instance #42\. It bills \$0\.410\/h/);
  });

  it('does nothing when the user declines the price', async () => {
    const { deps, sent } = rentKit([{ confirm: false }]);
    assert.equal(await rentOfferFlow(deps, plan), undefined);
    assert.equal(sent.length, 0);
  });

  it('refuses, before asking, a rent the credit cannot cover for an hour', async () => {
    const { deps, ask, sent } = rentKit([], { credit: () => Promise.resolve(0.01) });
    const end = await rentOfferFlow(deps, plan);
    assert.equal(end?.notice.severity, 'error');
    assert.match(end!.notice.text, /^GPU Rental: not rented\. This machine costs \$0\.410\/h and the credit left is \$0\.010/);
    assert.equal(end?.instanceId, undefined);
    assert.deepEqual(ask.asked, []);
    assert.equal(sent.length, 0);
  });

  it('stops while an earlier rent is unsettled, before anything is asked or read', async () => {
    let read = false;
    const { deps, sent } = rentKit([], {
      unsettled: () => [{ label: 'gpu-rental-1', description: 'RTX 4090' } as PendingRent],
      offer: () => ((read = true), Promise.resolve(offer)),
    });
    const end = await rentOfferFlow(deps, plan);
    assert.match(end!.notice.text, /^GPU Rental: not rented: "gpu-rental-1"/);
    assert.equal(read, false, 'not even the offer is asked for');
    assert.equal(sent.length, 0);
  });

  it('a spend cap refusal sends nothing and asks nothing more', async () => {
    const { deps, ask, sent } = rentKit([], { allowsSpend: () => Promise.resolve(false) });
    assert.equal(await rentOfferFlow(deps, plan), undefined);
    assert.deepEqual(ask.asked, []);
    assert.equal(sent.length, 0);
  });

  it("keeps a template's Jupyter mode: the confirmation says so, and no runtype is sent", async () => {
    const jupyter = runtypeLaunchMode('jupyter_proxy ssh_proxy');
    const { deps, ask, sent } = rentKit([{ confirm: true }], { templateMode: () => Promise.resolve(jupyter) });
    const id = (await rentOfferFlow(deps, { template: 'abc123', disk: 10, label: 't', idleStopMinutes: 0 }))?.instanceId;
    assert.equal(id, 42);
    assert.match(ask.asked[0]!.detail, /Template abc123: Jupyter and SSH via proxy, as the template says\./);
    assert.equal(sent[0]!.request.runtype, undefined);
    assert.equal(sent[0]!.request.template_hash_id, 'abc123');
  });

  it('the wizard asks instead of the modal, and Cancel there rents nothing', async () => {
    const steps = scriptedSteps([{ pick: 'ubuntu:22.04' }, 'cancel']);
    const { deps, ask, sent } = rentKit([], {
      wizard: (o, credit, extra) =>
        rentWizard({ offer: o, credit, recentImages: [], defaultLabel: 'l', idleStopMinutes: 0, ...extra }, { steps, notify: () => {} }),
    });
    assert.equal(await rentOfferFlow(deps, undefined), undefined);
    assert.deepEqual(ask.asked, [], 'no modal after the wizard');
    assert.equal(sent.length, 0);
  });
});

/** Three offers, cheapest first; the first is taken before the rent lands. */
const offers = [
  priceableOffer({ id: 11, dph_total: 0.5, dph_base: 0.4 }),
  priceableOffer({ id: 12, dph_total: 0.6, dph_base: 0.5 }),
  priceableOffer({ id: 13, dph_total: 0.7, dph_base: 0.6 }),
];
const taken = (id: number): RentOutcome => ({
  kind: 'unavailable',
  error: new ApiError({ kind: 'not_found', action: 'rent', method: 'PUT', path: `/api/v0/asks/${id}/`, status: 404 }),
});

function bestKit(answers: readonly Answer[], over: Partial<BestMatchDeps> = {}) {
  const { deps: base, ask, sent } = rentKit(answers);
  const searched: string[] = [];
  const deps: BestMatchDeps = {
    ...base,
    ask,
    logger: new MemoryLogger(),
    savedSearches: [],
    currentSearch: { query: '', sort: 'price', pages: 1 },
    limit: 3,
    renter: {
      busy: false,
      rent: (_account, o, request) => {
        sent.push({ offer: o as Offer, request });
        return Promise.resolve(o.id === 11 ? taken(o.id) : { kind: 'created', instanceId: o.id * 10 });
      },
    },
    search: (request) => {
      searched.push(JSON.stringify(request.query));
      return Promise.resolve(offers);
    },
    progress: silentProgress(),
    ...over,
  };
  return { deps, ask, sent, searched };
}

describe('rent best match (core flow)', () => {
  it('automation confirms once, with what happens if the offer is taken; a fallback at another price declined sends nothing for it', async () => {
    const { deps, ask, sent } = bestKit([{ confirm: true }, { confirm: false }]);
    const end = await rentBestMatchFlow(deps, { query: 'gpu_name = "RTX 4090"' }, plan);
    assert.match(ask.asked[0]!.text, /^Rent .+ for \$[\d.]+\/h\?$/);
    assert.match(ask.asked[0]!.detail, / If it is taken first, tries up to 3 offers in this order: then /);
    assert.match(ask.asked[1]!.text, /^Rent .+ for \$[\d.]+\/h instead of \$[\d.]+\/h\?$/);
    assert.deepEqual(
      sent.map((s) => s.offer.id),
      [11],
      'nothing sent for the declined offer',
    );
    assert.equal(end?.instanceId, undefined);
  });

  it('through the wizard: the confirmation has a row for what happens if the offer is taken', async () => {
    const steps = scriptedSteps([
      { pick: 'ubuntu:22.04' },
      'accept',
      'accept',
      'accept',
      { pick: 'No start-up script' },
      { pick: 'Rent for' },
    ]);
    const { deps, ask } = bestKit([{ confirm: true }], {
      wizard: (o, credit, extra) =>
        rentWizard({ offer: o, credit, recentImages: [], defaultLabel: 'l', idleStopMinutes: 0, ...extra }, { steps, notify: () => {} }),
    });
    const end = await rentBestMatchFlow(deps, { query: '' }, undefined);
    assert.equal(steps.asked[0]!.title.endsWith('(offer 11)'), true, 'the wizard ran on the best offer');
    const row = steps.asked[5]!.rows!.find((r) => r.label.startsWith('$(sync)'));
    assert.equal(row?.label, '$(sync) If it is taken first, tries up to 3 offers in this order');
    assert.match(row?.description ?? '', /^then .+ \$[\d.]+\/h, .+ \$[\d.]+\/h; a different price is asked about before it is rented$/);
    assert.equal(ask.asked.length, 1, 'one question: the second offer’s price');
    assert.equal(end?.instanceId, 120, 'rented on the second offer');
  });

  it('asks which search when none is named: the current search first, then the saved ones', async () => {
    const saved = { name: 'cheap 4090', query: 'gpu_name = "RTX 4090"', sort: 'price' as const };
    const { deps, ask, searched } = bestKit([{ pick: 'cheap 4090' }, { confirm: true }, { confirm: true }], { savedSearches: [saved] });
    await rentBestMatchFlow(deps, undefined, plan);
    assert.equal(ask.asked[0]!.kind, 'pick');
    assert.deepEqual(ask.asked[0]!.options, ['$(search) Current search', '$(bookmark) cheap 4090']);
    assert.equal(searched.length, 1);
    assert.match(searched[0]!, /RTX 4090/, "the saved search's query is searched");
  });

  it('with no saved search, rents from the current search without asking which', async () => {
    const { deps, ask } = bestKit([{ confirm: true }, { confirm: true }]);
    await rentBestMatchFlow(deps, undefined, plan);
    assert.equal(ask.asked[0]!.kind, 'confirm');
  });

  it('a saved search that does not exist rents nothing and says so', async () => {
    const { deps, ask, sent } = bestKit([]);
    const end = await rentBestMatchFlow(deps, 'no such search 17', plan);
    assert.equal(end?.notice.severity, 'warning');
    assert.match(end!.notice.text, /no saved search named "no such search 17"/);
    assert.deepEqual(ask.asked, []);
    assert.equal(sent.length, 0);
  });

  it('no offer matching: nothing is asked, and it says so with a way to refresh', async () => {
    const { deps, ask } = bestKit([], { search: () => Promise.resolve([]) });
    const end = await rentBestMatchFlow(deps, { query: '' }, plan);
    assert.match(end!.notice.text, /^GPU Rental: no offer matches "" now, so nothing was rented\./);
    assert.equal(end?.notice.action?.run, 'refreshOffers');
    assert.deepEqual(ask.asked, []);
  });
});
