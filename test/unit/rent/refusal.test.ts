/**
 * A refused rent is "taken" only when the service's answer names the offer as gone. A template or
 * a volume that does not exist is told as that, by name, and Rent Best Match stops at it instead
 * of sending the same request to every other offer.
 */
import assert from 'node:assert/strict';
import type { CreateInstanceRequest } from '../../../src/core/api/instances';
import type { Offer } from '../../../src/core/api/offers';
import { failoverEnd, rentBestMatch, type FailoverInput } from '../../../src/core/rent/failover';
import { priceRent, rentEnd } from '../../../src/core/rent/flow';
import { rentOutcomeMessage } from '../../../src/core/rent/messages';
import type { RentPlan } from '../../../src/core/rent/plan';
import type { RentOutcome } from '../../../src/core/rent/renter';
import { clientFor, DEMO_KEY, mockedApi, startSimulator, type Marketplace } from '../../support';
import { accountAt, renterFor } from './kit';

const MISSING_TEMPLATE = 'f'.repeat(32);
const MISSING_VOLUME = 9_999_999;
const info = { description: 'RTX 4090 in NL', perHour: 0.5 };

function told(outcome: RentOutcome): string {
  assert.notEqual(outcome.kind, 'created');
  return rentOutcomeMessage(outcome as Exclude<RentOutcome, { kind: 'created' }>);
}

