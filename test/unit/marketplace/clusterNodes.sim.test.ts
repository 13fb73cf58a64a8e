// Rent Cluster's path through the simulator's API: an overlay created over HTTP, two machines of one
// cluster rented into it with the create body's '-n NAME' key, and each node, reached over ssh as
// any instance is, on the overlay's private network with its own address and hostname.
import assert from 'node:assert/strict';
import { clusterFilter } from '../../../src/core/api/offerQuery';
import { joinOverlayEnv } from '../../../src/core/api/instanceRequests';
import type { Offer } from '../../../src/core/api/offers';
import { runRemote } from '../../../src/core/ssh/remote';
import { overlayNetAvailable } from '../../marketplace/overlayNet';
import { containerSuite, eventually } from '../../support';

const skip = process.getuid?.() !== 0 ? 'not root' : overlayNetAvailable() ? undefined : 'no network namespaces here';

/** Two offers on distinct machines of one cluster and one GPU model. */
function twoNodes(offers: readonly Offer[]): { clusterId: number; offers: Offer[] } {
  const byCluster = new Map<string, Offer[]>();
  for (const o of offers) {
    if (typeof o.cluster_id !== 'number') continue;
    const key = `${o.cluster_id}/${o.gpu_name}`;
    const list = byCluster.get(key) ?? [];
    if (!list.some((x) => x.machine_id === o.machine_id)) list.push(o);
    byCluster.set(key, list);
  }
  const found = [...byCluster.values()].find((list) => list.length >= 2);
  assert.ok(found, 'the seeded catalogue has a cluster with two machines of one model');
  return { clusterId: found[0]!.cluster_id!, offers: found.slice(0, 2) };
}

(skip ? describe.skip : describe)(`marketplace: a cluster rented through the API${skip ? ` (skipped: ${skip})` : ''}`, function () {
  this.timeout(90_000);
  const kit = containerSuite('cluster-nodes', { seed: 41 });

  it('puts each node on the overlay: eth0 with its address in the subnet, its own hostname; destroyed, it leaves', async () => {
    const client = kit.client;
    const offers = await client.offers.search({
      query: { filters: { cluster_id: clusterFilter(), rentable: { eq: true } }, order: [], type: 'on-demand' },
      limit: 1000,
    });
    const cluster = twoNodes(offers);
    await client.clusters.createOverlay({ clusterId: cluster.clusterId, name: 'nodes-test' });
    const join = joinOverlayEnv('nodes-test');
    assert.ok(join.ok);
    const ids: number[] = [];
    for (const offer of cluster.offers)
      ids.push((await client.instances.create(offer.id, { image: 'ubuntu:22.04', disk: 8, env: join.env })).instanceId);

    const overlay = await client.clusters.findOverlay('nodes-test');
    assert.deepEqual([...(overlay?.instances ?? [])].sort(), [...ids].sort(), 'the overlay lists both nodes');
    const subnet = overlay?.internal_subnet ?? '';
    const prefix = subnet.replace(/\.0\/\d+$/, '.');
    for (const [rank, id] of ids.entries()) {
      const target = await kit.reach(id);
      const shown = await runRemote(target, 'ip -4 -o addr show eth0; hostname', { timeoutMs: 20_000 });
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, new RegExp(`inet ${prefix.replace(/\./g, '\\.')}${rank + 1}/`), `node ${rank} in ${subnet}`);
      assert.match(shown.stdout, new RegExp(`^c-${id}$`, 'm'), 'its own hostname');
    }

    for (const id of ids) await client.instances.destroy(id);
    await eventually(
      async () => ((await client.clusters.findOverlay('nodes-test'))?.instances ?? []).length === 0,
      'the nodes leave the overlay',
    );
  });
});
