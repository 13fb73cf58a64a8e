import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../../src/core/api/errors';
import type { Offer } from '../../../src/core/api/offers';
import { priceRent } from '../../../src/core/rent/flow';
import {
  failoverCandidates,
  failoverEnd,
  failoverPreview,
  failoverPriceQuestion,
  failoverProgress,
  MAX_FAILOVER_ATTEMPTS,
  priceDiffers,
  rentBestMatch,
  type FailoverInput,
  type FailoverResult,
} from '../../../src/core/rent/failover';
import type { RentPlan } from '../../../src/core/rent/plan';
import { SETTINGS } from '../../../src/core/ids';
import { boundedNumber, NUMBER_RULES } from '../../../src/core/settings';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace } from '../../support';
import { accountAt, nextSettlement, renterFor } from './kit';

describe('failover rent (Rent Best Match)', () => {
  let sim: Marketplace;
  let pool: Offer[];
  /** The other renter's key: it takes offers from under this account's rents. */
  let rivalKey: string;
  const client = () => clientFor(sim.url, DEMO_KEY, { maxAttempts: 1 }).client;
  let n = 0;
  const label = () => `failover-${n++}`;
  const plan = (l = label()): RentPlan => ({ image: 'ubuntu:22.04', disk: 10, runtype: 'ssh_proxy', label: l });

  /** The next `count` offers nobody rented yet, cheapest first, as a search would list them. */
  function fresh(count: number): Offer[] {
    assert.ok(pool.length >= count, 'the simulator has offers left for this test');
    return pool.splice(0, count);
  }

  /** Three neighbours in the search whose second costs more than the first, taken from the pool. */
  function pricierSecond(): Offer[] {
    const total = (o: Offer) => priceRent(o, 10, undefined).quote.totalPerHour;
    const i = pool.findIndex((o, k) => k + 1 < pool.length && total(pool[k + 1]!) > total(o) + 0.001);
    assert.ok(i >= 0, 'two offers at different prices');
    return pool.splice(i, 3);
  }

  /** Another account rents the offer: it is gone before this account's rent lands. */
  async function take(offerId: number): Promise<void> {
    await clientFor(sim.url, rivalKey, { maxAttempts: 1 }).client.instances.create(offerId, {
      image: 'ubuntu:22.04',
      disk: 10,
      label: 'rival',
    });
  }

  /**
   * A renter whose client counts the creates in flight, and lets the rival take the offers in
   * `taken` just before each create is sent: "taken before the rent lands".
   */
  function watchedRenter(taken: ReadonlySet<number> = new Set(), options: { timeoutMs?: number } = {}) {
    const seen = { inFlight: 0, maxInFlight: 0, creates: [] as number[] };
    const kit = renterFor({
      timeoutMs: options.timeoutMs,
      createClient: (baseUrl, getKey) => {
        const c = clientFor(baseUrl, getKey(), { maxAttempts: 2, timeoutMs: options.timeoutMs ?? 5_000 }).client;
        const create = c.instances.create.bind(c.instances);
        c.instances.create = async (offerId, request, ...rest) => {
          seen.inFlight++;
          seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
          seen.creates.push(offerId);
          try {
            if (taken.has(offerId)) await take(offerId);
            return await create(offerId, request, ...rest);
          } finally {
            seen.inFlight--;
          }
        };
        return c;
      },
    });
    return { ...kit, seen };
  }

  function input(
    kit: ReturnType<typeof watchedRenter>,
    offers: Offer[],
    over: Partial<FailoverInput> = {},
  ): FailoverInput & { asked: number[] } {
    const asked: number[] = [];
    const p = over.plan ?? plan();
    return {
      renter: kit.renter,
      account: accountAt(sim.url),
      offers,
      limit: 3,
      plan: p,
      onstart: undefined,
      acceptedPerHour: priceRent(offers[0]!, p.disk, undefined).quote.totalPerHour,
      credit: undefined,
      confirmPrice: async (offer) => {
        asked.push(offer.id);
        return true;
      },
      allowsSpend: async () => true,
      ...over,
      asked,
    };
  }

  async function instancesLabelled(l: string) {
    return (await client().instances.list()).filter((i) => i.label === l);
  }

  before(async () => {
    sim = await startSimulator();
    rivalKey = sim.control.addAccount({ email: 'rival@example.test', credit: 10_000 }).key;
    pool = await client().offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 300,
    });
  });
  afterEach(() => sim.control.clearFaults());
  after(() => sim.stop());

  it('rents the best offer when it is still there: one create, no price question', async () => {
    const kit = watchedRenter();
    const offers = fresh(3);
    const args = input(kit, offers);
    const result = await rentBestMatch(args);
    assert.equal(result.kind, 'ended');
    assert.equal(result.kind === 'ended' && result.outcome.kind, 'created');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id]);
    assert.deepEqual(args.asked, []);
    const [made] = await instancesLabelled(args.plan.label);
    assert.equal(made?.id, result.kind === 'ended' && result.outcome.kind === 'created' ? result.outcome.instanceId : -1);
    const end = failoverEnd(result, args.plan)!;
    assert.match(end.notice.text, new RegExp(`^GPU Rental: rented "${args.plan.label}" as instance #${made!.id}`));
    assert.deepEqual(end.notice.action, { button: 'Open When Ready', run: 'connect', instanceId: made!.id });
    assert.doesNotMatch(end.notice.text, /taken/);
  });

  it('moves on when offers are taken before the rent lands, and rents the next one still there', async () => {
    const offers = fresh(4);
    const kit = watchedRenter(new Set([offers[0]!.id, offers[1]!.id]));
    const args = input(kit, offers);
    const steps: string[] = [];
    const result = await rentBestMatch({ ...args, onStep: (s) => steps.push(failoverProgress(s)) });
    assert.equal(result.kind, 'ended');
    assert.deepEqual(
      result.attempts.map((a) => [a.offerId, a.outcome]),
      [
        [offers[0]!.id, 'unavailable'],
        [offers[1]!.id, 'unavailable'],
        [offers[2]!.id, 'created'],
      ],
    );
    assert.deepEqual(kit.seen.creates, [offers[0]!.id, offers[1]!.id, offers[2]!.id]);
    const made = await instancesLabelled(args.plan.label);
    assert.equal(made.length, 1, 'one instance, on the third offer');
    assert.equal(made[0]!.machine_id, offers[2]!.machine_id);
    assert.deepEqual(kit.storage.entries, [], 'every attempt left the journal settled');
    // The price question came for each fallback whose total differs from the one accepted.
    const accepted = args.acceptedPerHour;
    assert.deepEqual(
      args.asked,
      offers
        .slice(1, 3)
        .filter((o) => priceDiffers(priceRent(o, 10, undefined).quote.totalPerHour, accepted))
        .map((o) => o.id),
    );
    assert.equal(steps.length, 3);
    assert.match(steps[1]!, /^offer 2 of 3: .+ \(.+ was taken\)$/);
    const end = failoverEnd(result, args.plan)!;
    assert.match(end.notice.text, /^GPU Rental: rented .* The 2 offers before it were taken first: .*\$[\d.]+\/h.*\$[\d.]+\/h/);
  });

  it('stops at its limit with nothing rented, and says so', async () => {
    const offers = fresh(5);
    const kit = watchedRenter(new Set(offers.map((o) => o.id)));
    const args = input(kit, offers, { limit: 3 });
    const result = await rentBestMatch(args);
    assert.equal(result.kind, 'allTaken');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id, offers[1]!.id, offers[2]!.id], 'the fourth and fifth are never tried');
    assert.equal((await instancesLabelled(args.plan.label)).length, 0);
    const end = failoverEnd(result, args.plan)!;
    assert.equal(end.instanceId, undefined);
    assert.equal(end.notice.severity, 'warning');
    assert.match(
      end.notice.text,
      /^GPU Rental: not rented: the 3 offers tried \(the limit, gpuRental\.rent\.failoverAttempts\) were taken/,
    );
    assert.match(end.notice.text, /Nothing was rented and nothing is billed/);
  });

  it('says every matching offer was taken when fewer than the limit match', async () => {
    const offers = fresh(2);
    const kit = watchedRenter(new Set(offers.map((o) => o.id)));
    const result = await rentBestMatch(input(kit, offers, { limit: 5 }));
    assert.equal(result.kind, 'allTaken');
    assert.match(failoverEnd(result, plan())!.notice.text, /every offer that matched \(2\) was taken/);
  });

  it('never holds two rents at once, whichever offers are taken and whatever the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 6 }),
        async (takenFlags, limit) => {
          const offers = fresh(takenFlags.length);
          const kit = watchedRenter(new Set(offers.filter((_, i) => takenFlags[i]).map((o) => o.id)));
          const args = input(kit, offers, { limit });
          const result = await rentBestMatch(args);
          assert.ok(kit.seen.maxInFlight <= 1, 'at most one create in flight');
          const firstFree = takenFlags.findIndex((t) => !t);
          const tries = Math.min(limit, offers.length);
          if (firstFree >= 0 && firstFree < tries) {
            assert.equal(result.kind, 'ended');
            assert.equal(kit.seen.creates.length, firstFree + 1);
            assert.equal((await instancesLabelled(args.plan.label)).length, 1);
          } else {
            assert.equal(result.kind, 'allTaken');
            assert.equal(kit.seen.creates.length, tries, 'stops at the limit');
            assert.equal((await instancesLabelled(args.plan.label)).length, 0);
          }
        },
      ),
      { numRuns: 12, seed: 17 },
    );
  });

  it('two failovers started together on one renter still send one create at a time', async () => {
    const offers = fresh(6);
    const kit = watchedRenter(new Set(offers.map((o) => o.id)));
    const [a, b] = await Promise.all([rentBestMatch(input(kit, offers.slice(0, 3))), rentBestMatch(input(kit, offers.slice(3, 6)))]);
    assert.equal(kit.seen.maxInFlight, 1);
    const kinds = [a, b].map((r) => (r.kind === 'ended' ? r.outcome.kind : r.kind)).sort();
    assert.deepEqual(kinds, ['allTaken', 'busy'], 'the second meets the first in flight and stops');
  });

  it('refuses to start while the renter is busy with another rent', async () => {
    const kit = watchedRenter();
    const [busyWith, ...offers] = fresh(3);
    sim.control.addFault({ kind: 'latency', ms: 400, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    const other = kit.renter.rent(
      accountAt(sim.url),
      busyWith!,
      { image: 'ubuntu:22.04', disk: 10, label: label() },
      {
        description: 'other',
        perHour: 0.1,
      },
    );
    assert.ok(kit.renter.busy);
    const result = await rentBestMatch(input(kit, offers));
    assert.deepEqual(result, { kind: 'busy', attempts: [] });
    assert.match(failoverEnd(result, plan())!.notice.text, /already on its way/);
    assert.equal((await other).kind, 'created');
    assert.deepEqual(kit.seen.creates, [busyWith!.id], 'the failover sent nothing');
  });

  it('a create whose answer times out is uncertain: it stops there, and no second create is sent', async () => {
    const offers = fresh(3);
    const kit = watchedRenter(new Set(), { timeoutMs: 300 });
    const args = input(kit, offers);
    sim.control.addFault({ kind: 'latency', ms: 1_000, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    const settled = nextSettlement(kit.renter);
    const result = await rentBestMatch(args);
    assert.equal(result.kind === 'ended' && result.outcome.kind, 'uncertain');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id]);
    const end = failoverEnd(result, args.plan)!;
    assert.match(end.notice.text, /not confirmed.*Rent Best Match stopped here: no other offer is tried/s);
    assert.deepEqual(end.followUps, [{ kind: 'showPendingRents' }]);
    const s = await settled;
    assert.equal(s.kind, 'found', 'the service made it after all, and the check found it');
    assert.equal((await instancesLabelled(args.plan.label)).length, 1, 'exactly one instance');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id], 'still one create');
  });

  it('a refused rent is not "taken": it stops there', async () => {
    const offers = fresh(3);
    const kit = watchedRenter();
    const big: RentPlan = { ...plan(), disk: 100_000 };
    const result = await rentBestMatch(input(kit, offers, { plan: big }));
    assert.equal(result.kind === 'ended' && result.outcome.kind, 'refused');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id]);
  });

  it('a fallback at another price is asked about first; declined, nothing is sent for it', async () => {
    const offers = pricierSecond();
    const kit = watchedRenter(new Set([offers[0]!.id]));
    const questions: Array<{ id: number; perHour: number; accepted: number }> = [];
    const args = input(kit, offers, {
      confirmPrice: async (offer, priced, accepted) => {
        questions.push({ id: offer.id, perHour: priced.quote.totalPerHour, accepted });
        return false;
      },
    });
    const result = await rentBestMatch(args);
    assert.equal(result.kind, 'declined');
    assert.deepEqual(
      questions.map((q) => q.id),
      [offers[1]!.id],
    );
    assert.ok(questions[0]!.perHour > questions[0]!.accepted, 'the fallback costs more than what was accepted');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id], 'nothing sent for the declined offer');
    assert.equal((await instancesLabelled(args.plan.label)).length, 0);
    assert.deepEqual(
      result.attempts.map((a) => a.outcome),
      ['unavailable', 'declined'],
    );
    assert.match(
      failoverEnd(result, args.plan)!.notice.text,
      /^GPU Rental: not rented: .* costs \$[\d.]+\/h, not the \$[\d.]+\/h you accepted, and you declined it\. The offer before it was taken first/,
    );
  });

  it('the spend cap is checked for every attempt, and a refusal stops it with nothing sent', async () => {
    const offers = fresh(3);
    const kit = watchedRenter(new Set([offers[0]!.id]));
    const checked: Array<[number, string]> = [];
    const result = await rentBestMatch(
      input(kit, offers, {
        allowsSpend: async (perHour, reason) => {
          checked.push([perHour, reason]);
          return checked.length < 2;
        },
      }),
    );
    assert.equal(result.kind, 'capped');
    assert.equal(checked.length, 2);
    assert.match(checked[1]![1], /^rented: .* costs \$[\d.]+\/h$/);
    assert.deepEqual(kit.seen.creates, [offers[0]!.id]);
    assert.equal(failoverEnd(result, plan()), undefined, 'the spend check has told the user');
  });

  it('credit that cannot cover an hour of a fallback stops it as a normal rent would', async () => {
    const offers = pricierSecond();
    const kit = watchedRenter(new Set([offers[0]!.id]));
    const [first, second] = offers.map((o) => priceRent(o, 10, undefined).quote.totalPerHour) as [number, number];
    // Enough for an hour of the first, not of the second.
    const result = await rentBestMatch(input(kit, offers, { credit: (first + second) / 2, confirmPrice: async () => true }));
    assert.equal(result.kind, 'unaffordable');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id], 'nothing sent for the offer the credit cannot cover');
    assert.match(failoverEnd(result, plan())!.notice.text, /^GPU Rental: not rented\. This machine costs .* not enough for one hour/);
  });

  it('a cancel between attempts stops before the next create', async () => {
    const offers = fresh(3);
    const kit = watchedRenter(new Set(offers.map((o) => o.id)));
    const controller = new AbortController();
    const result = await rentBestMatch(
      input(kit, offers, {
        signal: controller.signal,
        onStep: (s) => {
          if (s.attempt === 2) controller.abort();
        },
      }),
    );
    assert.equal(result.kind, 'cancelled');
    assert.deepEqual(kit.seen.creates, [offers[0]!.id]);
    assert.match(failoverEnd(result, plan())!.notice.text, /cancelled after 1 offer was taken\. Nothing was rented/);
  });
});

