import assert from 'node:assert/strict';
import { call, obj, PUBLIC_KEY, q, show, simulatorForSuite } from '../../support';

describe('marketplace: SSH keys, templates, volumes, serverless and team envelopes', () => {
  const sim = simulatorForSuite({}, { each: true, clock: true });

  it('account SSH keys: bare list, created key object, 400 no_ssh_key, delete', async () => {
    const created = obj(await call(sim, 'POST', '/api/v0/ssh/', { ssh_key: PUBLIC_KEY }));
    const key = created.key as Record<string, unknown>;
    assert.deepEqual(Object.keys(key).sort(), ['created_at', 'deleted_at', 'id', 'public_key', 'user_id']);
    const list = (await call(sim, 'GET', '/api/v0/ssh/')).json as Array<Record<string, unknown>>;
    assert.deepEqual(
      list.map((k) => [k.id, k.key]),
      [[key.id, PUBLIC_KEY]],
    );
    assert.equal(obj(await call(sim, 'GET', '/api/v0/users/current/')).ssh_key, PUBLIC_KEY);
    for (const bad of ['', '   ', '-----BEGIN OPENSSH PRIVATE KEY-----', 'ssh-ed25519']) {
      const res = await call(sim, 'POST', '/api/v0/ssh/', { ssh_key: bad });
      assert.equal(res.status, 400);
      assert.equal(obj(res).error, 'no_ssh_key');
    }
    assert.deepEqual(obj(await call(sim, 'DELETE', `/api/v0/ssh/${String(key.id)}/`)), { success: true });
    assert.deepEqual((await call(sim, 'GET', '/api/v0/ssh/')).json, []);
  });

  it('templates: public ones, create (idempotent), edit to a new hash, delete by id or hash', async () => {
    const found = obj(await call(sim, 'GET', '/api/v0/template/'));
    assert.equal(found.success, true);
    assert.ok((found.templates as Array<{ image: string }>).some((t) => t.image === 'pytorch/pytorch'));
    assert.equal(found.templates_found, (found.templates as unknown[]).length);
    const body = {
      name: 'exp',
      image: 'nvcr.io/nvidia/pytorch',
      tag: '24.05-py3',
      env: '-e A=1 -p 8000:8000',
      runtype: 'ssh',
      recommended_disk_space: 30,
    };
    const made = obj(await call(sim, 'POST', '/api/v0/template/', body));
    const t = made.template as Record<string, unknown>;
    assert.match(String(made.msg), /Template Created Successfully/);
    assert.match(String(t.hash_id), /^[0-9a-f]{32}$/);
    assert.equal(t.env, '-e A=1 -p 8000:8000');
    assert.equal(
      (obj(await call(sim, 'POST', '/api/v0/template/', body)).template as { id: number }).id,
      t.id,
      'an identical template is returned, not copied',
    );
    assert.equal((await call(sim, 'POST', '/api/v0/template/', { name: 'no image' })).status, 400);
    const edited = obj(await call(sim, 'PUT', '/api/v0/template/', { hash_id: t.hash_id, desc: 'changed' })).template as Record<
      string,
      unknown
    >;
    assert.equal(edited.id, t.id);
    assert.notEqual(edited.hash_id, t.hash_id);
    assert.equal(edited.desc, 'changed');
    assert.equal((await call(sim, 'PUT', '/api/v0/template/', { hash_id: t.hash_id, desc: 'stale' })).status, 404);
    const ordered = obj(
      await call(
        sim,
        'GET',
        `/api/v0/template/?order_by=${q([{ col: 'name', dir: 'desc' }])}&select_filters=${q({ recommended_disk_space: { gte: '16' } })}`,
      ),
    ).templates as Array<{ name: string; recommended_disk_space: number }>;
    assert.ok(ordered.length > 1 && ordered.every((x) => x.recommended_disk_space >= 16));
    assert.deepEqual(
      ordered.map((x) => x.name),
      [...ordered.map((x) => x.name)].sort().reverse(),
    );
    const publicOne = (found.templates as Array<{ id: number }>)[0]!;
    assert.equal((await call(sim, 'DELETE', '/api/v0/template/', { template_id: publicOne.id })).status, 403, "someone else's template");
    assert.deepEqual(obj(await call(sim, 'DELETE', '/api/v0/template/', { hash_id: edited.hash_id })), { success: true });
    assert.equal((await call(sim, 'DELETE', '/api/v0/template/', { template_id: t.id })).status, 404);
  });

  it('volumes: search, rent, attach at instance creation, refuse delete while used', async () => {
    const offers = obj(
      await call(sim, 'POST', '/api/v0/volumes/search/', { disk_space: { gte: 100 }, order: [['storage_cost', 'asc']], limit: 3 }),
    ).offers as Array<{ id: number; disk_space: number; storage_cost: number; machine_id: number }>;
    assert.equal(offers.length, 3);
    assert.ok(offers.every((o) => o.disk_space >= 100 && typeof o.storage_cost === 'number'));
    const rented = obj(await call(sim, 'PUT', '/api/v0/volumes/', { id: offers[0]!.id, size: 100, name: 'data' }));
    assert.match(String(rented.volume_name), /^V\.\d+$/);
    const volumes = obj(await call(sim, 'GET', '/api/v0/volumes/?owner=me&type=all_volume')).volumes as Array<Record<string, unknown>>;
    assert.equal(volumes.length, 1);
    const v = volumes[0]!;
    assert.deepEqual([v.label, v.disk_space, v.machine_id, v.instances], ['data', 100, offers[0]!.machine_id, []]);
    assert.ok((v.storage_total_cost as number) > 0);
    assert.deepEqual(obj(await call(sim, 'DELETE', '/api/v0/volumes/', { id: v.id })), { success: true });
    const missing = await call(sim, 'DELETE', '/api/v0/volumes/?id=5');
    assert.equal(missing.status, 404);
    assert.equal(obj(missing).error, 'no_such_volume');
  });

  it('serverless: endpoints and worker groups on both route families', async () => {
    const made = obj(await call(sim, 'POST', '/api/v0/endptjobs/', { client_id: 'me', endpoint_name: 'llm', max_workers: 4 }));
    assert.equal(made.success, true);
    const id = made.result as number;
    const list = obj(await call(sim, 'GET', '/api/v0/endptjobs/'));
    const e = (list.results as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual([e.id, e.endpoint_name, e.max_workers, e.endpoint_state], [id, 'llm', 4, 'active']);
    assert.equal((await call(sim, 'PUT', `/api/v0/endptjobs/${id}/`, { endpoint_state: 'paused' })).status, 400);
    assert.deepEqual(obj(await call(sim, 'PUT', `/api/v0/endptjobs/${id}/`, { endpoint_state: 'suspended' })), { success: true });
    const hash = (obj(await call(sim, 'GET', '/api/v0/template/')).templates as Array<{ hash_id: string }>)[0]!.hash_id;
    const g1 = obj(
      await call(sim, 'POST', '/api/v0/workergroups/', {
        endpoint_name: 'llm',
        template_hash: hash,
        search_params: 'gpu_ram>=24 num_gpus=1',
      }),
    ).id as number;
    const g2 = obj(await call(sim, 'POST', '/api/v0/autojobs/', { endpoint_id: id, template_hash: hash })).id as number;
    const groups = obj(await call(sim, 'GET', '/api/v0/autojobs/')).results as Array<Record<string, unknown>>;
    assert.deepEqual(
      groups.map((g) => g.id),
      [g1, g2],
    );
    assert.deepEqual(groups[0]!.search_query, { gpu_ram: { gte: '24' }, num_gpus: { eq: '1' } });
    assert.equal((await call(sim, 'POST', '/api/v0/workergroups/', { endpoint_name: 'nope', template_hash: hash })).status, 400);
    assert.equal(obj(await call(sim, 'DELETE', `/api/v0/workergroups/${g2}/`, {})).success, true);
    assert.equal((await call(sim, 'DELETE', `/api/v0/autojobs/${g2}/`, {})).status, 404);
    assert.equal(obj(await call(sim, 'DELETE', `/api/v0/endptjobs/${id}/`, {})).success, true);
    assert.deepEqual(obj(await call(sim, 'GET', '/api/v0/workergroups/')).results, [], 'worker groups go with their endpoint');
  });

  it('team: members, invite (body or query), remove, roles', async () => {
    const members = (await call(sim, 'GET', '/api/v0/team/members/')).json as Array<Record<string, unknown>>;
    assert.equal(members.length, 1);
    assert.deepEqual(members[0]!.roles, ['owner']);
    assert.equal(obj(await call(sim, 'POST', '/api/v0/team/invite/', { email: 'ada@example.com', role: 'member' })).success, true);
    assert.equal(
      obj(await call(sim, 'POST', '/api/v0/team/invite/?email=bob%40example.com&role=manager', {})).msg,
      'New invitation sent to bob@example.com',
    );
    assert.equal((await call(sim, 'POST', '/api/v0/team/invite/', { email: 'ada@example.com', role: 'member' })).status, 400);
    const all = (await call(sim, 'GET', '/api/v0/team/members/')).json as Array<{ id: number; email: string; roles: string[] }>;
    assert.deepEqual(all.map((m) => [m.email, m.roles]).slice(1), [
      ['ada@example.com', ['member']],
      ['bob@example.com', ['manager']],
    ]);
    const owner = await call(sim, 'DELETE', `/api/v0/team/members/${members[0]!.id as number}/`);
    assert.equal(owner.status, 400);
    assert.deepEqual(obj(await call(sim, 'DELETE', `/api/v0/team/members/${all[1]!.id}/`)), {
      status: 'success',
      message: 'User removed from the team.',
    });
    const roles = (await call(sim, 'GET', '/api/v0/team/roles-full/')).json as Array<{ id: number; name: string; identifier: string }>;
    assert.deepEqual(
      roles.map((r) => r.name),
      ['manager', 'member'],
      'owner is not listed',
    );
    assert.deepEqual(obj(await call(sim, 'POST', '/api/v0/team/roles/', { name: 'auditor', permissions: { api: { billing_read: {} } } })), {
      msg: 'success',
    });
    const auditor = ((await call(sim, 'GET', '/api/v0/team/roles-full/')).json as Array<{ id: number; name: string }>).find(
      (r) => r.name === 'auditor',
    )!;
    assert.equal(
      (
        await call(sim, 'PUT', `/api/v0/team/roles/${auditor.id}/`, {
          name: 'auditor',
          permissions: { api: { billing_read: {}, instance_read: {} } },
        })
      ).json,
      'Successfully Updated Team Role For auditor',
    );
    assert.deepEqual(obj(await call(sim, 'DELETE', '/api/v0/team/roles/auditor/')), {
      status: 'success',
      message: 'Role removed from team',
    });
    assert.equal((await call(sim, 'DELETE', '/api/v0/team/roles/owner/')).status, 403);
  });

  it('volumes attach at instance creation on the same machine, new or existing, and block deletion while used', async () => {
    const gpu = obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, limit: 2 })).offers as Array<{
      id: number;
      machine_id: number;
    }>;
    const [volumeOffer] = obj(await call(sim, 'POST', '/api/v0/volumes/search/', { machine_id: { eq: gpu[0]!.machine_id } }))
      .offers as Array<{ id: number }>;
    const volumeName = String(obj(await call(sim, 'PUT', '/api/v0/volumes/', { id: volumeOffer!.id, size: 20 })).volume_name);
    const volumeId = Number(volumeName.slice(2));
    const created = obj(
      await call(sim, 'PUT', `/api/v0/asks/${gpu[0]!.id}/`, {
        image: 'ubuntu',
        disk: 10,
        volume_info: { create_new: false, volume_id: volumeId, mount_path: '/data' },
      }),
    );
    const id = created.new_contract as number;
    assert.deepEqual(
      ((await show(sim, id))!.volume_info as Array<{ volume_id: number }>).map((x) => x.volume_id),
      [volumeId],
    );
    const used = obj(await call(sim, 'GET', '/api/v0/volumes/')).volumes as Array<{ instances: number[] }>;
    assert.deepEqual(used[0]!.instances, [id]);
    const refused = await call(sim, 'DELETE', `/api/v0/volumes/?id=${volumeId}`);
    assert.equal(refused.status, 400);
    await call(sim, 'DELETE', `/api/v0/instances/${id}/`, {});
    assert.deepEqual(obj(await call(sim, 'DELETE', `/api/v0/volumes/?id=${volumeId}`)), { success: true });
    const elsewhere = await call(sim, 'PUT', `/api/v0/asks/${gpu[1]!.id}/`, {
      image: 'ubuntu',
      disk: 10,
      volume_info: { create_new: true, volume_id: volumeOffer!.id, size: 5, mount_path: '/d' },
    });
    assert.equal(elsewhere.status, 400, 'a local volume must be on the instance machine');
    const fresh = obj(
      await call(sim, 'PUT', `/api/v0/asks/${gpu[0]!.id}/`, {
        image: 'ubuntu',
        disk: 10,
        volume_info: { create_new: true, volume_id: volumeOffer!.id, size: 5, mount_path: '/d', name: 'new' },
      }),
    );
    assert.equal(fresh.success, true);
    const vols = obj(await call(sim, 'GET', '/api/v0/volumes/')).volumes as Array<{ label: string; instances: number[] }>;
    assert.deepEqual(
      vols.map((v) => [v.label, v.instances]),
      [['new', [fresh.new_contract]]],
    );
    await sim.clock.advance(3_600_000);
    const charges = obj(await call(sim, 'GET', `/api/v0/charges/?select_filters=${q({ day: { gte: 0, lte: sim.clock.now() / 1000 } })}`))
      .results as Array<{ type: string }>;
    assert.deepEqual(charges.map((c) => c.type).sort(), ['instance', 'instance', 'volume', 'volume']);
  });
});
