import assert from 'node:assert/strict';
import {
  EXPLORER_MAX_PAGES,
  MAX_CLUSTER_OFFERS,
  MAX_QUERY_LENGTH,
  nextPages,
  readWebviewMessage,
} from '../../../../src/core/offers/explorer/protocol';

describe('offer explorer messages', () => {
  it('accepts each message the webview sends, in its exact shape', () => {
    assert.deepEqual(readWebviewMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(readWebviewMessage({ type: 'setQuery', query: 'num_gpus>=2' }), { type: 'setQuery', query: 'num_gpus>=2' });
    assert.deepEqual(readWebviewMessage({ type: 'rent', offerId: 42, extra: 'dropped' }), { type: 'rent', offerId: 42 });
    assert.deepEqual(readWebviewMessage({ type: 'copyId', offerId: 7 }), { type: 'copyId', offerId: 7 });
    assert.deepEqual(readWebviewMessage({ type: 'machineOffers', machineId: 9 }), { type: 'machineOffers', machineId: 9 });
    assert.deepEqual(readWebviewMessage({ type: 'timing', name: 'sort', ms: 3.2, rows: 10_000 }), {
      type: 'timing',
      name: 'sort',
      ms: 3.2,
      rows: 10_000,
    });
    assert.deepEqual(readWebviewMessage({ type: 'layout', layout: { visible: ['price', 'x'] } }), {
      type: 'layout',
      layout: { visible: ['gpu', 'price'], widths: {} },
    });
  });

  it('refuses anything else: unknown types, ids that are not positive integers, text that could reach the clipboard', () => {
    for (const bad of [
      null,
      'ready',
      [],
      { type: 'exec', command: 'rm -rf /' },
      { type: 'copyId', offerId: '7; rm -rf /' },
      { type: 'copyId', offerId: 1.5 },
      { type: 'rent', offerId: -3 },
      { type: 'rent' },
      { type: 'machineOffers', machineId: Number.MAX_SAFE_INTEGER + 2 },
      { type: 'setQuery', query: 42 },
      { type: 'setQuery', query: 'x'.repeat(MAX_QUERY_LENGTH + 1) },
      { type: 'timing', name: 'render', ms: -1, rows: 1 },
      { type: 'timing', name: 'paint', ms: 1, rows: 1 },
      { type: 'layout', layout: 'all' },
    ]) {
      assert.equal(readWebviewMessage(bad), undefined, JSON.stringify(bad));
    }
  });

  it("accepts Rent Cluster… and a cluster's offers with positive integer ids only, each offer once", () => {
    assert.deepEqual(readWebviewMessage({ type: 'rentCluster', clusterId: 4812, offerIds: [1, 2, 2, 3], extra: true }), {
      type: 'rentCluster',
      clusterId: 4812,
      offerIds: [1, 2, 3],
    });
    assert.deepEqual(readWebviewMessage({ type: 'clusterOffers', clusterId: 4812 }), { type: 'clusterOffers', clusterId: 4812 });
    for (const bad of [
      { type: 'rentCluster', clusterId: 4812 },
      { type: 'rentCluster', clusterId: 4812, offerIds: [] },
      { type: 'rentCluster', clusterId: 4812, offerIds: [1, '2'] },
      { type: 'rentCluster', clusterId: 4812, offerIds: '1,2' },
      { type: 'rentCluster', clusterId: 0, offerIds: [1] },
      { type: 'rentCluster', clusterId: 4812, offerIds: Array.from({ length: MAX_CLUSTER_OFFERS + 1 }, (_, i) => i + 1) },
      { type: 'clusterOffers', clusterId: '4812' },
    ]) {
      assert.equal(readWebviewMessage(bad), undefined, JSON.stringify(bad).slice(0, 80));
    }
  });

  it('loads more up to its page limit', () => {
    assert.equal(nextPages(1), 2);
    assert.equal(nextPages(EXPLORER_MAX_PAGES), undefined);
  });
});
