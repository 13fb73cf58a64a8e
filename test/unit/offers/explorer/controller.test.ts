import assert from 'node:assert/strict';
import type { Offer, SearchOffersRequest } from '../../../../src/core/api/offers';
import { ExplorerController, type ClusterRentRequest, type ExplorerPort } from '../../../../src/core/offers/explorer/controller';
import type { ExtensionMessage } from '../../../../src/core/offers/explorer/protocol';
import { decodeOffers } from '../../../../src/core/offers/explorer/transfer';
import { DEFAULT_SEARCH, type OfferSearchState } from '../../../../src/core/offers/search';
import { MemoryLogger, priceableOffer } from '../../../support';

/** A port over a search the test answers; records what is posted, rented, copied and searched. */
function fakePort(answer: (request: SearchOffersRequest) => Promise<Offer[]> = () => Promise.resolve([priceableOffer({ id: 11 })])) {
  const posted: ExtensionMessage[] = [];
  const rented: Array<Offer | number> = [];
  const clusterRents: ClusterRentRequest[] = [];
  const copied: string[] = [];
  const requests: SearchOffersRequest[] = [];
  let search: OfferSearchState = { ...DEFAULT_SEARCH };
  let layout: unknown;
  const port: ExplorerPort = {
    post: (m) => posted.push(m),
    isOpen: () => true,
    signedIn: () => true,
    search: () => search,
    setSearch: async (next) => {
      search = { ...search, pages: 1, ...next };
      await controller.searchChanged(search);
    },
    searchOffers: (request) => (requests.push(request), answer(request)),
    rent: (offer) => (rented.push(offer), Promise.resolve(99)),
    rentCluster: (request) => (clusterRents.push(request), Promise.resolve([201, 202])),
    copyText: (text) => (copied.push(text), Promise.resolve()),
    layout: { get: () => layout, set: (next) => ((layout = next), Promise.resolve()) },
    logger: new MemoryLogger(),
  };
  const controller = new ExplorerController(port);
  return { controller, posted, rented, clusterRents, copied, requests, search: () => search, logger: port.logger as MemoryLogger };
}

const types = (posted: readonly ExtensionMessage[]) => posted.map((m) => m.type);

