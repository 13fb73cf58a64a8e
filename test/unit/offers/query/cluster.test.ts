import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clusterFilter, type OfferQuery } from '../../../../src/core/api/offerQuery';
import { searchBody } from '../../../../src/core/api/offers';
import { OFFER_QUERY_FIELDS } from '../../../../src/core/offers/query/fields';
import { analyzeOfferQuery, parseOfferQuery } from '../../../../src/core/offers/query/parse';
import { printOfferQuery } from '../../../../src/core/offers/query/print';
import { DEFAULTS } from './cliDefaults';

const filtersOf = (text: string) => parseOfferQuery(text).filters;

describe('offer query language: cluster_id', () => {
  it('reads "in any cluster", "in this cluster" and "in one of these" as the service filters them', () => {
    assert.deepStrictEqual(filtersOf('cluster_id!=None'), { cluster_id: { neq: null } });
    assert.deepStrictEqual(filtersOf('cluster_id != null'), { cluster_id: { neq: null } });
    assert.deepStrictEqual(filtersOf('cluster_id=4812'), { cluster_id: { eq: 4812 } });
    assert.deepStrictEqual(filtersOf('cluster_id in [4812, 4813]'), { cluster_id: { in: [4812, 4813] } });
    assert.deepStrictEqual(filtersOf('cluster_id=None'), { cluster_id: { eq: null } }, 'machines in no cluster');
    assert.deepStrictEqual(filtersOf('cluster_id!=None cluster_id=any'), {}, '`any` drops the filter');
  });

  it('is a known field: no "unknown field" warning, and it is offered in completion with a description', () => {
    const { unknownFields } = analyzeOfferQuery('cluster_id!=None num_gpus=8');
    assert.deepEqual(unknownFields, []);
    const field = OFFER_QUERY_FIELDS.find((f) => f.name === 'cluster_id');
    assert.equal(field?.kind, 'number');
    assert.match(field?.description ?? '', /cluster_id!=None/);
    assert.equal(field?.unit, undefined, 'an id is sent as typed, with no unit factor');
  });

  it('prints back to text that reads to the same query, with and without the CLI defaults', () => {
    const cases: Array<[string, string]> = [
      ['cluster_id!=None', 'cluster_id!=null'],
      ['cluster_id=4812', 'cluster_id=4812'],
      ['cluster_id in [4812,4813]', 'cluster_id in [4812,4813]'],
      ['gpu_name=H100_SXM cluster_id!=None num_gpus=8', 'gpu_name=H100_SXM cluster_id!=null num_gpus=8'],
    ];
    for (const [typed, printed] of cases) {
      const query = parseOfferQuery(typed);
      assert.equal(printOfferQuery(query), printed, typed);
      assert.deepStrictEqual(parseOfferQuery(printOfferQuery(query)), query, typed);
      const withDefaults = parseOfferQuery(typed, { defaults: DEFAULTS });
      const text = printOfferQuery(withDefaults, { defaults: DEFAULTS });
      assert.deepStrictEqual(parseOfferQuery(text, { defaults: DEFAULTS }), withDefaults, typed);
    }
  });

  it('any cluster id prints and parses back to itself (property, seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: Number.MAX_SAFE_INTEGER }), { minLength: 1, maxLength: 4 }), (ids) => {
        const [first = 0] = ids;
        for (const filter of [clusterFilter(first), clusterFilter(ids), clusterFilter()]) {
          const query: OfferQuery = { filters: { cluster_id: filter }, order: [], type: 'on-demand' };
          assert.deepStrictEqual(parseOfferQuery(printOfferQuery(query)), query);
        }
      }),
      { seed: 26, numRuns: 300 },
    );
  });

  it('clusterFilter builds what the text would: the explorer and the palette search the same', () => {
    assert.deepStrictEqual({ cluster_id: clusterFilter() }, filtersOf('cluster_id!=None'));
    assert.deepStrictEqual({ cluster_id: clusterFilter(4812) }, filtersOf('cluster_id=4812'));
    assert.deepStrictEqual({ cluster_id: clusterFilter([4812, 4813]) }, filtersOf('cluster_id in [4812,4813]'));
  });

  it('goes on the wire as a number like machine_id, and "none" as null, without any unit factor', () => {
    const body = searchBody({ query: parseOfferQuery('cluster_id=4812 machine_id=31', { defaults: DEFAULTS }) });
    assert.equal(JSON.stringify(body['cluster_id']), '{"eq":4812}');
    assert.equal(JSON.stringify(body['machine_id']), '{"eq":31}', 'the same form as the other numeric nullable ids');
    assert.equal(JSON.stringify(searchBody({ query: parseOfferQuery('cluster_id!=None') })['cluster_id']), '{"neq":null}');
    assert.equal(JSON.stringify(searchBody({ query: parseOfferQuery('cluster_id in [7,8]') })['cluster_id']), '{"in":[7,8]}');
  });
});
