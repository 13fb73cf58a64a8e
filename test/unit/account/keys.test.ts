import assert from 'node:assert/strict';
import { keyCategories, scopeSummary, scopedPermissions } from '../../../src/core/account/apiKeys';
import { unreadableApiKey } from '../../../src/core/api/account';
import { clientFor, DEMO_KEY, startSimulator } from '../../support';

describe('account: scoped API keys', () => {
  it('builds unconstrained categories, and holds instance categories to one instance when asked', () => {
    assert.deepEqual(scopedPermissions(['user_read', 'misc']), { api: { user_read: {}, misc: {} } });
    const held = scopedPermissions(['instance_write', 'misc'], 42);
    assert.deepEqual(held.api.misc, {});
    assert.deepEqual(held.api.instance_write!['api.instance.destroy'], { constraints: { id: { eq: 42 } } });
  });

  it('summarises a listed key', () => {
    assert.equal(scopeSummary({ rights: null }), 'full access');
    assert.equal(scopeSummary(unreadableApiKey(7)), 'rights unknown', 'a key listed by id only never reads as full access');
    assert.equal(scopeSummary({ rights: { api: { instance_read: {}, misc: {} } } }), 'read-only: instance_read, misc');
    assert.equal(scopeSummary({ rights: { api: { instance_write: {} } } }), 'instance_write');
    assert.deepEqual(keyCategories({ rights: null }), undefined);
  });

  it('a key held to one instance works on it and is refused on another, against the simulator', async () => {
    const sim = await startSimulator({ bootSeconds: 0.1 });
    try {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const offers = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 2 });
      const a = (await client.instances.create(offers[0]!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
      const b = (await client.instances.create(offers[1]!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
      const { key } = await client.apiKeys.create({ name: 'one', permissions: scopedPermissions(['instance_write'], a) });
      const held = clientFor(sim.url, key).client;
      await assert.rejects(held.instances.destroy(b), (e: { kind?: string }) => e.kind === 'forbidden');
      await held.instances.destroy(a);
    } finally {
      await sim.stop();
    }
  });
});
