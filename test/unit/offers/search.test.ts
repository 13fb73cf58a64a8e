import assert from 'node:assert/strict';
import { describeSearch, relaxations, restoreSearch, searchRequest, withFilter } from '../../../src/core/offers/search';

describe('offer search state', () => {
  it('builds the request from the query on top of the CLI defaults, with the picked sort and page count', () => {
    const r = searchRequest({ query: 'gpu_name=RTX_4090 num_gpus>=2', sort: 'price', pages: 3 }, 50);
    assert.deepEqual(r.query.filters.gpu_name, { eq: 'RTX 4090' });
    assert.deepEqual(r.query.filters.num_gpus, { gte: 2 });
    assert.deepEqual(r.query.filters.verified, { eq: true });
    assert.deepEqual(r.query.filters.rentable, { eq: true });
    assert.deepEqual(r.query.order, [['dph_total', 'asc']]);
    assert.equal(r.limit, 150);
  });

  it('lets an order written in the query win over the picker', () => {
    assert.deepEqual(searchRequest({ query: 'order=num_gpus-', sort: 'price', pages: 1 }).query.order, [['num_gpus', 'desc']]);
  });

  it('sets and removes one filter, in user units, keeping the others', () => {
    let q = withFilter('', 'gpu_name', { eq: 'RTX 4090' });
    q = withFilter(q, 'gpu_ram', { gte: 24_000 });
    assert.equal(q, 'gpu_name=RTX_4090 gpu_ram>=24');
    q = withFilter(q, 'gpu_name', undefined);
    assert.equal(q, 'gpu_ram>=24');
    assert.equal(withFilter(q, 'verified', undefined), 'verified=any gpu_ram>=24', 'dropping a default means any');
  });

  it('proposes dropping each filter the user added, not the defaults', () => {
    const r = relaxations('gpu_name=H100_SXM dph_total<0.2');
    assert.deepEqual(r.map((x) => x.field), ['gpu_name', 'dph_total']);
    assert.equal(r[1]!.without, 'gpu_name=H100_SXM');
    assert.equal(r[1]!.description, 'dph_total<0.2');
  });

  it('restores saved state defensively', () => {
    assert.deepEqual(restoreSearch({ query: 'num_gpus>=2', sort: 'gpus', pages: 9 }), { query: 'num_gpus>=2', sort: 'gpus', pages: 1 });
    assert.deepEqual(restoreSearch({ query: 'num_gpus>>', sort: 'nope' }), { query: '', sort: 'value', pages: 1 });
    assert.deepEqual(restoreSearch(undefined), { query: '', sort: 'value', pages: 1 });
    assert.equal(describeSearch({ query: '', sort: 'value', pages: 1 }), 'rentable, verified machines');
  });
});
