import assert from 'node:assert/strict';
import { searchBody } from '../../../src/core/api/offers';
import {
  DEFAULT_RENT_DISK_GB,
  describeDiskPricing,
  describeSearch,
  mayLoadMore,
  relaxations,
  rentDiskFor,
  restoreSearch,
  searchDiskGb,
  searchRequest,
  withFilter,
} from '../../../src/core/offers/search';
import { quoteRent } from '../../../src/core/rent/quote';
import { clientFor, DEMO_KEY, simulatorForSuite } from '../../support';

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
    assert.deepEqual(
      r.map((x) => x.field),
      ['gpu_name', 'dph_total'],
    );
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

describe('offer search: limit= and allocated_storage= in the query', function () {
  this.timeout(30_000);
  const sim = simulatorForSuite({ seed: 31 });

  it('makes limit= the request limit and allocated_storage= the top-level key, not filters', () => {
    const r = searchRequest({ query: 'num_gpus>=1 limit=7 allocated_storage=64', sort: 'price', pages: 3 });
    assert.equal(r.limit, 7, 'over the page count');
    assert.equal(r.allocatedStorage, 64);
    assert.equal(r.query.filters.limit, undefined);
    assert.equal(r.query.filters.allocated_storage, undefined);
    const body = searchBody(r);
    assert.equal(body.limit, 7);
    assert.equal(body.allocated_storage, 64);
    assert.deepEqual(body.num_gpus, { gte: 1 });
    const plain = searchRequest({ query: 'num_gpus>=1', sort: 'price', pages: 2 }, 50);
    assert.equal(plain.allocatedStorage, DEFAULT_RENT_DISK_GB, 'without one, the disk a rent asks for by default');
    assert.equal(searchBody(plain).allocated_storage, 10);
    assert.equal(
      searchBody({ query: plain.query }).allocated_storage,
      10,
      'a request built by hand (rent by offer id) prices the same disk',
    );
  });

  it('keeps them when a filter is set or dropped, and in the header', () => {
    assert.equal(
      withFilter('limit=7 allocated_storage=64', 'gpu_name', { eq: 'RTX 4090' }),
      'gpu_name=RTX_4090 limit=7 allocated_storage=64',
    );
    assert.equal(describeSearch({ query: 'allocated_storage=64.5 limit=7', sort: 'value', pages: 1 }), 'limit=7 allocated_storage=64.5');
  });

  it('says which disk the prices include, and starts a rent with that disk unless the machine has less', () => {
    assert.equal(searchDiskGb(''), 10);
    assert.equal(searchDiskGb('allocated_storage=64 num_gpus>=2'), 64);
    assert.equal(searchDiskGb('num_gpus>>'), 10, 'an unreadable query prices the default');
    assert.equal(describeDiskPricing(''), 'prices include 10 GB disk');
    assert.equal(describeDiskPricing('allocated_storage=64.5'), 'prices include 64.5 GB disk');
    assert.equal(rentDiskFor({ disk_space: 500 }), 10);
    assert.equal(rentDiskFor({ disk_space: 500 }, 64), 64);
    assert.equal(rentDiskFor({ disk_space: 6.7 }, 64), 6, 'no more than the machine has free');
    assert.equal(rentDiskFor({ disk_space: null }, 12.5), 13, 'whole GB');
    assert.equal(rentDiskFor({}), 10);
  });

  it('offers no "load more" once limit= fixes the count', () => {
    assert.equal(mayLoadMore({ query: '', sort: 'value', pages: 1 }, 50, 50), true);
    assert.equal(mayLoadMore({ query: '', sort: 'value', pages: 1 }, 12, 50), false);
    assert.equal(mayLoadMore({ query: 'limit=12', sort: 'value', pages: 1 }, 12, 50), false);
  });

  it('the simulator answers with at most limit offers, each with room for the allocated disk, priced for it', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const all = await client.offers.search(searchRequest({ query: 'limit=1000', sort: 'price', pages: 1 }));
    assert.ok(all.length > 3, `${all.length} offers`);
    const three = await client.offers.search(searchRequest({ query: 'limit=3', sort: 'price', pages: 1 }));
    assert.equal(three.length, 3);
    const disks = all.map((o) => o.disk_space ?? 0).sort((a, b) => a - b);
    const need = disks[Math.floor(disks.length / 2)]!;
    const roomy = await client.offers.search(searchRequest({ query: `allocated_storage=${need}`, sort: 'price', pages: 1 }));
    assert.ok(roomy.length > 0 && roomy.length < all.length, `${roomy.length} of ${all.length} have ${need} GB`);
    for (const o of roomy) assert.ok((o.disk_space ?? 0) >= need, `${o.id}: ${o.disk_space} GB`);
    // The disk is priced in: the same offer costs more per hour with a bigger allocation.
    const small = await client.offers.search(searchRequest({ query: `allocated_storage=1 id=${roomy[0]!.id}`, sort: 'price', pages: 1 }));
    assert.ok(roomy[0]!.dph_total > small[0]!.dph_total, `${roomy[0]!.dph_total} > ${small[0]!.dph_total}`);
  });

  it('the price listed is the price the rent confirmation quotes for its default disk, and the one billed', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    for (const query of ['limit=40', 'limit=40 allocated_storage=37']) {
      const listed = await client.offers.search(searchRequest({ query, sort: 'price', pages: 1 }));
      assert.ok(listed.length > 10, query);
      for (const offer of listed) {
        const disk = rentDiskFor(offer, searchDiskGb(query));
        assert.equal(disk, searchDiskGb(query), `offer ${offer.id} has room for the searched disk`);
        const quoted = quoteRent(offer, disk, undefined).totalPerHour;
        assert.ok(
          Math.abs(quoted - offer.dph_total) < 1e-6,
          `${query}: offer ${offer.id} lists ${offer.dph_total}/h, the confirmation would say ${quoted}/h`,
        );
      }
    }
    // Renting the cheapest with that disk is billed at the listed price.
    const [cheapest] = await client.offers.search(searchRequest({ query: 'limit=1', sort: 'price', pages: 1 }));
    const { instanceId } = await client.instances.create(cheapest!.id, {
      image: 'ubuntu:22.04',
      disk: rentDiskFor(cheapest!),
      label: 'disk-price-check',
      runtype: 'ssh_proxy',
    });
    const instance = await client.instances.show(instanceId);
    assert.ok(
      Math.abs((instance.dph_total ?? 0) - cheapest!.dph_total) < 1e-6,
      `billed ${instance.dph_total}/h, listed ${cheapest!.dph_total}/h`,
    );
  });
});
