import assert from 'node:assert/strict';
import { parseQuery } from '../../../../src/core/offers/search';
import { compileFilters, nextSort, OfferTable, readSortKeys, sortAnnouncement } from '../../../../src/core/offers/explorer/rows';
import { offer } from './fixtures';

const offers = [
  offer({ id: 1, dlperf_per_dphtotal: 50, dph_total: 0.9, gpu_name: 'A100', num_gpus: 2 }),
  offer({ id: 2, dlperf_per_dphtotal: 120, dph_total: 0.4, gpu_name: 'rtx 3090' }),
  offer({ id: 3, dlperf_per_dphtotal: undefined, dph_total: 0.4, gpu_name: 'RTX 4090', num_gpus: 4 }),
  offer({ id: 4, dlperf_per_dphtotal: 80, dph_total: 0.2, gpu_name: 'H100', geolocation: 'Amsterdam, NL' }),
];
const ids = (table: OfferTable, order: number[]) => order.map((i) => table.offers[i]!.id);

describe('offer explorer rows', () => {
  const table = new OfferTable(offers, { type: 'on-demand' });

  it('sorts by a column either way, unknown values last both ways, ties in the service order', () => {
    assert.deepEqual(ids(table, table.sorted([{ column: 'dlperfPerDollar', direction: 'desc' }])), [2, 4, 1, 3]);
    assert.deepEqual(ids(table, table.sorted([{ column: 'dlperfPerDollar', direction: 'asc' }])), [1, 4, 2, 3]);
    assert.deepEqual(ids(table, table.sorted([{ column: 'price', direction: 'asc' }])), [4, 2, 3, 1]);
  });

  it('breaks ties with the second key and sorts text ignoring case', () => {
    const order = table.sorted([
      { column: 'price', direction: 'asc' },
      { column: 'count', direction: 'desc' },
    ]);
    assert.deepEqual(ids(table, order), [4, 3, 2, 1]);
    assert.deepEqual(ids(table, table.sorted([{ column: 'gpu', direction: 'asc' }])), [1, 4, 2, 3]);
  });

  it('sorts only the rows it is given', () => {
    assert.deepEqual(ids(table, table.sorted([{ column: 'price', direction: 'desc' }], [1, 3])), [2, 4]);
  });

  it('narrows by the query filters on the fields the offers carry; country codes from geolocation', () => {
    assert.deepEqual(ids(table, table.matching(parseQuery('num_gpus>=2').filters)), [1, 3]);
    assert.deepEqual(ids(table, table.matching(parseQuery('geolocation in [NL,DE]').filters)), [4]);
    assert.deepEqual(ids(table, table.matching(parseQuery('gpu_name=RTX_3090').filters)), [2]);
    assert.deepEqual(ids(table, table.matching(parseQuery('dph<0.5 num_gpus notin [4]').filters)), [2, 4]);
  });

  it('narrows and sorts by cluster: a null cluster_id is "in no cluster", not unknown', () => {
    const clustered = [
      offer({ id: 1, cluster_id: 4812 }),
      offer({ id: 2, cluster_id: null }),
      offer({ id: 3, cluster_id: 77 }),
      offer({ id: 4 }),
    ];
    const t = new OfferTable(clustered, { type: 'on-demand' });
    assert.deepEqual(ids(t, t.matching(parseQuery('cluster_id!=null').filters)), [1, 3, 4], 'a missing field is still left to the service');
    assert.deepEqual(ids(t, t.matching(parseQuery('cluster_id=4812').filters)), [1, 4]);
    assert.deepEqual(ids(t, t.matching(parseQuery('cluster_id=None').filters)), [2, 4]);
    assert.deepEqual(ids(t, t.matching(parseQuery('cluster_id in [77, 4812]').filters)), [1, 3, 4]);
    assert.deepEqual(ids(t, t.matching(parseQuery('cluster_id>100').filters)), [1, 4]);
    assert.deepEqual(ids(t, t.sorted([{ column: 'cluster', direction: 'asc' }])), [3, 1, 2, 4]);
    const unknownUp = new OfferTable([offer({ id: 9, inet_up: null })], { type: 'on-demand' });
    assert.deepEqual(ids(unknownUp, unknownUp.matching(parseQuery('inet_up>100').filters)), [9], 'other fields: null stays unknown');
  });

  it('leaves to the service what the offer does not carry (rented, external)', () => {
    const test = compileFilters(parseQuery('rented=true external=true').filters);
    assert.ok(test(offers[0]!));
  });

  it('flips the primary key on the same header, starts numbers descending and text ascending, adds a second with shift', () => {
    let keys = nextSort([], 'dlperfPerDollar');
    assert.deepEqual(keys, [{ column: 'dlperfPerDollar', direction: 'desc' }]);
    keys = nextSort(keys, 'dlperfPerDollar');
    assert.deepEqual(keys, [{ column: 'dlperfPerDollar', direction: 'asc' }]);
    keys = nextSort(keys, 'gpu', true);
    assert.deepEqual(keys, [
      { column: 'dlperfPerDollar', direction: 'asc' },
      { column: 'gpu', direction: 'asc' },
    ]);
    assert.deepEqual(nextSort(keys, 'gpu', true)[1], { column: 'gpu', direction: 'desc' });
    assert.deepEqual(nextSort(keys, 'price'), [{ column: 'price', direction: 'desc' }]);
  });

  it('reads saved sort keys defensively', () => {
    assert.deepEqual(
      readSortKeys([
        { column: 'price', direction: 'asc' },
        { column: 'nope', direction: 'asc' },
        { column: 'price', direction: 'desc' },
        'x',
      ]),
      [{ column: 'price', direction: 'asc' }],
    );
    assert.deepEqual(readSortKeys('x'), []);
  });

  it('announces the sort and the count for screen readers', () => {
    assert.equal(
      sortAnnouncement([{ column: 'dlperfPerDollar', direction: 'desc' }], 2431),
      'sorted by DLPerf per dollar, descending, 2,431 offers',
    );
    assert.equal(sortAnnouncement([], 1), "in the service's order, 1 offer");
  });

  it('sorts 10,000 offers by a fresh column', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => offer({ id: i + 1, dph_total: ((i * 7919) % 1000) / 100 }));
    const big = new OfferTable(many, { type: 'on-demand' });
    const order = big.sorted([{ column: 'price', direction: 'asc' }]);
    assert.equal(order.length, 10_000);
    for (let k = 1; k < order.length; k++) assert.ok(many[order[k - 1]!]!.dph_total <= many[order[k]!]!.dph_total);
  });
});
