import assert from 'node:assert/strict';
import { parseFaultFlag } from '../../marketplace/faults';
import { call, obj, rawRequest, rentOne, show, simulatorForSuite } from '../../support';

describe('marketplace: faults', () => {
  const sim = simulatorForSuite({ bootSeconds: 10 }, { each: true, clock: true });

  const user = () => call(sim, 'GET', '/api/v0/users/current/');

  it('latency delays matching requests only', async () => {
    sim.control.addFault({ kind: 'latency', ms: 250, count: 0, path: '/users/current' });
    let t = Date.now();
    assert.equal((await user()).status, 200);
    assert.ok(Date.now() - t >= 240, 'delayed');
    t = Date.now();
    await call(sim, 'GET', '/api/v0/ssh/');
    assert.ok(Date.now() - t < 200, 'other paths are not delayed');
  });

  it('429 with the real body, optionally Retry-After, for `count` requests', async () => {
    sim.control.addFault({ kind: 'rate_limit', count: 2, retryAfter: 3 });
    for (let i = 0; i < 2; i++) {
      const res = await user();
      assert.equal(res.status, 429);
      assert.deepEqual(obj(res), { detail: 'API requests too frequent endpoint threshold=1.0' });
      assert.equal(res.headers.get('retry-after'), '3');
    }
    assert.equal((await user()).status, 200);
    sim.control.addFault({ kind: '429' });
    const plain = await user();
    assert.equal(plain.status, 429);
    assert.equal(plain.headers.get('retry-after'), null);
  });

  it('5xx: 500 as a JSON error, 502/503/504 as a proxy page', async () => {
    sim.control.addFault({ kind: 'server_error', status: 500 });
    const e500 = await user();
    assert.equal(e500.status, 500);
    assert.equal(obj(e500).success, false);
    for (const status of [502, 503, 504]) {
      sim.control.addFault({ kind: '5xx', status });
      const res = await user();
      assert.equal(res.status, status);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.match(res.text, new RegExp(`<title>${status} `));
    }
    assert.equal((await user()).status, 200);
  });

  it('reset: the connection closes without a response', async () => {
    sim.control.addFault({ kind: 'reset', path: '/users/current' });
    const res = await rawRequest(sim.url, 'GET', '/api/v0/users/current/');
    assert.ok(res.error, 'a socket error');
    assert.equal(res.status, undefined);
    assert.equal((await rawRequest(sim.url, 'GET', '/api/v0/users/current/')).status, 200);
  });

  it('truncated: part of the body, then the socket closes', async () => {
    sim.control.addFault({ kind: 'truncated', path: '/bundles' });
    const res = await rawRequest(sim.url, 'POST', '/api/v0/bundles/', undefined, {});
    assert.ok(res.error || (res.text !== undefined && res.text.length > 0), 'something arrived or failed');
    assert.ok(res.error, `the body was cut short (${res.text?.length} chars)`);
    assert.throws(() => JSON.parse(res.text ?? ''));
  });

  it('malformed: a 200 whose body is not JSON', async () => {
    sim.control.addFault({ kind: 'malformed' });
    const res = await user();
    assert.equal(res.status, 200);
    assert.equal(res.json, undefined);
    assert.throws(() => JSON.parse(res.text));
  });

  it('matches by method and by path substring or regex; count 0 lasts until cleared', async () => {
    sim.control.addFault({ kind: '503', method: 'POST', path: '^/api/v0/bun', count: 0 });
    assert.equal((await call(sim, 'GET', '/api/v0/bundles/?q=%7B%7D')).status, 200, 'GET not matched');
    for (let i = 0; i < 3; i++) assert.equal((await call(sim, 'POST', '/api/v0/bundles/', {})).status, 503);
    assert.equal(sim.control.faults()[0]?.fired, 3);
    sim.control.clearFaults();
    assert.equal((await call(sim, 'POST', '/api/v0/bundles/', { limit: 1 })).status, 200);
    assert.throws(() => sim.control.addFault({ kind: 'teapot' }));
    assert.throws(() => sim.control.addFault({ kind: 'server_error', status: 418 }));
  });

  it("phase 'after': the handler runs, then the answer is lost", async () => {
    const offers = obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, limit: 1 })).offers as Array<{ id: number }>;
    sim.control.addFault({ kind: 'reset', method: 'PUT', path: '/asks/', phase: 'after' });
    const res = await rawRequest(sim.url, 'PUT', `/api/v0/asks/${offers[0]!.id}/`, undefined, {
      image: 'ubuntu',
      disk: 10,
      label: 'orphan',
    });
    assert.ok(res.error && res.status === undefined);
    const list = obj(await call(sim, 'GET', '/api/v1/instances/')).instances as Array<{ label: string }>;
    assert.deepEqual(
      list.map((i) => i.label),
      ['orphan'],
      'the instance exists although the answer was lost',
    );
    sim.control.addFault({ kind: '502', method: 'DELETE', phase: 'after' });
    const id = (list[0] as unknown as { id: number }).id;
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${id}/`, {})).status, 502);
    assert.equal(await show(sim, id), null, 'destroyed all the same');
  });

  it('slow boot: new instances take the given time', async () => {
    sim.control.addFault({ kind: 'slow_boot', ms: 100_000 });
    const slow = await rentOne(sim);
    const normal = await rentOne(sim);
    await sim.clock.advance(10_000);
    assert.equal((await show(sim, normal.id))!.actual_status, 'running');
    assert.equal((await show(sim, slow.id))!.actual_status, null);
    await sim.clock.advance(30_000);
    assert.equal((await show(sim, slow.id))!.actual_status, 'loading');
    await sim.clock.advance(60_000);
    assert.equal((await show(sim, slow.id))!.actual_status, 'running');
    sim.control.setBootSeconds(1000);
    const later = await rentOne(sim);
    await sim.clock.advance(500_000);
    assert.equal((await show(sim, later.id))!.actual_status, 'loading');
  });

  for (const status of ['exited', 'offline', 'unknown'] as const) {
    it(`boot failure: the next instance ends ${status} and never runs`, async () => {
      sim.control.addFault({ kind: 'boot-failure', status });
      const doomed = await rentOne(sim);
      const fine = await rentOne(sim);
      await sim.clock.advance(4000);
      assert.equal((await show(sim, doomed.id))!.actual_status, 'loading');
      await sim.clock.advance(6000);
      assert.equal((await show(sim, doomed.id))!.actual_status, status);
      assert.equal((await show(sim, fine.id))!.actual_status, 'running');
      await sim.clock.advance(3_600_000);
      assert.equal((await show(sim, doomed.id))!.actual_status, status);
      await call(sim, 'PUT', `/api/v0/instances/${doomed.id}/`, { state: 'running' });
      await sim.clock.advance(20_000);
      assert.equal((await show(sim, doomed.id))!.actual_status, status, 'a restart fails the same way');
    });
  }

  it('is driven over HTTP through /__control/ without a key', async () => {
    const post = (path: string, body: unknown) => call(sim, 'POST', path, body, null);
    assert.equal(obj(await post('/__control/faults', { kind: '504', count: 1 })).success, true);
    assert.equal((await user()).status, 504);
    await post('/__control/faults', [{ kind: 'malformed' }, { kind: 'latency', ms: 1 }]);
    assert.equal((obj(await call(sim, 'GET', '/__control/faults', undefined, null)).faults as unknown[]).length, 2);
    assert.equal(obj(await call(sim, 'DELETE', '/__control/faults', undefined, null)).success, true);
    assert.equal((await user()).status, 200);
    assert.equal((await post('/__control/faults', { kind: 'bogus' })).status, 400);

    const account = obj(await post('/__control/accounts', { email: 'b@example.test', credit: 42 }));
    const me = obj(await call(sim, 'GET', '/api/v0/users/current/', undefined, account.key as string));
    assert.deepEqual([me.id, me.email, me.credit], [account.id, 'b@example.test', 42]);
    assert.equal(obj(await post(`/__control/accounts/${String(account.id)}/credit`, { amount: 8 })).credit, 50);

    const { id } = await rentOne(sim);
    const forced = obj(await post(`/__control/instances/${id}/status`, { status: 'offline' }));
    assert.equal((forced.instance as { actual_status: string }).actual_status, 'offline');
    await post(`/__control/instances/${id}/status`, { status: 'running' });
    assert.equal((await show(sim, id))!.actual_status, 'running');
    assert.equal((await post(`/__control/instances/${id}/status`, { status: 'dancing' })).status, 400);
    assert.equal((await post('/__control/instances/1/status', { status: 'running' })).status, 404);

    assert.equal(obj(await post('/__control/boot', { seconds: 2 })).boot_seconds, 2);
    const before = obj(await call(sim, 'GET', '/__control/state', undefined, null));
    await post('/__control/clock', { advance_seconds: 3600 });
    const after = obj(await call(sim, 'GET', '/__control/state', undefined, null));
    assert.equal((after.now as number) - (before.now as number), 3600);
    assert.equal(after.boot_seconds, 2);
    assert.ok((after.requestCount as number) > 0);
    assert.equal((after.instances as unknown[]).length, 1);
  });

  it('answers a control path or method it does not serve with 404, and a body that is not JSON with 400', async () => {
    for (const [method, path] of [
      ['POST', '/__control/nothing'],
      ['PUT', '/__control/faults'],
      ['GET', '/__control/boot'],
      ['POST', '/__control/accounts/1'],
      ['GET', '/__control'],
    ] as const) {
      const answer = await call(sim, method, path, undefined, null);
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.match(String(obj(answer).msg), /No control route/);
    }
    const res = await fetch(`${sim.url}/__control/faults`, { method: 'POST', body: '{not json' });
    assert.equal(res.status, 400);
  });

  it('reads --fault flags', () => {
    assert.deepEqual(parseFaultFlag('503:2'), { kind: '503', count: 2 });
    assert.deepEqual(parseFaultFlag('latency:0:150'), { kind: 'latency', count: 0, ms: 150 });
    assert.deepEqual(parseFaultFlag('rate_limit:3:2'), { kind: 'rate_limit', count: 3, retryAfter: 2 });
    assert.deepEqual(parseFaultFlag('boot_failure:1:offline'), { kind: 'boot_failure', count: 1, status: 'offline' });
    assert.deepEqual(parseFaultFlag('reset'), { kind: 'reset' });
  });
});
