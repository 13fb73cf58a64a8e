import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { clientFor, DEMO_KEY, eventually, instanceIn, simulatorForSuite } from '../../support';

/** What the client makes of each fault the simulator can inject. */
describe('client against injected faults (simulator)', () => {
  const sim = simulatorForSuite({}, { each: true });
  let client: GpuRentalClient;
  const rentableOffer = async () => {
    const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    return offer!.id;
  };
  beforeEach(() => {
    client = clientFor(sim.url, DEMO_KEY).client;
  });

  it('latency beyond the timeout: timeout', async () => {
    sim.control.addFault({ kind: 'latency', ms: 400, count: 0, path: '/users/current' });
    const slow = clientFor(sim.url, DEMO_KEY, { timeoutMs: 100, maxAttempts: 2 }).client;
    await assert.rejects(slow.account.currentUser(), (e) => isApiError(e, 'timeout'));
  });

  it('a 429 on a read: retried, then served', async () => {
    sim.control.addFault({ kind: '429', count: 2, path: '/users/current' });
    assert.ok((await client.account.currentUser()).id > 0);
  });

  it('a 429 with Retry-After: waited for', async () => {
    sim.control.addFault({ kind: '429', count: 1, retryAfter: 0.3, path: '/users/current' });
    const started = Date.now();
    await client.account.currentUser();
    assert.ok(Date.now() - started >= 250, 'the client waited as asked');
  });

  it('persistent 429: rate_limited after the retries', async () => {
    sim.control.addFault({ kind: '429', count: 0, path: '/users/current' });
    await assert.rejects(client.account.currentUser(), (e) => isApiError(e, 'rate_limited'));
  });

  it('a 503 on a read: retried, then served', async () => {
    sim.control.addFault({ kind: '5xx', status: 503, count: 2, path: '/users/current' });
    assert.ok((await client.account.currentUser()).id > 0);
  });

  it('a 500 on a write: server error, not repeated', async () => {
    const id = await rentableOffer();
    sim.control.addFault({ kind: '5xx', status: 500, count: 1, method: 'PUT', path: '/asks/' });
    await assert.rejects(client.instances.create(id, { image: 'ubuntu', disk: 8 }), (e) => isApiError(e, 'server') && e.outcomeUnknown);
    assert.deepEqual(await client.instances.list(), [], 'nothing was rented by the failed call, and nothing was retried');
  });

  it('a reset on a read: retried, then served', async () => {
    sim.control.addFault({ kind: 'reset', count: 1, path: '/users/current' });
    assert.ok((await client.account.currentUser()).id > 0);
  });

  it('a rent whose answer is lost: network error with unknown outcome, and the instance is there to find', async () => {
    const id = await rentableOffer();
    sim.control.addFault({ kind: 'reset', count: 1, method: 'PUT', path: '/asks/', phase: 'after' });
    await assert.rejects(
      client.instances.create(id, { image: 'ubuntu', disk: 8, label: 'rent-7f3a' }),
      (e) => isApiError(e, 'network') && e.outcomeUnknown && /may have been carried out/.test(e.message),
    );
    const all = await client.instances.list();
    assert.deepEqual(
      all.map((i) => i.label),
      ['rent-7f3a'],
      'exactly one instance, found by its label',
    );
  });

  it('malformed JSON: invalid_response', async () => {
    sim.control.addFault({ kind: 'malformed', count: 1, path: '/users/current' });
    await assert.rejects(client.account.currentUser(), (e) => isApiError(e, 'invalid_response'));
  });

  it('truncated JSON: a network or invalid-response error, never a partial result', async () => {
    sim.control.addFault({ kind: 'truncated', count: 0, path: '/bundles' });
    await assert.rejects(
      client.offers.search({ query: { filters: {}, order: [], type: 'on-demand' }, limit: 50 }),
      (e) => isApiError(e, 'network') || isApiError(e, 'invalid_response'),
    );
  });

  it('slow boot: the instance stays in loading longer', async () => {
    sim.control.setBootSeconds(1.5);
    const { instanceId } = await client.instances.create(await rentableOffer(), { image: 'ubuntu', disk: 8 });
    await new Promise((r) => setTimeout(r, 500));
    assert.notEqual((await client.instances.show(instanceId)).actual_status, 'running');
    await instanceIn(client, instanceId, 'running', 5_000);
  });

  it('boot failure: the instance ends in a failed state and never runs', async () => {
    sim.control.addFault({ kind: 'boot-failure', count: 1, status: 'exited' });
    const { instanceId } = await client.instances.create(await rentableOffer(), { image: 'ubuntu', disk: 8 });
    const final = await eventually(
      async () => {
        const s = (await client.instances.show(instanceId)).actual_status;
        return s === 'exited' ? s : undefined;
      },
      'exited',
      5_000,
    );
    assert.equal(final, 'exited');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal((await client.instances.show(instanceId)).actual_status, 'exited');
  });
});
