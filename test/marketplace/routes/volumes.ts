/**
 * Local volumes. Every catalogue machine also offers storage (a volume offer); renting one makes a
 * volume billed at its `storage_cost` for the size, until it is deleted. A volume can be attached
 * when an instance on the same machine is created (`volume_info`), and cannot be deleted while an
 * instance uses it.
 */
import { CATALOGUE_EPOCH, type Offer } from '../catalogue';
import { storagePerHour } from '../pricing';
import { kindsOf, parseSearch, QueryError, runSearch } from '../filters';
import { closeContract } from '../ledger';
import type { VolumeRecord } from '../model';
import { round } from '../random';
import { epoch, fail, isObject, num, ok, type Ctx, type RouteDef, type Sim, saved } from '../router';

/** Volume offer ids live in their own range, derived from the machine's offer. */
const VOLUME_OFFER_BASE = 70_000_000;
const cache = new WeakMap<Offer[], Array<{ id: number; offer: Offer }>>();

function volumeOffers(sim: Sim): Array<{ id: number; offer: Offer }> {
  let list = cache.get(sim.offers);
  if (!list) {
    list = sim.offers.map((offer, i) => ({ id: VOLUME_OFFER_BASE + i * 3 + (offer.machine_id % 3), offer }));
    cache.set(sim.offers, list);
  }
  return list;
}

function freeSpace(sim: Sim, offer: Offer): number {
  const used = sim.store.data.volumes.filter((v) => v.machineId === offer.machine_id).reduce((sum, v) => sum + v.sizeGb, 0);
  return round(Math.max(0, offer.disk_space * 2 - used), 1);
}

function wireOffer(sim: Sim, id: number, o: Offer, allocated: number): Record<string, unknown> {
  const shift = sim.now() / 1000 - CATALOGUE_EPOCH;
  return {
    id,
    ask_contract_id: id,
    bundle_id: id,
    machine_id: o.machine_id,
    host_id: o.host_id,
    cluster_id: o.cluster_id,
    cpu_arch: o.cpu_arch,
    cpu_ghz: o.cpu_ghz,
    cpu_name: o.cpu_name,
    cuda_max_good: o.cuda_max_good,
    disk_bw: o.disk_bw,
    disk_name: o.disk_name,
    disk_space: freeSpace(sim, o),
    driver_vers: o.driver_vers,
    driver_version: o.driver_version,
    start_date: round(o.start_date + shift, 3),
    end_date: round(o.end_date + shift, 3),
    duration: o.duration,
    external: o.external,
    hosting_type: o.hosting_type,
    geolocation: o.geolocation,
    geolocode: o.geolocode,
    gpu_arch: o.gpu_arch,
    inet_down: o.inet_down,
    inet_up: o.inet_up,
    mobo_name: o.mobo_name,
    os_version: o.os_version,
    public_ipaddr: o.public_ipaddr,
    reliability: o.reliability,
    reliability2: o.reliability2,
    reliability_mult: o.reliability_mult,
    static_ip: o.static_ip,
    storage_cost: o.storage_cost,
    storage_total_cost: storagePerHour(o.storage_cost, allocated),
    vericode: o.vericode,
    verification: o.verification,
    verified: o.verified,
    vms_enabled: o.vms_enabled,
    nw_disk_min_bw: round(o.disk_bw * 0.6, 1),
    nw_disk_max_bw: o.disk_bw,
    nw_disk_avg_bw: round(o.disk_bw * 0.8, 1),
  };
}

/** Rents `sizeGb` on a volume offer for the caller. */
export function createVolume(ctx: Ctx, offerId: number, sizeGb: number, name: string | null, onMachine?: number): VolumeRecord {
  const { sim, account, now } = ctx;
  const entry = volumeOffers(sim).find((v) => v.id === offerId);
  if (!entry) throw fail(404, 'invalid_args', `no_such_ask Volume offer ${offerId} is not available.`, { ask_id: offerId });
  if (onMachine !== undefined && entry.offer.machine_id !== onMachine)
    throw fail(400, 'invalid_args', 'A local volume must be on the same machine as the instance.');
  if (!Number.isInteger(sizeGb) || sizeGb <= 0) throw fail(400, 'invalid_args', 'size must be a positive whole number of GB.');
  if (sizeGb > freeSpace(sim, entry.offer))
    throw fail(400, 'invalid_args', `Only ${freeSpace(sim, entry.offer)} GB are free on this machine.`);
  if (sim.store.balance(account.id, now) <= 0) throw fail(400, 'insufficient_credit', 'Your account has no credit left.');
  const store = sim.store;
  const id = store.nextId('contract');
  const rate = storagePerHour(entry.offer.storage_cost, sizeGb);
  const volume: VolumeRecord = {
    id,
    accountId: account.id,
    offerId,
    machineId: entry.offer.machine_id,
    name,
    sizeGb,
    rate,
    createdAt: now,
    instanceIds: [],
  };
  store.data.volumes.push(volume);
  store.data.contracts.push({
    id,
    accountId: account.id,
    type: 'volume',
    start: now,
    end: null,
    label: name,
    templateId: null,
    segments: [{ kind: 'disk', rate, start: now, end: null }],
  });
  store.changed();
  return volume;
}

