// The rent of an outbid move: which offers are like the outbid instance, at what bid, in what
// order, and the failover over taken ones through the Renter (one create at a time).
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/api/errors';
import type { CreateInstanceRequest, Instance } from '../../../src/core/api/instances';
import type { Offer, SearchOffersRequest } from '../../../src/core/api/offers';
import { moveBid, moveCandidates, outbidRenter, type OutbidRentDeps } from '../../../src/core/rent/outbidRent';
import type { RentOutcome } from '../../../src/core/rent/renter';
import { MemoryLogger, priceableOffer } from '../../support';

const OLD: Instance = {
  id: 123,
  label: 'train',
  actual_status: 'stopped',
  is_bid: true,
  dph_base: 0.3,
  min_bid: 0.4,
  num_gpus: 1,
  gpu_name: 'RTX 4090',
  gpu_ram: 24564,
  disk_space: 16,
  machine_id: 7,
  image_uuid: 'pytorch/pytorch:latest',
  image_runtype: 'ssh_proxy',
  onstart: 'bash ~/.gpu-rental/resume-all',
};

const offer = (id: number, fields: Record<string, unknown> = {}): Offer =>
  priceableOffer({ id, machine_id: 100 + id, disk_space: 100, rentable: true, ...fields });
const taken = () =>
  new ApiError({ kind: 'bad_request', action: 'rent', method: 'PUT', path: '/api/v0/asks/1/', status: 400, code: 'no_such_ask' });

function harness(bids: Offer[], onDemand: Offer[], outcomes: RentOutcome[]) {
  const sent: Array<{ offerId: number; request: CreateInstanceRequest & { label: string } }> = [];
  const searches: SearchOffersRequest[] = [];
  const deps: OutbidRentDeps = {
    renter: {
      busy: false,
      uniqueLabel: () => 'gpu-rental-x',
      rent: (_account, o, request) => {
        sent.push({ offerId: o.id, request });
        return Promise.resolve(outcomes.shift() ?? { kind: 'created', instanceId: 900 + o.id });
      },
    },
    account: () => ({ baseUrl: 'http://sim', profileId: 'default', key: 'k' }),
    search: (request) => {
      searches.push(request);
      return Promise.resolve(request.query.type === 'bid' ? bids : onDemand);
    },
    credit: () => Promise.resolve(100),
    allowsSpend: () => Promise.resolve(true),
    logger: new MemoryLogger(),
  };
  return { port: outbidRenter(deps), sent, searches };
}

const io = () => ({ report: () => undefined, signal: new AbortController().signal });

describe('rent: renting an outbid instance elsewhere', () => {
  it('bids the old bid when it beats the minimum, else just over the minimum, never over the ceiling', () => {
    assert.equal(moveBid(offer(1, { min_bid: 0.2 }), 0.3, 1), 0.3);
    assert.equal(moveBid(offer(1, { min_bid: 0.4 }), 0.3, 1), 0.42);
    assert.equal(moveBid(offer(1, { min_bid: 0.4 }), 0.3, 0.41), 0.41);
    assert.equal(moveBid(offer(1, { min_bid: 0.5 }), 0.3, 0.45), undefined);
  });

  it('keeps offers like the old one on other machines: interruptible within the ceiling first, then on demand', () => {
    const bids = [
      offer(1, { min_bid: 0.35 }),
      offer(2, { min_bid: 0.1 }),
      offer(3, { min_bid: 0.9 }), // over the ceiling
      offer(4, { min_bid: 0.1, machine_id: 7 }), // the old machine
      offer(5, { min_bid: 0.1, gpu_name: 'RTX 3090' }),
      offer(6, { min_bid: 0.1, gpu_ram: 12000 }),
      offer(7, { min_bid: 0.1, disk_space: 8 }),
    ];
    const onDemand = [offer(10, { dph_base: 0.45 }), offer(11, { dph_base: 0.7 }), offer(12, { dph_base: 0.42 })];
    const c = moveCandidates(OLD, 0.5, bids, onDemand);
    assert.deepEqual(
      c.map((x) => [x.offer.id, x.bid]),
      [
        [2, 0.3],
        [1, 0.368],
        [12, undefined],
        [10, undefined],
      ],
    );
  });

  it('nothing fits: nothing is sent', async () => {
    const h = harness([offer(1, { min_bid: 2 })], [offer(2, { dph_base: 3 })], []);
    assert.deepEqual(await h.port.rentLike(OLD, 0.5, io()), { kind: 'nothingFits' });
    assert.deepEqual(h.sent, []);
    assert.deepEqual(h.searches[0]!.query.filters['machine_id'], { neq: 7 });
    assert.equal(h.searches[0]!.allocatedStorage, 16);
  });

  it('a taken offer moves on to the next, one create at a time, with the old image, disk, label and start-up script', async () => {
    const h = harness([offer(1, { min_bid: 0.1 }), offer(2, { min_bid: 0.2 })], [], [{ kind: 'unavailable', error: taken() }]);
    const rented = await h.port.rentLike(OLD, 0.5, io());
    assert.deepEqual(rented, {
      kind: 'rented',
      instanceId: 902,
      description: rented.kind === 'rented' ? rented.description : '',
      perHour: rented.kind === 'rented' ? rented.perHour : 0,
      bid: 0.3,
    });
    assert.deepEqual(
      h.sent.map((s) => s.offerId),
      [1, 2],
    );
    const request = h.sent[1]!.request;
    assert.deepEqual(
      [request.image, request.disk, request.label, request.onstart, request.price, request.runtype],
      ['pytorch/pytorch:latest', 16, 'train', 'bash ~/.gpu-rental/resume-all', 0.3, 'ssh_proxy'],
    );
  });

  it('a refusal stops the failover and is said; every offer taken is said', async () => {
    const refused = new ApiError({
      kind: 'bad_request',
      action: 'rent',
      method: 'PUT',
      path: '/x',
      status: 400,
      serverMessage: 'image not allowed',
    });
    const h = harness([offer(1, { min_bid: 0.1 }), offer(2, { min_bid: 0.2 })], [], [{ kind: 'refused', error: refused }]);
    const r = await h.port.rentLike(OLD, 0.5, io());
    assert.equal(r.kind, 'notRented');
    assert.equal(h.sent.length, 1);
    const all = harness([offer(1, { min_bid: 0.1 })], [], [{ kind: 'unavailable', error: taken() }]);
    const t = await all.port.rentLike(OLD, 0.5, io());
    assert.ok(t.kind === 'notRented' && /every offer that fit was taken/.test(t.reason));
  });
});
