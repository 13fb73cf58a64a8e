import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, DEMO_KEY, eventually, FakeClock, obj, PUBLIC_KEY, rentOne, show, startSimulator, tempDirForSuite } from '../../support';

describe('marketplace: state file', () => {
  const dir = tempDirForSuite('marketplace-state-', { each: true });

  it('keeps accounts, keys, instances, templates and billing across a restart', async () => {
    const file = join(dir(), 'nested', 'state.json');
    const clock = new FakeClock();
    let sim = await startSimulator({ stateFile: file, now: clock.now, bootSeconds: 10, credit: 80 });
    const { id, offerId, instanceKey } = await rentOne(sim, { label: 'keep-me' });
    const scoped = obj(await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'kept', permissions: { api: { instance_read: {} } } }));
    const template = obj(await call(sim, 'POST', '/api/v0/template/', { name: 'mine', image: 'ubuntu' })).template as {
      id: number;
      hash_id: string;
    };
    await call(sim, 'POST', '/api/v0/ssh/', { ssh_key: PUBLIC_KEY });
    await clock.advance(3_600_000);
    const creditBefore = obj(await call(sim, 'GET', '/api/v0/users/current/')).credit as number;
    await sim.stop();
    assert.ok(existsSync(file));

    sim = await startSimulator({ stateFile: file, now: clock.now, credit: 999, seed: 77 });
    try {
      const r = (await show(sim, id))!;
      assert.equal(r.label, 'keep-me');
      assert.equal(r.actual_status, 'running');
      assert.equal(r.bundle_id, offerId, 'the catalogue seed comes from the state file');
      assert.equal(
        obj(await call(sim, 'GET', '/api/v0/users/current/')).credit,
        creditBefore,
        'the credit option applies to new state only',
      );
      assert.equal((await call(sim, 'GET', `/api/v0/instances/${id}/`, undefined, scoped.key as string)).status, 200);
      assert.equal((await call(sim, 'GET', `/api/v0/instances/${id}/`, undefined, instanceKey)).status, 200);
      const [offer] = obj(await call(sim, 'POST', '/api/v0/bundles/', { id: { eq: offerId } })).offers as Array<{ rented: boolean }>;
      assert.equal(offer!.rented, true);
      const templates = obj(await call(sim, 'GET', '/api/v0/template/')).templates as Array<{ id: number; hash_id: string }>;
      assert.ok(templates.some((t) => t.id === template.id && t.hash_id === template.hash_id));
      assert.equal(((await call(sim, 'GET', '/api/v0/ssh/')).json as unknown[]).length, 1);
      await clock.advance(3_600_000);
      const rate = r.dph_total as number;
      const after = obj(await call(sim, 'GET', '/api/v0/users/current/')).credit as number;
      assert.ok(Math.abs(creditBefore - rate - after) < 1e-4, 'billing carries on from the saved state');
      const next = await rentOne(sim);
      assert.ok(next.id > id, 'ids keep counting');
    } finally {
      await sim.stop();
    }
  });

  it('saves shortly after a change, without waiting for stop', async () => {
    const file = join(dir(), 'state.json');
    const sim = await startSimulator({ stateFile: file });
    try {
      const { id } = await rentOne(sim, { label: 'debounced' });
      await eventually(async () => existsSync(file) && readFileSync(file, 'utf8').includes('debounced'), 'the debounced save', 3000);
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { instances: Array<{ id: number }> };
      assert.deepEqual(
        saved.instances.map((i) => i.id),
        [id],
      );
    } finally {
      await sim.stop();
    }
  });

  it('lets a restart name a new demo key for the saved account', async () => {
    const file = join(dir(), 'state.json');
    let sim = await startSimulator({ stateFile: file });
    const accountId = sim.accountId;
    await sim.stop();
    sim = await startSimulator({ stateFile: file, apiKey: 'another-key-abcdef0123456789' });
    try {
      assert.equal(sim.accountId, accountId);
      assert.equal(obj(await call(sim, 'GET', '/api/v0/users/current/', undefined, 'another-key-abcdef0123456789')).id, accountId);
      assert.equal(obj(await call(sim, 'GET', '/api/v0/users/current/', undefined, DEMO_KEY)).id, accountId);
    } finally {
      await sim.stop();
    }
  });
});