describe('offers: the Offer Explorer controller', () => {
  it('on ready: sends the column layout, then the offers of the view’s search', async () => {
    const { controller, posted } = fakePort();
    await controller.receive({ type: 'ready' });
    assert.deepEqual(types(posted), ['layout', 'loading', 'offers']);
    assert.deepEqual(
      controller.snapshot().shown.map((o) => o.id),
      [11],
    );
    assert.equal(controller.snapshot().readyCount, 1);
  });

  it('ignores (and logs the type of) a message the webview should not send', async () => {
    const { controller, posted, logger } = fakePort();
    await controller.receive({ type: 'runShell', command: 'rm -rf /' });
    assert.deepEqual(posted, []);
    assert.match(logger.lines.join('\n'), /ignored a message the webview should not send \(type "runShell"\)/);
    assert.doesNotMatch(logger.lines.join('\n'), /rm -rf/);
  });

  it('a rent of a listed offer passes the offer; once rented, it searches again', async () => {
    const { controller, rented, requests } = fakePort();
    await controller.receive({ type: 'ready' });
    await controller.receive({ type: 'rent', offerId: 11 });
    assert.equal((rented[0] as Offer).id, 11);
    await controller.receive({ type: 'rent', offerId: 12 });
    assert.equal(rented[1], 12, 'an id it never listed goes to the rent command as it is');
    assert.equal(requests.length, 3);
  });

  it('Rent Cluster… hands the command a cluster of the last results with its offers, then searches again', async () => {
    const listed = [priceableOffer({ id: 11, cluster_id: 4812 }), priceableOffer({ id: 12, cluster_id: 4812 }), priceableOffer({ id: 13 })];
    const { controller, clusterRents, requests } = fakePort(() => Promise.resolve(listed));
    await controller.receive({ type: 'ready' });
    await controller.receive({ type: 'rentCluster', clusterId: 4812, offerIds: [12, 11] });
    assert.deepEqual(clusterRents, [{ clusterId: 4812, offerIds: [12, 11] }]);
    assert.equal(requests.length, 2, 'the rented nodes are no longer on offer: the table searches again');
  });

  it('Rent Cluster… refuses a cluster or an offer the last results do not hold, says so, and shows the results again', async () => {
    const listed = [priceableOffer({ id: 11, cluster_id: 4812 }), priceableOffer({ id: 13, cluster_id: 77 }), priceableOffer({ id: 14 })];
    const { controller, clusterRents, posted, logger } = fakePort(() => Promise.resolve(listed));
    await controller.receive({ type: 'ready' });
    for (const offerIds of [
      [11, 13],
      [11, 14],
      [11, 99],
    ])
      await controller.receive({ type: 'rentCluster', clusterId: 4812, offerIds });
    await controller.receive({ type: 'rentCluster', clusterId: 5000, offerIds: [11] });
    assert.deepEqual(clusterRents, [], 'nothing reaches the rent command');
    const notices = posted.filter((m) => m.type === 'notice');
    assert.equal(notices.length, 4);
    assert.match(JSON.stringify(notices[0]), /GPU Rental: the offers of cluster 4812 changed since they were shown/);
    assert.equal(types(posted).filter((t) => t === 'offers').length, 5, 'each refusal shows the results the extension has');
    assert.match(logger.lines.join('\n'), /refused Rent Cluster for cluster 5000/);
  });

  it("a cluster's offers narrows the view's query to that cluster, and the panel follows", async () => {
    const { controller, search } = fakePort();
    await controller.receive({ type: 'ready' });
    await controller.receive({ type: 'clusterOffers', clusterId: 4812 });
    assert.match(search().query, /cluster_id=4812/);
  });

  it('copies only the offer id, and says so', async () => {
    const { controller, copied, posted } = fakePort();
    await controller.receive({ type: 'copyId', offerId: 11 });
    assert.deepEqual(copied, ['11']);
    assert.deepEqual(posted, [{ type: 'notice', text: 'Copied offer ID 11' }]);
  });

  it("machine offers narrows the view's query to that machine, and the panel follows", async () => {
    const { controller, search, posted } = fakePort();
    await controller.receive({ type: 'ready' });
    await controller.receive({ type: 'machineOffers', machineId: 42 });
    assert.match(search().query, /machine_id=42/);
    assert.equal(types(posted).filter((t) => t === 'offers').length, 2);
  });

  it('a failed search says what failed and what to do, keeping the query', async () => {
    const { controller, posted } = fakePort(() => Promise.reject(new Error('the service is down')));
    await controller.receive({ type: 'ready' });
    assert.deepEqual(posted.at(-1), {
      type: 'error',
      query: '',
      message: 'GPU Rental: the search failed: the service is down. Change the query or try again.',
    });
    assert.equal(controller.snapshot().error, 'GPU Rental: the search failed: the service is down. Change the query or try again.');
  });

  it('shows only the newest search when an older answer comes in late', async () => {
    let release: (offers: Offer[]) => void = () => undefined;
    const slow = new Promise<Offer[]>((resolve) => (release = resolve));
    let calls = 0;
    const { controller } = fakePort(() => (++calls === 1 ? slow : Promise.resolve([priceableOffer({ id: 2 })])));
    const first = controller.receive({ type: 'ready' });
    await controller.receive({ type: 'setQuery', query: 'num_gpus=2' });
    release([priceableOffer({ id: 1 })]);
    await first;
    assert.deepEqual(
      controller.snapshot().shown.map((o) => o.id),
      [2],
    );
    assert.equal(controller.snapshot().query, 'num_gpus=2');
  });

  it('sends the page only the fields it needs, column by column, and a whole offer when the page asks for it', async () => {
    const full = priceableOffer({ id: 11, host_id: 7, cpu_name: 'EPYC 7B13', total_flops: 82.6, geolocation: 'Ohio, US' });
    const { controller, posted } = fakePort(() => Promise.resolve([full]));
    const before = Date.now();
    await controller.receive({ type: 'ready' });
    const sent = posted.find((m) => m.type === 'offers');
    assert.ok(sent?.type === 'offers');
    assert.ok(sent.sentAt >= before && sent.sentAt <= Date.now(), 'stamped when sent');
    const [row] = decodeOffers(sent.offers);
    assert.equal(row?.geolocation, 'Ohio, US');
    assert.equal(row?.dph_total, 0.5);
    for (const field of ['host_id', 'cpu_name', 'total_flops', 'storage_cost', 'dph_base'])
      assert.ok(!(field in sent.offers.columns), field);

    await controller.receive({ type: 'offerDetails', offerId: 11 });
    assert.deepEqual(posted.at(-1), { type: 'offerDetails', offer: full });
    const count = posted.length;
    await controller.receive({ type: 'offerDetails', offerId: 12 });
    assert.equal(posted.length, count, 'an offer not among the results is not answered');
  });

  it('sends the offers again when a column shown needs a field the page lacks, and only then', async () => {
    const { controller, posted } = fakePort(() => Promise.resolve([priceableOffer({ id: 11, total_flops: 82.6 })]));
    await controller.receive({ type: 'ready' });
    const offers = () => posted.filter((m) => m.type === 'offers');
    await controller.receive({ type: 'layout', layout: { visible: ['gpu', 'price'] } });
    assert.equal(offers().length, 1, 'fewer columns need nothing new');
    await controller.receive({ type: 'layout', layout: { visible: ['gpu', 'price', 'tflops'] } });
    assert.equal(offers().length, 2);
    const again = offers()[1]!;
    assert.ok(again.type === 'offers');
    assert.equal(decodeOffers(again.offers)[0]?.total_flops, 82.6);
  });
});