describe('a refused rent is "taken" only when the service says the offer is gone', () => {
  let sim: Marketplace;
  let pool: Offer[];
  let rivalKey: string;
  let n = 0;
  const client = () => clientFor(sim.url, DEMO_KEY, { maxAttempts: 1 }).client;
  const label = () => `refusal-${n++}`;

  /** The next `count` offers nobody rented yet, cheapest first, as a search lists them. */
  function fresh(count: number): Offer[] {
    assert.ok(pool.length >= count, 'the simulator has offers left for this test');
    return pool.splice(0, count);
  }

  /** Counts the creates (`PUT /api/v0/asks/{id}/`) the simulator receives from now on. */
  function countCreates(): () => number {
    const rule = sim.control.addFault({ kind: 'latency', ms: 0, method: 'PUT', path: '/api/v0/asks/', count: 0 });
    return () => sim.control.faults().find((r) => r.id === rule.id)?.fired ?? 0;
  }

  function failover(offers: Offer[], plan: RentPlan, over: Partial<FailoverInput> = {}): FailoverInput {
    return {
      renter: renterFor().renter,
      account: accountAt(sim.url),
      offers,
      limit: 3,
      plan,
      onstart: undefined,
      acceptedPerHour: priceRent(offers[0]!, plan.disk, undefined).quote.totalPerHour,
      credit: undefined,
      confirmPrice: async () => true,
      allowsSpend: async () => true,
      ...over,
    };
  }

  before(async () => {
    sim = await startSimulator();
    rivalKey = sim.control.addAccount({ email: 'rival@example.test', credit: 10_000 }).key;
    pool = await client().offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 40,
    });
  });
  afterEach(() => sim.control.clearFaults());
  after(() => sim.stop());

  it('a rent with a template that does not exist is refused naming the template, not reported as taken', async () => {
    const { renter } = renterFor();
    const outcome = await renter.rent(
      accountAt(sim.url),
      fresh(1)[0]!,
      { template_hash_id: MISSING_TEMPLATE, disk: 10, label: label() },
      info,
    );
    assert.equal(outcome.kind, 'refused');
    assert.deepEqual(outcome.kind === 'refused' && outcome.missing, { kind: 'template', hash: MISSING_TEMPLATE });
    const text = told(outcome);
    assert.match(text, new RegExp(`^not rented: the template ${MISSING_TEMPLATE} does not exist`));
    assert.match(text, /nothing is billed.*Pick another template/);
    assert.doesNotMatch(text, /taken|withdrawn/);
    const end = rentEnd(outcome, { disk: 10, label: 'x', template: MISSING_TEMPLATE }, priceRent(pool[0]!, 10, undefined).quote);
    assert.deepEqual(end.notice.action, { button: 'Search Templates', run: 'searchTemplates' }, 'not "Refresh Offers"');
    assert.equal(end.notice.severity, 'error');
  });

  it('a rent with a volume that does not exist is refused naming the volume, not reported as taken', async () => {
    const { renter } = renterFor();
    const outcome = await renter.rent(
      accountAt(sim.url),
      fresh(1)[0]!,
      {
        image: 'ubuntu:22.04',
        disk: 10,
        label: label(),
        volume_info: { create_new: false, volume_id: MISSING_VOLUME, mount_path: '/data' },
      },
      info,
    );
    assert.equal(outcome.kind, 'refused');
    assert.deepEqual(outcome.kind === 'refused' && outcome.missing, { kind: 'volume', volumeId: MISSING_VOLUME, newVolume: false });
    const text = told(outcome);
    assert.match(text, new RegExp(`^not rented: the volume ${MISSING_VOLUME} does not exist in this account`));
    assert.doesNotMatch(text, /taken|withdrawn/);
    const end = rentEnd(outcome, { disk: 10, label: 'x' }, priceRent(pool[0]!, 10, undefined).quote);
    assert.deepEqual(end.notice.action, { button: 'Show Volumes', run: 'showVolumes' }, 'not "Refresh Offers"');
  });

  it('a new volume whose storage offer is gone is refused naming it, though the answer says no_such_ask', async () => {
    const { renter } = renterFor();
    const outcome = await renter.rent(
      accountAt(sim.url),
      fresh(1)[0]!,
      {
        image: 'ubuntu:22.04',
        disk: 10,
        label: label(),
        volume_info: { create_new: true, volume_id: MISSING_VOLUME, size: 20, mount_path: '/data' },
      },
      info,
    );
    assert.equal(outcome.kind, 'refused', 'the GPU offer is not gone: the storage offer is');
    assert.deepEqual(outcome.kind === 'refused' && outcome.missing, { kind: 'volume', volumeId: MISSING_VOLUME, newVolume: true });
    assert.match(told(outcome), new RegExp(`^not rented: the storage offer ${MISSING_VOLUME} for the new volume is not available`));
  });

  it('Rent Best Match with a template that does not exist sends one create and stops with the template message, not "all taken"', async () => {
    const offers = fresh(3);
    const creates = countCreates();
    const plan: RentPlan = { template: MISSING_TEMPLATE, disk: 10, label: label() };
    const result = await rentBestMatch(failover(offers, plan));
    assert.equal(creates(), 1, 'exactly one create reached the service');
    assert.equal(result.kind, 'ended');
    assert.deepEqual(
      result.attempts.map((a) => [a.offerId, a.outcome]),
      [[offers[0]!.id, 'refused']],
    );
    const end = failoverEnd(result, plan)!;
    assert.match(end.notice.text, new RegExp(`^GPU Rental: not rented: the template ${MISSING_TEMPLATE} does not exist`));
    assert.match(end.notice.text, /Rent Best Match stopped here/);
    assert.doesNotMatch(end.notice.text, /taken/);
    assert.deepEqual(end.notice.action, { button: 'Search Templates', run: 'searchTemplates' });
  });

  it('Rent Best Match still moves on when the offer is truly taken, with a template that exists', async () => {
    const [template] = await client().templates.search();
    assert.ok(template?.hash_id, 'the simulator lists a template');
    const offers = fresh(3);
    const plan: RentPlan = { template: template.hash_id, disk: 10, label: label() };
    // Another account rents the first offer just before this account's create is sent.
    const kit = renterFor({
      createClient: (baseUrl, getKey) => {
        const c = clientFor(baseUrl, getKey(), { maxAttempts: 2 }).client;
        const create = c.instances.create.bind(c.instances);
        c.instances.create = async (offerId, request, ...rest) => {
          if (offerId === offers[0]!.id)
            await clientFor(sim.url, rivalKey, { maxAttempts: 1 }).client.instances.create(offerId, {
              image: 'ubuntu:22.04',
              disk: 10,
              label: 'rival',
            });
          return create(offerId, request, ...rest);
        };
        return c;
      },
    });
    const creates = countCreates();
    const result = await rentBestMatch(failover(offers, plan, { renter: kit.renter }));
    assert.deepEqual(
      result.attempts.map((a) => [a.offerId, a.outcome]),
      [
        [offers[0]!.id, 'unavailable'],
        [offers[1]!.id, 'created'],
      ],
    );
    // The rival's create and this account's two.
    assert.equal(creates(), 3);
    assert.match(failoverEnd(result, plan)!.notice.text, /^GPU Rental: rented .* The offer before it was taken first/);
  });
});

