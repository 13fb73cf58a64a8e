// `instances` (`--instances N`): an account that already rents many instances, each rented as a
// rent is, for the benchmarks at scale.
import assert from 'node:assert/strict';
import { call, DEMO_KEY, obj, simulatorForSuite } from '../../support';

interface Listed {
  id: number;
  machine_id: number;
  bundle_id: number;
  cluster_id: number | null;
  actual_status: string | null;
  label: string | null;
  is_bid: boolean;
}

describe('marketplace: an account seeded with many instances', () => {
  const sim = simulatorForSuite({ bootSeconds: 30, instances: 120, clusters: 3, credit: 500 });

  it('lists every instance, each on its own machine, most running, as rents leave them', async () => {
    const res = await call(sim, 'GET', '/api/v0/instances/');
    assert.equal(res.status, 200, res.text);
    const list = obj(res).instances as Listed[];
    assert.equal(list.length, 120);
    assert.equal(new Set(list.map((i) => i.machine_id)).size, 120, 'one machine (offer) per instance');
    const running = list.filter((i) => i.actual_status === 'running').length;
    const stopped = list.filter((i) => i.actual_status === 'stopped').length;
    assert.ok(running > 80, `${running} running`);
    assert.ok(stopped > 0, 'some stopped by their renter');
    assert.ok(list.every((i) => ['running', 'stopped', 'loading', null].includes(i.actual_status)));
    // Their offers are rented now: a search no longer lists them as rentable.
    const search = await call(sim, 'POST', '/api/v0/bundles/', { id: { eq: list[0]!.bundle_id }, rentable: { eq: true } });
    assert.deepEqual(obj(search).offers, []);
  });

  it('puts clusters of them on overlay networks, each on one cluster of machines', async () => {
    const overlays = (await call(sim, 'GET', '/api/v0/overlay/')).json as Array<{ name: string; cluster_id: number; instances: number[] }>;
    assert.equal(overlays.length, 3);
    const list = obj(await call(sim, 'GET', '/api/v0/instances/')).instances as Listed[];
    const byId = new Map(list.map((i) => [i.id, i]));
    for (const overlay of overlays) {
      assert.match(overlay.name, /^seed-\d+$/);
      assert.ok(overlay.instances.length >= 2 && overlay.instances.length <= 4);
      for (const id of overlay.instances) {
        assert.equal(byId.get(id)?.cluster_id, overlay.cluster_id);
        assert.match(byId.get(id)?.label ?? '', new RegExp(`^${overlay.name}-node\\d$`));
      }
    }
  });

  it('keeps the opening credit: what the instances spent before now was paid', async () => {
    const user = obj(await call(sim, 'GET', '/api/v0/users/current/', undefined, DEMO_KEY));
    const credit = (user.credit ?? user.balance) as number;
    assert.ok(Math.abs(credit - 500) < 1, `credit ${credit}`);
  });
});