function volumeRow(sim: Sim, v: VolumeRecord): Record<string, unknown> {
  const o = volumeOffers(sim).find((x) => x.id === v.offerId)?.offer;
  return {
    id: v.id,
    label: v.name,
    volume_name: `V.${v.id}`,
    status: v.instanceIds.length > 0 ? 'in_use' : 'available',
    disk_space: v.sizeGb,
    instances: [...v.instanceIds],
    machine_id: v.machineId,
    host_id: o?.host_id ?? null,
    cluster_id: o?.cluster_id ?? null,
    public_ipaddr: o?.public_ipaddr ?? null,
    geolocation: o?.geolocation ?? null,
    verification: o?.verification ?? null,
    reliability2: o?.reliability2 ?? null,
    inet_up: o?.inet_up ?? null,
    inet_down: o?.inet_down ?? null,
    storage_total_cost: v.rate,
    driver_version: o?.driver_version ?? null,
    cuda_max_good: o?.cuda_max_good ?? null,
    cpu_name: o?.cpu_name ?? null,
    cpu_arch: o?.cpu_arch ?? null,
    mobo_name: o?.mobo_name ?? null,
    os_version: o?.os_version ?? null,
    disk_name: o?.disk_name ?? null,
    static_ip: o?.static_ip ?? null,
    start_date: epoch(v.createdAt),
  };
}

function search(ctx: Ctx) {
  const body = isObject(ctx.rawBody) ? ctx.rawBody : {};
  const list = volumeOffers(ctx.sim);
  try {
    // Typed from every row, so that a nullable field (cluster_id) null in the first still filters.
    const parsed = parseSearch(body, kindsOf(list.map((v) => wireOffer(ctx.sim, v.id, v.offer, 1))));
    const allocated = parsed.allocatedStorage ?? 1;
    const rows = list.map((v) => wireOffer(ctx.sim, v.id, v.offer, allocated)) as unknown as Offer[];
    return ok({ offers: runSearch(rows, { ...parsed, limit: parsed.limit ?? 64 }) });
  } catch (error) {
    if (error instanceof QueryError) throw fail(400, 'invalid_args', error.message);
    throw error;
  }
}

function remove(ctx: Ctx) {
  const id = num(ctx.query.get('id') ?? undefined) ?? num(ctx.body.id);
  if (id === undefined) throw fail(400, 'invalid_args', 'Please provide a valid volume ID.');
  const data = ctx.sim.store.data;
  const volume = data.volumes.find((v) => v.id === id && v.accountId === ctx.account.id);
  if (!volume) throw fail(404, 'no_such_volume', 'Volume with that ID does not exist.');
  if (volume.instanceIds.length > 0)
    throw fail(400, 'invalid_args', `Volume ${id} is used by instance(s) ${volume.instanceIds.join(', ')}; destroy them first.`);
  const contract = data.contracts.find((c) => c.id === id);
  if (contract) closeContract(contract, ctx.now);
  data.volumes = data.volumes.filter((v) => v !== volume);
  return saved(ctx.sim.store, { success: true });
}

export const volumeRoutes: RouteDef[] = [
  { method: 'POST', path: '/api/v0/volumes/search', category: 'misc', action: 'api.volume.search', handler: search },
  {
    method: 'PUT',
    path: '/api/v0/volumes',
    category: 'instance_write',
    action: 'api.volume.create',
    handler: (ctx) => {
      const offerId = num(ctx.body.id);
      if (offerId === undefined) throw fail(400, 'invalid_args', 'id (a volume offer id) is required.');
      const name = typeof ctx.body.name === 'string' ? ctx.body.name : null;
      const volume = createVolume(ctx, offerId, num(ctx.body.size) ?? 15, name);
      return ok({ success: true, volume_name: `V.${volume.id}` });
    },
  },
  {
    method: 'GET',
    path: '/api/v0/volumes',
    category: 'instance_read',
    action: 'api.volume.list',
    handler: (ctx) => {
      const type = ctx.query.get('type') ?? 'all_volume';
      const mine = type === 'network_volume' ? [] : ctx.sim.store.data.volumes.filter((v) => v.accountId === ctx.account.id);
      return ok({ volumes: mine.map((v) => volumeRow(ctx.sim, v)) });
    },
  },
  { method: 'DELETE', path: '/api/v0/volumes', category: 'instance_write', action: 'api.volume.delete', handler: remove },
];