describe('what a refused rent is read as, from the service’s answer', () => {
  const BASE = 'https://api.example.test';
  const OFFER = 5;
  const withTemplate: Partial<CreateInstanceRequest> = { template_hash_id: 'abc123', image: undefined };
  const withVolume: Partial<CreateInstanceRequest> = { volume_info: { create_new: false, volume_id: 77, mount_path: '/data' } };
  const newVolume: Partial<CreateInstanceRequest> = { volume_info: { create_new: true, volume_id: 88, size: 20, mount_path: '/data' } };
  const cases: Array<[string, number, unknown, Partial<CreateInstanceRequest>, string]> = [
    [
      'the documented 404 for a gone offer is taken',
      404,
      {
        success: false,
        error: 'invalid_args',
        msg: `error 404/3603: no_such_ask Instance type by id ${OFFER} is not available.`,
        ask_id: OFFER,
      },
      {},
      'unavailable',
    ],
    [
      'the documented 410 no_such_ask is taken',
      410,
      { success: false, error: 'no_such_ask', msg: `error 410/3907: no_such_ask Instance type ${OFFER} is no longer available.` },
      {},
      'unavailable',
    ],
    ['a 200 with success:false and no_such_ask is taken', 200, { success: false, error: 'no_such_ask', msg: 'gone' }, {}, 'unavailable'],
    [
      'a gone offer is taken even when the rent names a template',
      404,
      { error: 'invalid_args', msg: 'no_such_ask Instance type by id 5 is not available.' },
      withTemplate,
      'unavailable',
    ],
    [
      'a 404 naming the template is the template',
      404,
      { success: false, error: 'invalid_args', msg: 'Template abc123 not found.' },
      withTemplate,
      'template',
    ],
    [
      'a no_such_template code is the template',
      404,
      { success: false, error: 'no_such_template', msg: 'Not found' },
      withTemplate,
      'template',
    ],
    [
      'a 400 calling the template invalid is the template',
      400,
      { success: false, error: 'invalid_args', msg: 'Invalid template hash.' },
      withTemplate,
      'template',
    ],
    [
      'no_such_volume is the volume',
      404,
      { success: false, error: 'no_such_volume', msg: 'Volume with that ID does not exist.' },
      withVolume,
      'volume',
    ],
    [
      'a no_such_ask naming the new volume’s storage offer is the volume',
      404,
      { error: 'invalid_args', msg: 'no_such_ask Instance type by id 88 is not available.' },
      newVolume,
      'volume',
    ],
    ['a 404 with an empty body is a refusal, not taken', 404, {}, withTemplate, 'refused'],
    ['a 404 with a plain "Not Found" is a refusal, not taken', 404, 'Not Found', {}, 'refused'],
    [
      'a 404 "not found" that names nothing is a refusal, not taken',
      404,
      { success: false, error: 'not_found', msg: 'Not found.' },
      withVolume,
      'refused',
    ],
    [
      'a template word in a refusal of a rent without one is a plain refusal',
      400,
      { error: 'invalid_args', msg: 'an image or a template_hash_id is required.' },
      {},
      'refused',
    ],
  ];
  for (const [name, status, body, extra, expected] of cases) {
    it(name, async () => {
      const api = mockedApi(BASE, 'k'.repeat(32));
      api.pool
        .intercept({ path: (p) => p.startsWith('/api/v1/instances/'), method: 'GET' })
        .reply(200, { instances: [], next_token: null });
      api.pool.intercept({ path: `/api/v0/asks/${OFFER}/`, method: 'PUT' }).reply(status, body as object);
      const { renter, storage } = renterFor({ createClient: () => api.client });
      const request = { image: 'ubuntu:22.04', disk: 10, label: 'gpu-rental-test', ...extra };
      const outcome = await renter.rent({ baseUrl: BASE, profileId: 'default', key: 'k'.repeat(32) }, { id: OFFER }, request, info);
      const read = outcome.kind === 'refused' && outcome.missing ? outcome.missing.kind : outcome.kind;
      assert.equal(read, expected);
      assert.deepEqual(storage.entries, [], 'a refusal is certain: nothing is left to check');
      if (expected === 'refused' && status === 404)
        assert.match(
          told(outcome),
          /^not rented: the service answered "not found" \(HTTP 404\) without saying whether the offer, the template or the volume is missing/,
        );
    });
  }

  it('a create with no readable answer stays uncertain, whatever the rent names', async () => {
    const api = mockedApi(BASE, 'k'.repeat(32));
    api.pool.intercept({ path: (p) => p.startsWith('/api/v1/instances/'), method: 'GET' }).reply(200, { instances: [], next_token: null });
    api.pool.intercept({ path: `/api/v0/asks/${OFFER}/`, method: 'PUT' }).reply(502, 'Bad Gateway');
    const { renter } = renterFor({ createClient: () => api.client, lookDelaysMs: [60_000] });
    const outcome = await renter.rent(
      { baseUrl: BASE, profileId: 'default', key: 'k'.repeat(32) },
      { id: OFFER },
      { template_hash_id: 'abc123', disk: 10, label: 'gpu-rental-lost' },
      info,
    );
    assert.equal(outcome.kind, 'uncertain');
    renter.dispose();
  });
});
