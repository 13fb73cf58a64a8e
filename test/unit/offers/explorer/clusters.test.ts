import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Offer } from '../../../../src/core/api/offers';
import {
  clusterValue,
  groupByCluster,
  groupIndexOf,
  groupingAnnouncement,
  groupingStatus,
  type ClusterRows,
} from '../../../../src/core/offers/explorer/clusters';
import { OfferTable, type SortKey } from '../../../../src/core/offers/explorer/rows';
import { offer } from './fixtures';

const ctx = { type: 'on-demand' } as const;

/** Groups all offers in the table's order for `sort`, as the page does. */
function grouped(offers: readonly Offer[], sort: SortKey[] = []): ClusterRows {
  const table = new OfferTable(offers, ctx);
  return groupByCluster(offers, table.sorted(sort), sort, ctx);
}

/** The rows as text: a group's sentence, or `  #id` for an offer under it. */
function drawn(offers: readonly Offer[], g: ClusterRows): string[] {
  return g.rows.map((r) => (r < 0 ? g.groups[groupIndexOf(r)]!.text : `  #${offers[r]!.id}`));
}

const h100 = (id: number, cluster: number | null, over: Partial<Offer> = {}) =>
  offer({ id, cluster_id: cluster, gpu_name: 'H100', num_gpus: 8, dph_total: 7.8, ...over });

