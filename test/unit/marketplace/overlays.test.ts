import assert from 'node:assert/strict';
import { generateOffers, OFFER_FIELD_KINDS } from '../../marketplace/catalogue';
import { call, DEMO_KEY, obj, q, rentOne, show, simulatorForSuite } from '../../support';

const OVERLAY = '/api/v0/overlay/';

interface Listed {
  id: number;
  machine_id: number;
  cluster_id: number | null;
  gpu_name: string;
  rentable: boolean;
}

describe('marketplace: clusters and overlay networks', () => {
  const sim = simulatorForSuite({ bootSeconds: 0 }, { each: true });

  const search = async (query: Record<string, unknown>): Promise<Listed[]> => {
    const res = await call(sim, 'POST', '/api/v0/bundles/', { ...query, order: [['id', 'asc']] });
    assert.equal(res.status, 200, res.text);
    return obj(res).offers as Listed[];
  };
  /** A cluster with at least `n` rentable machines of one GPU model, and those offers. */
  const aCluster = async (n = 4): Promise<{ clusterId: number; offers: Listed[] }> => {
    const byCluster = new Map<string, Listed[]>();
    for (const o of await search({ cluster_id: { neq: 'None' }, rentable: { eq: true } })) {
      const k = `${o.cluster_id}|${o.gpu_name}`;
      byCluster.set(k, [...(byCluster.get(k) ?? []), o]);
    }
    const offers = [...byCluster.values()].find((list) => list.length >= n);
    assert.ok(offers, `a cluster with ${n} rentable machines of one model`);
    return { clusterId: offers[0]!.cluster_id!, offers };
  };
  const outside = async (clusterId: number): Promise<Listed> => {
    const [o] = await search({ cluster_id: { eq: null }, rentable: { eq: true }, limit: 1 });
    assert.ok(o && o.cluster_id !== clusterId);
    return o;
  };
  const overlays = async (key = DEMO_KEY) => {
    const res = await call(sim, 'GET', OVERLAY, undefined, key);
    assert.equal(res.status, 200, res.text);
    return res.json as Array<Record<string, unknown>>;
  };
  const expectRefusal = async (method: string, path: string, body: unknown, status: number, error: string) => {
    const res = await call(sim, method, path, body);
    assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
    const b = obj(res);
    assert.equal(b.success, false);
    assert.equal(b.error, error, `${method} ${JSON.stringify(body)}`);
    assert.equal(typeof b.msg, 'string');
  };
  const rentInto = async (offerId: number, env: unknown) =>
    call(sim, 'PUT', `/api/v0/asks/${offerId}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 10, env });
  const instanceCount = async () => (obj(await call(sim, 'GET', '/api/v0/instances/')).instances as unknown[]).length;

  it('creates, lists, adds to and deletes overlays in the shapes the CLI reads', async () => {
    const { clusterId, offers } = await aCluster(2);
    assert.deepEqual(await overlays(), []);
    const created = await call(sim, 'POST', OVERLAY, { cluster_id: clusterId, name: 'train-a' });
    assert.equal(created.status, 200, created.text);
    assert.equal(obj(created).success, true);
    assert.equal(typeof obj(created).msg, 'string', 'the CLI prints msg');
    const { id } = await rentOne(sim); // anywhere; not in the overlay
    const node = obj(await rentInto(offers[0]!.id, {})).new_contract as number;
    const added = await call(sim, 'PUT', OVERLAY, { name: 'train-a', instance_id: node });
    assert.equal(added.status, 200, added.text);
    assert.equal(typeof obj(added).msg, 'string');
    const [listed] = await overlays();
    assert.deepEqual(Object.keys(listed!).sort(), ['cluster_id', 'instances', 'internal_subnet', 'name', 'overlay_id']);
    assert.equal(listed!.name, 'train-a');
    assert.equal(listed!.cluster_id, clusterId);
    assert.match(String(listed!.internal_subnet), /^10\.77\.\d+\.0\/24$/);
    assert.deepEqual(listed!.instances, [node]);
    assert.ok(!(listed!.instances as number[]).includes(id));

    await call(sim, 'POST', OVERLAY, { cluster_id: String(clusterId), name: 'train-b' });
    const byId = (await overlays()).find((o) => o.name === 'train-b')!.overlay_id;
    assert.equal((await call(sim, 'DELETE', OVERLAY, { overlay_id: byId })).status, 200);
    assert.equal((await call(sim, 'DELETE', OVERLAY, { overlay_name: 'train-a' })).status, 200);
    assert.deepEqual(await overlays(), []);
    assert.ok(await show(sim, node), 'deleting the overlay leaves its member rented');
    assert.equal(sim.control.overlayOf(node), null, 'and out of any overlay');
  });

  it('refuses clearly: unknown overlay or cluster, a name taken or invalid, an instance outside the cluster', async () => {
    const { clusterId } = await aCluster(2);
    const stranger = await outside(clusterId);
    await call(sim, 'POST', OVERLAY, { cluster_id: clusterId, name: 'taken' });
    await expectRefusal('POST', OVERLAY, { cluster_id: clusterId, name: 'taken' }, 400, 'overlay_exists');
    for (const name of ['Train', 'a_b', 'a b', 'ü', ''])
      await expectRefusal('POST', OVERLAY, { cluster_id: clusterId, name }, 400, 'invalid_name');
    await expectRefusal('POST', OVERLAY, { cluster_id: 999_999, name: 'x' }, 404, 'no_such_cluster');
    await expectRefusal('POST', OVERLAY, { name: 'x' }, 400, 'invalid_args');
    const away = obj(await rentInto(stranger.id, {})).new_contract as number;
    await expectRefusal('PUT', OVERLAY, { name: 'taken', instance_id: away }, 400, 'wrong_cluster');
    await expectRefusal('PUT', OVERLAY, { name: 'nope', instance_id: away }, 404, 'no_such_overlay');
    await expectRefusal('PUT', OVERLAY, { name: 'taken', instance_id: 1 }, 404, 'no_such_instance');
    await expectRefusal('DELETE', OVERLAY, { overlay_name: 'nope' }, 404, 'no_such_overlay');
    await expectRefusal('DELETE', OVERLAY, { overlay_id: 1 }, 404, 'no_such_overlay');
    await expectRefusal('DELETE', OVERLAY, {}, 400, 'invalid_args');
    assert.deepEqual((await overlays())[0]!.instances, [], 'a refused join adds nothing');

    const other = sim.control.addAccount();
    assert.deepEqual(await overlays(other.key), [], "another account does not see this one's overlays");
    assert.equal(
      (await call(sim, 'POST', OVERLAY, { cluster_id: clusterId, name: 'taken' }, other.key)).status,
      200,
      'names are per account',
    );
  });

  it('asks for user_read to list and user_write to change, and refuses instance keys', async () => {
    const { clusterId } = await aCluster(2);
    const keyWith = async (api: Record<string, unknown>) =>
      obj(await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'scoped', permissions: { api } })).key as string;
    const reader = await keyWith({ user_read: {} });
    const renter = await keyWith({ instance_read: {}, instance_write: {} });
    assert.equal((await call(sim, 'GET', OVERLAY, undefined, reader)).status, 200);
    assert.equal((await call(sim, 'GET', '/api/v0/clusters/', undefined, reader)).status, 200);
    for (const [method, body] of [
      ['POST', { cluster_id: clusterId, name: 'x' }],
      ['PUT', { name: 'x', instance_id: 1 }],
      ['DELETE', { overlay_name: 'x' }],
    ] as const) {
      const res = await call(sim, method, OVERLAY, body, reader);
      assert.equal(res.status, 403, `${method} with user_read only: ${res.text}`);
      assert.equal(obj(res).error, 'permission_denied');
    }
    for (const path of [OVERLAY, '/api/v0/clusters/']) assert.equal((await call(sim, 'GET', path, undefined, renter)).status, 403, path);
    const { instanceKey } = await rentOne(sim);
    assert.equal((await call(sim, 'GET', OVERLAY, undefined, instanceKey)).status, 403, 'an instance key');
    assert.equal((await call(sim, 'GET', OVERLAY, undefined, null)).status, 401, 'no key');
    assert.deepEqual(await overlays(), [], 'nothing was made');
  });

  it('joins at rent with -n NAME, addresses nodes in join order, and a destroyed node leaves', async () => {
    const { clusterId, offers } = await aCluster(4);
    await call(sim, 'POST', OVERLAY, { cluster_id: clusterId, name: 'job' });
    const ids: number[] = [];
    for (const [k, o] of offers.slice(0, 3).entries()) {
      // The CLI's --env "-n job" arrives as the key "-n job"; a docker-flag string says the same.
      const res = await rentInto(o.id, k === 2 ? '-e A=1 -n job' : { '-n job': '1', A: '1' });
      assert.equal(res.status, 200, res.text);
      ids.push(obj(res).new_contract as number);
    }
    const [listed] = await overlays();
    assert.deepEqual(listed!.instances, ids);
    const subnet = String(listed!.internal_subnet);
    const prefix = subnet.replace(/\.0\/24$/, '');
    assert.deepEqual(
      ids.map((id) => sim.control.overlayOf(id)?.address),
      [`${prefix}.1`, `${prefix}.2`, `${prefix}.3`],
    );
    assert.deepEqual((({ name, subnet: s, index }) => ({ name, s, index }))(sim.control.overlayOf(ids[1]!)!), {
      name: 'job',
      s: subnet,
      index: 2,
    });
    const over = obj(await call(sim, 'GET', `/__control/instances/${ids[0]}/overlay`, undefined, null)).overlay as Record<string, unknown>;
    assert.equal(over.address, `${prefix}.1`);

    const record = (await show(sim, ids[0]!))!;
    assert.equal(record.cluster_id, clusterId);

    assert.equal((await call(sim, 'DELETE', `/api/v0/instances/${ids[1]}/`)).status, 200);
    assert.deepEqual((await overlays())[0]!.instances, [ids[0], ids[2]], 'a destroyed node leaves its overlay');
    assert.equal(sim.control.overlayOf(ids[1]!), null);
    const again = obj(await rentInto(offers[3]!.id, { '-n job': '1' })).new_contract as number;
    assert.equal(sim.control.overlayOf(again)?.address, `${prefix}.2`, 'the freed address goes to the next to join');
    assert.equal(sim.control.overlayOf(ids[2]!)?.address, `${prefix}.3`, 'the others keep theirs');

    const clusters = obj(await call(sim, 'GET', '/api/v0/clusters/')).clusters as Record<string, Record<string, unknown>>;
    const mine = clusters[String(clusterId)]!;
    const nodes = mine.nodes as Array<{ machine_id: number; is_cluster_manager: boolean; local_ip: string }>;
    for (const o of offers)
      assert.ok(
        nodes.some((n) => n.machine_id === o.machine_id),
        `machine ${o.machine_id} is a node`,
      );
    assert.equal(nodes.filter((n) => n.is_cluster_manager).length, 1, 'one manager, as the CLI expects');
    assert.match(String(mine.subnet), /^\d+\.\d+\.\d+\.0\/24$/);
    for (const n of nodes) assert.match(n.local_ip, /^\d+\.\d+\.\d+\.\d+$/);
  });

  it('rents nothing when -n names an unknown overlay or the offer is outside its cluster', async () => {
    const { clusterId, offers } = await aCluster(2);
    const stranger = await outside(clusterId);
    await call(sim, 'POST', OVERLAY, { cluster_id: clusterId, name: 'job' });
    const before = await instanceCount();
    const unknown = await rentInto(offers[0]!.id, { '-n nope': '1' });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(obj(unknown).error, 'no_such_overlay');
    const wrong = await rentInto(stranger.id, { '-n job': '1', SECRET_TOKEN: 'hunter2-value' });
    assert.equal(wrong.status, 400, wrong.text);
    assert.equal(obj(wrong).error, 'wrong_cluster');
    assert.ok(!wrong.text.includes('hunter2-value'), 'the env stays out of the refusal');
    assert.equal(await instanceCount(), before, 'no instance was made');
    const still = await search({ id: { eq: stranger.id } });
    assert.equal(still[0]!.rentable, true, 'the offer is still rentable');
    assert.deepEqual((await overlays())[0]!.instances, []);
  });

  it('filters cluster_id sent as text, and types other nullable fields from every row', async () => {
    const { clusterId, offers } = await aCluster(2);
    const byText = await search({ cluster_id: { eq: String(clusterId) } });
    assert.ok(byText.length >= offers.length, `cluster_id "${clusterId}" as text finds the cluster`);
    assert.ok(byText.every((o) => o.cluster_id === clusterId));
    assert.deepEqual(
      (await search({ cluster_id: { in: [String(clusterId)] } })).map((o) => o.id),
      byText.map((o) => o.id),
    );
    const clustered = await search({ cluster_id: { neq: 'None' } });
    assert.ok(clustered.length > byText.length && clustered.every((o) => o.cluster_id !== null));

    // Instances: template_id is null on the first (rented from an image) and set on the second.
    await rentOne(sim);
    const templates = obj(await call(sim, 'GET', '/api/v0/template/')).templates as Array<{ id: number; hash_id: string }>;
    const template = templates[0]!;
    const second = await rentOne(sim, { image: undefined, template_hash_id: template.hash_id });
    const v1 = obj(await call(sim, 'GET', `/api/v1/instances/?select_filters=${q({ template_id: { eq: String(template.id) } })}`));
    assert.deepEqual(
      (v1.instances as Array<{ id: number }>).map((i) => i.id),
      [second.id],
      'template_id sent as text finds the instance',
    );
  });

  it('types every offer field from its definition', () => {
    const offers = generateOffers(300, 1);
    const fields = new Set(offers.flatMap((o) => Object.keys(o)));
    assert.deepEqual([...fields].sort(), Object.keys(OFFER_FIELD_KINDS).sort(), 'one kind per field, no more');
    for (const o of offers)
      for (const [field, value] of Object.entries(o)) {
        if (value === null) continue;
        assert.equal(typeof value, OFFER_FIELD_KINDS[field], `${field} of offer ${o.id}`);
      }
  });

  it('has seeded clusters of 4 or more rentable machines of one GPU model', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const offers = generateOffers(300, seed);
      const groups = new Map<string, number>();
      for (const o of offers.filter((x) => x.cluster_id !== null && x.rentable)) {
        const k = `${o.cluster_id}|${o.gpu_name}|${o.num_gpus}`;
        groups.set(k, (groups.get(k) ?? 0) + 1);
      }
      const big = [...groups.values()].filter((n) => n >= 4);
      assert.ok(big.length >= 2, `seed ${seed}: ${big.length} clusters of 4+`);
      assert.deepEqual(generateOffers(300, seed), offers, 'the same for the same seed');
    }
  });

  it('faults: a refused overlay create makes nothing; a node taken between search and create', async () => {
    const { clusterId, offers } = await aCluster(2);
    sim.control.addFault({ kind: 'refused', method: 'POST', path: '/api/v0/overlay', error: 'overlay_failed', msg: 'No capacity.' });
    const refused = await call(sim, 'POST', OVERLAY, { cluster_id: clusterId, name: 'job' });
    assert.equal(refused.status, 400);
    assert.deepEqual(obj(refused), { success: false, error: 'overlay_failed', msg: 'No capacity.' });
    assert.deepEqual(await overlays(), [], 'a refused create makes nothing');
    assert.equal((await call(sim, 'POST', OVERLAY, { cluster_id: clusterId, name: 'job' })).status, 200, 'the next one works');

    const [first, second] = offers;
    sim.control.addFault({ kind: 'offer_taken', path: `/api/v0/asks/${first!.id}/` });
    assert.equal((await call(sim, 'GET', OVERLAY)).status, 200, 'another request does not use it up');
    const before = await instanceCount();
    const taken = await rentInto(first!.id, { '-n job': '1' });
    assert.equal(taken.status, 404, taken.text);
    assert.equal(obj(taken).error, 'invalid_args');
    assert.match(String(obj(taken).msg), /no_such_ask/);
    assert.equal(await instanceCount(), before, 'no instance for a taken node');
    const [now] = await search({ id: { eq: first!.id } });
    assert.deepEqual([now!.rentable, (now as unknown as { rented: boolean }).rented], [false, true], 'searches show it rented');
    assert.equal((await rentInto(first!.id, {})).status, 404, 'it stays taken');
    assert.equal((await rentInto(second!.id, { '-n job': '1' })).status, 200, 'a spare of the same cluster can replace it');
  });
});
