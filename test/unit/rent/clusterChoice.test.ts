import assert from 'node:assert/strict';
import type { Offer } from '../../../src/core/api/offers';
import { pickCluster, rentableClusters } from '../../../src/core/rent/clusterChoice';
import { scriptedAsk } from '../../support/scriptedAsk';
import { node } from './clusterKit';

/** A node offer of cluster `clusterId`. */
function inCluster(clusterId: number | null, id: number, machine: number, gpuPerHour: number, gpu?: string): Offer {
  return { ...node(id, machine, gpuPerHour, gpu), cluster_id: clusterId };
}

describe('rent cluster: which cluster, from the palette', () => {
  const offers = [
    inCluster(7, 1, 70, 2.5),
    inCluster(7, 2, 71, 2.4),
    inCluster(7, 3, 72, 2.6),
    inCluster(9, 4, 90, 1.1),
    inCluster(9, 5, 91, 1.0),
    // one machine of its model, twice listed: no cluster of two
    inCluster(11, 6, 110, 3.0),
    inCluster(11, 7, 110, 2.9),
    inCluster(null, 8, 120, 0.5),
  ];

  it('offers only clusters with two machines of one model, the most machines first', () => {
    assert.deepEqual(
      rentableClusters(offers).map((c) => [c.clusterId, c.offers.map((o) => o.id)]),
      [
        [7, [1, 2, 3]],
        [9, [4, 5]],
      ],
    );
  });

  it('asks which, naming each by its machines, model and cheapest price, and hands on its offers', async () => {
    const ask = scriptedAsk([{ pick: 'Cluster 9' }]);
    const picked = await pickCluster(ask, offers);
    assert.deepEqual(picked && 'clusterId' in picked ? picked.clusterId : picked, 9);
    assert.deepEqual(ask.asked[0]?.options, ['Cluster 7', 'Cluster 9']);
    assert.match(ask.asked[0]!.detail, /Cluster 7/);
    assert.equal(ask.left(), 0);
  });

  it('says so, asking nothing, when no cluster can hold two nodes; a dismissed pick rents nothing', async () => {
    const none = await pickCluster(scriptedAsk([]), [inCluster(11, 6, 110, 3.0), inCluster(null, 8, 120, 0.5)]);
    assert.match(none && 'refusal' in none ? none.refusal : '', /no cluster with two or more free machines of one GPU model/);
    assert.equal(await pickCluster(scriptedAsk([{ pick: undefined }]), offers), undefined);
  });
});
