import assert from 'node:assert/strict';
import { call, DEMO_KEY, eventually, obj, q, rentOne, show, simulatorForSuite, startSimulator } from '../../support';

describe('marketplace: instances', () => {
  const sim = simulatorForSuite({ bootSeconds: 10 }, { each: true, clock: true });

  const status = async (id: number) => (await show(sim, id))!.actual_status;

  it('boots null -> loading -> running over bootSeconds (40% / 60%)', async () => {
    const { id } = await rentOne(sim, { runtype: 'ssh_direct' });
    const first = (await show(sim, id))!;
    assert.equal(first.actual_status, null);
    assert.equal(first.intended_status, 'running');
    assert.equal(first.ports, undefined, 'no port map before running');
    await sim.clock.advance(3900);
    assert.equal(await status(id), null);
    await sim.clock.advance(200);
    assert.equal(await status(id), 'loading');
    await sim.clock.advance(5800);
    assert.equal(await status(id), 'loading');
    await sim.clock.advance(200);
    const running = (await show(sim, id))!;
    assert.equal(running.actual_status, 'running');
    assert.equal(running.cur_state, 'running');
    assert.match(String(running.status_msg), /^success, running ubuntu:22.04/);
    const ports = running.ports as Record<string, Array<{ HostIp: string; HostPort: string }>>;
    assert.equal(ports['22/tcp']?.[0]?.HostIp, '0.0.0.0');
    assert.ok(Number(ports['22/tcp']?.[0]?.HostPort) > 0);
    assert.ok(typeof running.ssh_host === 'string' && (running.ssh_port as number) > 0);
    assert.ok((running.uptime_mins as number) >= 0);
  });

  it('carries the request and the offer into the record', async () => {
    const offer = (
      obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 1 })).offers as Array<
        Record<string, number | string>
      >
    )[0]!;
    const { id } = await rentOne(sim, {
      disk: 40,
      label: 'train',
      env: { HF_HOME: '/workspace/hf', '-p 8000:8000': '1' },
      onstart: 'echo hi',
      args: ['--x'],
    });
    const r = (await show(sim, id))!;
    assert.equal(r.bundle_id, offer.id);
    assert.equal(r.machine_id, offer.machine_id);
    assert.equal(r.gpu_name, offer.gpu_name);
    assert.equal(r.gpu_ram, offer.gpu_ram);
    assert.equal(r.disk_space, 40);
    assert.equal(r.label, 'train');
    assert.equal(r.image_uuid, 'ubuntu:22.04');
    assert.equal(r.onstart, 'echo hi');
    assert.deepEqual(r.image_args, ['--x']);
    assert.deepEqual(r.extra_env, [
      ['HF_HOME', '/workspace/hf'],
      ['-p 8000:8000', '1'],
    ]);
    const disk = ((offer.storage_cost as number) * 40) / 720;
    assert.ok(Math.abs((r.storage_total_cost as number) - disk) < 1e-5);
    assert.ok(Math.abs((r.dph_total as number) - ((offer.dph_base as number) + disk)) < 1e-5);
    assert.equal(r.is_bid, false);
  });

  it('stops, starts again with a new ssh port, reboots and destroys', async () => {
    const { id } = await rentOne(sim);
    await sim.clock.advance(10_000);
    const before = (await show(sim, id))!;
    assert.equal(before.actual_status, 'running');
    assert.deepEqual(obj(await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'stopped' })), { success: true });
    const stopped = (await show(sim, id))!;
    assert.deepEqual([stopped.actual_status, stopped.intended_status, stopped.cur_state], ['stopped', 'stopped', 'stopped']);
    assert.equal(stopped.ports, undefined);
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'running' });
    const scheduling = (await show(sim, id))!;
    assert.equal(scheduling.actual_status, null);
    assert.equal(scheduling.intended_status, 'running');
    assert.match(String(scheduling.status_msg), /Scheduling/);
    await sim.clock.advance(4000);
    assert.equal(await status(id), 'loading');
    await sim.clock.advance(6000);
    const restarted = (await show(sim, id))!;
    assert.equal(restarted.actual_status, 'running');
    assert.notEqual(restarted.ssh_port, before.ssh_port, 'a restart gets a new ssh port');
    assert.deepEqual(obj(await call(sim, 'PUT', `/api/v0/instances/reboot/${id}/`, {})), { success: true });
    assert.equal(await status(id), 'rebooting');
    await sim.clock.advance(4000);
    assert.equal(await status(id), 'loading');
    await sim.clock.advance(6000);
    const rebooted = (await show(sim, id))!;
    assert.equal(rebooted.actual_status, 'running');
    assert.equal(rebooted.ssh_port, restarted.ssh_port, 'a reboot keeps the address');
    assert.deepEqual(obj(await call(sim, 'DELETE', `/api/v0/instances/${id}/`, {})).success, true);
    assert.deepEqual(obj(await call(sim, 'GET', `/api/v0/instances/${id}/`)), { instances: null });
    const again = await call(sim, 'DELETE', `/api/v0/instances/${id}/`, {});
    assert.equal(again.status, 404);
    assert.equal(obj(again).error, 'not_found');
  });

  it('holds the offer while rented and releases it on destroy', async () => {
    const { id, offerId } = await rentOne(sim);
    const [held] = obj(await call(sim, 'POST', '/api/v0/bundles/', { id: { eq: offerId } })).offers as Array<Record<string, unknown>>;
    assert.deepEqual([held!.rentable, held!.rented], [false, true]);
    const second = await call(sim, 'PUT', `/api/v0/asks/${offerId}/`, { image: 'ubuntu', disk: 10 });
    assert.equal(second.status, 404);
    assert.deepEqual(obj(second), {
      success: false,
      error: 'invalid_args',
      msg: `no_such_ask Instance type by id ${offerId} is not available.`,
      ask_id: offerId,
    });
    await call(sim, 'DELETE', `/api/v0/instances/${id}/`, {});
    const [free] = obj(await call(sim, 'POST', '/api/v0/bundles/', { id: { eq: offerId } })).offers as Array<Record<string, unknown>>;
    assert.deepEqual([free!.rentable, free!.rented], [true, false]);
    assert.equal((await call(sim, 'PUT', `/api/v0/asks/${offerId}/`, { image: 'ubuntu', disk: 10 })).status, 200);
  });

  it('validates a rent: image or template, onstart size, label size, disk, unknown offer or template', async () => {
    const offerId = (
      obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, limit: 1 })).offers as Array<{ id: number }>
    )[0]!.id;
    const rent = (body: unknown) => call(sim, 'PUT', `/api/v0/asks/${offerId}/`, body);
    const noImage = await rent({ disk: 10 });
    assert.equal(noImage.status, 400);
    assert.equal(obj(noImage).error, 'invalid_args');
    assert.equal((await rent({ image: 'ubuntu', disk: 10, onstart: 'x'.repeat(4049) })).status, 400);
    assert.equal((await rent({ image: 'ubuntu', disk: 10, onstart: 'x'.repeat(4048), label: 'y'.repeat(1025) })).status, 400);
    assert.equal((await rent({ image: 'ubuntu', disk: 999_999 })).status, 400);
    assert.equal((await rent({ template_hash_id: 'f'.repeat(32), disk: 10 })).status, 404);
    assert.equal((await call(sim, 'PUT', '/api/v0/asks/1/', { image: 'ubuntu', disk: 10 })).status, 404);
    assert.equal((await rent({ image: 'ubuntu', disk: 10, onstart: 'x'.repeat(4048) })).status, 200);
  });

  it('fills a rent from a template; body fields win and env merges', async () => {
    const templates = obj(await call(sim, 'GET', `/api/v0/template/?select_filters=${q({ name: { eq: 'PyTorch (CUDA)' } })}`))
      .templates as Array<Record<string, unknown>>;
    const t = templates[0]!;
    const { id } = await rentOne(sim, { image: undefined, template_hash_id: t.hash_id, disk: 20, env: { EXTRA: '1' } });
    const r = (await show(sim, id))!;
    assert.equal(r.image_uuid, `${String(t.image)}:${String(t.tag)}`);
    assert.equal(r.template_hash_id, t.hash_id);
    assert.equal(r.template_name, 'PyTorch (CUDA)');
    assert.match(String(r.image_runtype), /ssh/);
    assert.deepEqual(r.extra_env, [
      ['JUPYTER_DIR', '/'],
      ['-p 8888:8888', '1'],
      ['EXTRA', '1'],
    ]);
    const { id: other } = await rentOne(sim, { template_hash_id: t.hash_id, image: 'custom/image:1', disk: 20 });
    assert.equal((await show(sim, other))!.image_uuid, 'custom/image:1');
  });

  it('labels (<= 1024 characters) and refuses a bad state', async () => {
    const { id } = await rentOne(sim);
    const labelled = obj(await call(sim, 'PUT', `/api/v0/instances/${id}/`, { label: 'hello' }));
    assert.equal(labelled.success, true);
    assert.equal((await show(sim, id))!.label, 'hello');
    const long = await call(sim, 'PUT', `/api/v0/instances/${id}/`, { label: 'x'.repeat(1025) });
    assert.equal(long.status, 400);
    assert.equal(obj(long).error, 'label_too_long');
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'paused' })).status, 400);
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/reboot/${id}/`, {})).status, 400, 'cannot reboot before it runs');
  });

  it("shows someone else's instance as null, like a missing one", async () => {
    const { id } = await rentOne(sim);
    const other = sim.control.addAccount({ credit: 10 });
    assert.deepEqual(obj(await call(sim, 'GET', `/api/v0/instances/${id}/`, undefined, other.key)), { instances: null });
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${id}/`, {}, other.key)).status, 404);
    assert.ok(await show(sim, id), 'still there for its owner');
  });

  it('lists v1 in keyset pages of at most 25, with filters, order and label counts', async () => {
    const offers = obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, order: [['id', 'asc']], limit: 30 }))
      .offers as Array<{ id: number }>;
    const ids: number[] = [];
    for (const [i, o] of offers.entries()) {
      const created = obj(await call(sim, 'PUT', `/api/v0/asks/${o.id}/`, { image: 'ubuntu', disk: 10, label: i % 3 === 0 ? 'a' : null }));
      ids.push(created.new_contract as number);
    }
    const first = obj(await call(sim, 'GET', `/api/v1/instances/?limit=${q(100)}&order_by=${q([{ col: 'id', dir: 'desc' }])}`));
    assert.equal(first.success, true);
    assert.equal(first.instances_found, 25);
    assert.equal(first.total_instances, 30);
    assert.deepEqual(first.label_counts, { a: 10, '': 20 });
    const page1 = (first.instances as Array<{ id: number }>).map((i) => i.id);
    assert.deepEqual(page1, [...ids].sort((a, b) => b - a).slice(0, 25));
    const second = obj(
      await call(
        sim,
        'GET',
        `/api/v1/instances/?limit=25&order_by=${q([{ col: 'id', dir: 'desc' }])}&after_token=${encodeURIComponent(String(first.next_token))}`,
      ),
    );
    assert.deepEqual(
      (second.instances as Array<{ id: number }>).map((i) => i.id),
      [...ids].sort((a, b) => b - a).slice(25),
    );
    assert.equal(second.next_token, null);
    const small = obj(await call(sim, 'GET', `/api/v1/instances/?limit=0`));
    assert.equal(small.instances_found, 5, 'limit <= 0 means 5');
    const labelled = obj(await call(sim, 'GET', `/api/v1/instances/?select_filters=${q({ label: { eq: 'a' } })}`));
    assert.equal(labelled.total_instances, 10);
    assert.equal(
      (await call(sim, 'GET', `/api/v1/instances/?select_filters=${q({ dph_total: { lt: 1 } })}`)).status,
      400,
      'computed columns are not filterable',
    );
    assert.equal((await call(sim, 'GET', '/api/v1/instances/?after_token=garbage')).status, 400);
    const v0 = obj(await call(sim, 'GET', '/api/v0/instances/?owner=me'));
    assert.equal(v0.instances_found, 30);
  });

  it('serves logs at an unauthenticated result URL that answers 404 first', async () => {
    const real = await startSimulator({ bootSeconds: 0.1, logReadyMs: 150 });
    try {
      const { id } = await rentOne(real, { onstart: 'echo hi' });
      await eventually(async () => (await show(real, id))!.actual_status === 'running', 'running');
      const res = obj(await call(real, 'PUT', `/api/v0/instances/request_logs/${id}/`, { tail: '1000' }));
      assert.equal(res.success, true);
      const url = String(res.result_url);
      assert.ok(url.startsWith(real.url), url);
      const early = await fetch(url);
      assert.equal(early.status, 404);
      await early.text();
      const text = await eventually(async () => {
        const r = await fetch(url);
        const body = await r.text();
        return r.status === 200 ? body : undefined;
      }, 'the log to be readable');
      assert.match(text, /Pulling image ubuntu:22.04/);
      assert.match(text, /onstart/);
      const tail = obj(await call(real, 'PUT', `/api/v0/instances/request_logs/${id}/`, { tail: 1 }));
      const one = await eventually(async () => {
        const r = await fetch(String(tail.result_url));
        const body = await r.text();
        return r.status === 200 ? body : undefined;
      }, 'the one-line log to be readable');
      assert.equal(one.trim().split('\n').length, 1);
      assert.ok(!url.includes(DEMO_KEY));
    } finally {
      await real.stop();
    }
  });

  it('gives a new instance the account SSH keys of that moment, and attaches more later', async () => {
    const key1 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1 one@test';
    const key2 = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCtest two@test';
    await call(sim, 'POST', '/api/v0/ssh/', { ssh_key: key1 });
    const { id } = await rentOne(sim);
    await call(sim, 'POST', '/api/v0/ssh/', { ssh_key: key2 });
    const listed = obj(await call(sim, 'GET', `/api/v0/instances/${id}/ssh/`));
    assert.equal(typeof listed.ssh_keys, 'string', 'the list comes as a JSON string');
    assert.deepEqual(
      (JSON.parse(String(listed.ssh_keys)) as Array<{ public_key: string }>).map((k) => k.public_key),
      [key1],
    );
    assert.equal(obj(await call(sim, 'POST', `/api/v0/instances/${id}/ssh/`, { ssh_key: key2 })).success, true);
    const both = JSON.parse(String(obj(await call(sim, 'GET', `/api/v0/instances/${id}/ssh/`)).ssh_keys)) as Array<{
      id: number;
      name: string;
      public_key: string;
    }>;
    assert.deepEqual(
      both.map((k) => k.name),
      ['one@test', 'two@test'],
    );
    assert.equal(obj(await call(sim, 'DELETE', `/api/v0/instances/${id}/ssh/${both[0]!.id}/`)).success, true);
    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${id}/ssh/${both[0]!.id}/`)).status, 404);
    assert.equal((await call(sim, 'POST', `/api/v0/instances/${id}/ssh/`, { ssh_key: 'not a key' })).status, 400);
  });
});