describe('failover candidates and words', () => {
  const offer = (id: number, o: Partial<Offer> = {}): Offer =>
    ({ id, machine_id: id * 10, dph_total: 0.5, disk_space: 100, direct_port_count: 4, gpu_name: 'RTX 4090', num_gpus: 1, ...o }) as Offer;
  const base: RentPlan = { image: 'ubuntu:22.04', disk: 50, label: 'x' };

  it('keeps the search order, and drops duplicates and offers the plan cannot go to', () => {
    const offers = [offer(1), offer(2, { disk_space: 20 }), offer(3), offer(1), offer(4, { direct_port_count: 0 })];
    assert.deepEqual(
      failoverCandidates(offers, base).map((o) => o.id),
      [1, 3, 4],
    );
    assert.deepEqual(
      failoverCandidates(offers, { ...base, runtype: 'ssh_direct' }).map((o) => o.id),
      [1, 3],
      'direct SSH needs direct ports',
    );
  });

  it('an interruptible plan goes only to offers whose minimum bid its bid meets', () => {
    const offers = [offer(1, { min_bid: 0.1 }), offer(2, { min_bid: 0.3 }), offer(3, { min_bid: 0.2 }), offer(4, { min_bid: null })];
    assert.deepEqual(
      failoverCandidates(offers, { ...base, bid: 0.2 }).map((o) => o.id),
      [1, 3, 4],
    );
  });

  it('a bid is priced at the bid for every offer: the same GPU price, no question for it', async () => {
    const asked: number[] = [];
    const sent: Array<{ id: number; price: unknown }> = [];
    const result = await rentBestMatch({
      renter: {
        busy: false,
        rent: (_account, o, request) => {
          sent.push({ id: o.id, price: (request as { price?: unknown }).price });
          return Promise.resolve(
            o.id === 1
              ? {
                  kind: 'unavailable',
                  error: new ApiError({ kind: 'not_found', action: 'rent', method: 'PUT', path: '/api/v0/asks/1/', status: 404 }),
                }
              : { kind: 'created', instanceId: 9 },
          );
        },
      },
      account: { baseUrl: 'http://x', profileId: 'p', key: 'k' },
      offers: [offer(1, { min_bid: 0.1, dph_total: 0.2, storage_cost: 0 }), offer(2, { min_bid: 0.1, dph_total: 0.9, storage_cost: 0 })],
      limit: 3,
      plan: { ...base, bid: 0.15 },
      onstart: undefined,
      acceptedPerHour: 0.15,
      credit: undefined,
      bidSearch: true,
      confirmPrice: (o) => (asked.push(o.id), Promise.resolve(true)),
      allowsSpend: () => Promise.resolve(true),
    });
    assert.equal(result.kind === 'ended' && result.outcome.kind, 'created');
    assert.deepEqual(sent, [
      { id: 1, price: 0.15 },
      { id: 2, price: 0.15 },
    ]);
    assert.deepEqual(asked, [], 'the bid the user accepted is the price on both');
  });

  it('a plan with a volume stays on the first offer’s machine', () => {
    const offers = [offer(1), offer(2), offer(3, { machine_id: 10 })];
    const withVolume: RentPlan = { ...base, volume: { volume_id: 7, mount_path: '/data' } as RentPlan['volume'] };
    assert.deepEqual(
      failoverCandidates(offers, withVolume).map((o) => o.id),
      [1, 3],
    );
  });

  it('the preview says how many offers may be tried, and which, before anything is sent', () => {
    const p = failoverPreview([offer(1), offer(2), offer(3), offer(4)], 3);
    assert.equal(p.title, 'If it is taken first, tries up to 3 offers in this order');
    assert.match(p.detail, /^then .+ \$0\.500\/h, .+ \$0\.500\/h; a different price is asked about before it is rented$/);
    assert.match(failoverPreview([offer(1), offer(2)], 1).detail, /nothing is rented \(gpuRental\.rent\.failoverAttempts is 1\)/);
  });

  it('the price question names the new and the accepted price, and the offers taken', () => {
    const priced = priceRent(offer(2, { dph_total: 0.8, dph_base: 0.8, storage_cost: 0 }), 50, undefined);
    const q = failoverPriceQuestion(priced, 0.5, [{ offerId: 1, description: 'RTX 4090 in NL', perHour: 0.5, outcome: 'unavailable' }]);
    assert.match(q.title, /^Rent .+ for \$0\.800\/h instead of \$0\.500\/h\?$/);
    assert.match(q.detail, /^RTX 4090 in NL was taken before the rent landed\. .*Nothing is rented unless you choose Rent\.$/);
  });

  it('the attempts setting is bounded as the failover bounds it', () => {
    const rule = NUMBER_RULES[SETTINGS.rentFailoverAttempts];
    assert.equal(rule.max, MAX_FAILOVER_ATTEMPTS);
    assert.equal(boundedNumber(0, rule), 3, 'no attempt at all is not a setting: the default');
    assert.equal(boundedNumber(50, rule), 10);
  });

  it('no offers: nothing is tried', async () => {
    const result: FailoverResult = await rentBestMatch({
      renter: { busy: false, rent: () => Promise.reject(new Error('must not be called')) },
      account: { baseUrl: 'http://x', profileId: 'p', key: 'k' },
      offers: [],
      limit: 3,
      plan: base,
      onstart: undefined,
      acceptedPerHour: 1,
      credit: undefined,
      confirmPrice: () => Promise.resolve(true),
      allowsSpend: () => Promise.resolve(true),
    });
    assert.deepEqual(result, { kind: 'noOffers', attempts: [] });
  });
});