describe('offer explorer: group by cluster', () => {
  it('puts the offers of one cluster under one row that sums them up, and hides those in no cluster', () => {
    const offers = [h100(1, 4812), h100(2, 4812), offer({ id: 3, cluster_id: null }), h100(4, 4812), h100(5, 4812), offer({ id: 6 })];
    const g = grouped(offers);
    assert.deepEqual(drawn(offers, g), ['cluster 4812: 4 machines × 8 H100, $31.20/h for all', '  #1', '  #2', '  #4', '  #5']);
    assert.equal(g.hidden, 2, 'a null cluster_id and a missing one are both "in no cluster"');
    assert.equal(g.groups[0]!.totalPrice, 31.2);
    assert.equal(g.groups[0]!.totalGpus, 32);
  });

  it('says when the machines differ: other GPU models, other GPU counts, or one machine alone', () => {
    const models = [h100(1, 7), h100(2, 7, { gpu_name: 'A100 SXM4', dph_total: 1.2 })];
    assert.equal(grouped(models).groups[0]!.text, 'cluster 7: 2 machines, 2 GPU models, $9.00/h for all');
    const counts = [h100(1, 7), h100(2, 7, { num_gpus: 4, dph_total: 3.9 })];
    assert.equal(grouped(counts).groups[0]!.text, 'cluster 7: 2 machines, 12 H100 in all, $11.70/h for all');
    assert.equal(grouped([h100(1, 7)]).groups[0]!.text, 'cluster 7: 1 machine with 8 H100, $7.80/h');
  });

  it('counts a machine once, by its whole-machine offer, whatever parts of it are listed beside', () => {
    const offers = [
      h100(1, 9, { machine_id: 50, num_gpus: 2, dph_total: 1.9 }),
      h100(2, 9, { machine_id: 50 }),
      h100(3, 9, { machine_id: 51 }),
      h100(4, 9, { machine_id: 51, dph_total: 7.5 }),
    ];
    const g = grouped(offers).groups[0]!;
    assert.equal(g.text, 'cluster 9: 2 machines × 8 H100, $15.30/h for all');
    assert.deepEqual(
      g.nodes.map((i) => offers[i]!.id),
      [2, 4],
      'the 8-GPU offer of machine 50, the cheaper 8-GPU offer of machine 51',
    );
    assert.deepEqual(
      g.members.map((i) => offers[i]!.id),
      [1, 2, 3, 4],
      'every offer stays listed under the row',
    );
  });

  it('sorts the groups by the same key as the offers: the cheapest total first, and back', () => {
    const offers = [
      h100(1, 100, { dph_total: 2 }),
      h100(2, 100, { dph_total: 2 }),
      h100(3, 200, { dph_total: 3 }),
      offer({ id: 4, cluster_id: 300, dph_total: 0.5, num_gpus: 1 }),
      h100(5, 100, { dph_total: 0.4 }),
    ];
    const ids = (sort: SortKey[]) => grouped(offers, sort).groups.map((g) => g.clusterId);
    assert.deepEqual(ids([{ column: 'price', direction: 'asc' }]), [300, 200, 100], 'totals $0.50, $3, $4.40');
    assert.deepEqual(ids([{ column: 'price', direction: 'desc' }]), [100, 200, 300]);
    assert.deepEqual(ids([{ column: 'count', direction: 'desc' }]), [100, 200, 300], '24, 8 and 1 GPUs');
    assert.deepEqual(ids([]), [100, 200, 300], "unsorted: in the order of each group's first offer");
    const rows = drawn(offers, grouped(offers, [{ column: 'price', direction: 'asc' }]));
    assert.deepEqual(
      rows.slice(4),
      ['cluster 100: 3 machines × 8 H100, $4.40/h for all', '  #5', '  #1', '  #2'],
      'offers in the same order',
    );
  });

  it("judges a group's value the way a job across its machines runs: sums, ratios of sums, its weakest machine", () => {
    const nodes = [
      h100(1, 1, { dph_total: 2, dlperf: 100, reliability2: 0.99, gpu_ram: 81_920 }),
      h100(2, 1, { dph_total: 6, dlperf: 300, reliability2: 0.9, gpu_ram: 40_960, num_gpus: 4 }),
    ];
    assert.equal(clusterValue('price', nodes, ctx), 8);
    assert.equal(clusterValue('pricePerGpu', nodes, ctx), 8 / 12);
    assert.equal(clusterValue('dlperfPerDollar', nodes, ctx), 50);
    assert.equal(clusterValue('reliability', nodes, ctx), 0.9);
    assert.equal(clusterValue('vram', nodes, ctx), 40);
    assert.equal(clusterValue('gpu', nodes, ctx), 'h100');
    assert.equal(clusterValue('inetUp', nodes, ctx), undefined, 'no machine says: unknown, sorted last');
  });

  it('says how many clusters there are and how many offers grouping hides, with how to search only clusters', () => {
    const offers = [h100(1, 1), h100(2, 2), offer({ id: 3 })];
    assert.equal(
      groupingStatus(grouped(offers)),
      '2 clusters. 1 offer in no cluster is hidden while grouping. To search only machines in a cluster, add cluster_id!=null to the query.',
    );
    assert.equal(groupingStatus(grouped([h100(1, 1)])), '1 cluster.');
    assert.match(groupingStatus(grouped([offer({ id: 1 }), offer({ id: 2 })])), /^0 clusters\. 2 offers in no cluster are hidden/);
    assert.equal(
      groupingAnnouncement([{ column: 'price', direction: 'asc' }], grouped(offers)).split('. ')[0],
      'sorted by price per hour, ascending, 2 offers; grouped by cluster',
    );
  });

  it('lists every offer in a cluster exactly once, under its own cluster, and counts the rest as hidden (property, seeded)', () => {
    const anOffer = fc.record({
      cluster: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
      machine: fc.integer({ min: 1, max: 12 }),
      gpus: fc.constantFrom(1, 2, 4, 8),
      price: fc.integer({ min: 1, max: 4000 }),
    });
    const sortKey = fc.record({
      column: fc.constantFrom('price', 'count', 'gpu', 'dlperfPerDollar', 'reliability', 'cluster' as const),
      direction: fc.constantFrom('asc', 'desc' as const),
    });
    fc.assert(
      fc.property(fc.array(anOffer, { maxLength: 60 }), fc.array(sortKey, { maxLength: 2 }), (specs, sort) => {
        const offers = specs.map((s, k) =>
          offer({ id: k + 1, cluster_id: s.cluster, machine_id: s.machine, num_gpus: s.gpus, dph_total: s.price / 100 }),
        );
        const g = grouped(offers, sort);
        let current: number | undefined;
        const seen = new Set<number>();
        for (const r of g.rows) {
          if (r < 0) {
            current = g.groups[groupIndexOf(r)]!.clusterId;
            continue;
          }
          assert.equal(offers[r]!.cluster_id, current, `offer ${offers[r]!.id} is under its own cluster`);
          assert.ok(!seen.has(r));
          seen.add(r);
        }
        assert.equal(seen.size + g.hidden, offers.length);
        assert.equal(seen.size, offers.filter((o) => o.cluster_id !== null).length);
        assert.equal(new Set(g.groups.map((x) => x.clusterId)).size, g.groups.length, 'one row per cluster');
        for (const x of g.groups) {
          const machines = new Set(x.members.map((i) => offers[i]!.machine_id));
          assert.equal(x.nodes.length, machines.size, 'one node per machine');
        }
      }),
      { seed: 4812, numRuns: 300 },
    );
  });

  it('groups 10,000 offers, most in no cluster, into rows for what is shown only', () => {
    const many = Array.from({ length: 10_000 }, (_, i) =>
      offer({ id: i + 1, cluster_id: i % 10 === 0 ? 1000 + (i % 97) : null, machine_id: i + 1, dph_total: ((i * 7919) % 1000) / 100 }),
    );
    const g = grouped(many, [{ column: 'price', direction: 'asc' }]);
    assert.equal(g.groups.length, 97);
    assert.equal(g.hidden, 9_000);
    assert.equal(g.rows.length, 1_000 + 97);
    const totals = g.groups.map((x) => x.totalPrice);
    for (let k = 1; k < totals.length; k++) assert.ok(totals[k - 1]! <= totals[k]!, 'cheapest total first');
  });
});
