/** The wire form of an instance, as show and list return it (field names per the real API). */
import { CATALOGUE_EPOCH, type Offer } from './catalogue';
import { statusFields } from './lifecycle';
import type { InstanceState, Ms, StoreData } from './model';
import { portsField } from './network';
import { countryOf } from './filters';
import { hash32, round } from './random';
import { epoch } from './router';
import { reservedNow } from './prepay';

/**
 * The contract's end in epoch seconds: the offer's, as it stood when the instance was rented (it
 * stays put), until a host's price increase with a later end is accepted (priceIncreases.ts).
 */
export function contractEnd(inst: InstanceState, offer: Offer): number {
  return inst.endDate ?? round(offer.end_date + (inst.createdAt / 1000 - CATALOGUE_EPOCH), 3);
}

export function instanceRecord(inst: InstanceState, offer: Offer, data: StoreData, now: Ms): Record<string, unknown> {
  const status = statusFields(inst);
  const running = inst.phase === 'running';
  const h = hash32(`${inst.id}:${Math.floor(now / 60_000)}`);
  const total = round(inst.gpuRate + inst.diskRate, 6);
  // A prepaid instance (prepay.ts) bills at its discount while its deposit lasts.
  const contract = data.reservations?.length ? data.contracts.find((c) => c.id === inst.id) : undefined;
  const reserved = contract ? reservedNow(data, inst, contract, now) : undefined;
  const breakdown = {
    gpuCostPerHour: inst.gpuRate,
    diskHour: inst.diskRate,
    totalHour: total,
    discountTotalHour: reserved ? round(total * reserved.rate, 6) : 0,
    discountedTotalPerHour: reserved ? round(total * (1 - reserved.rate), 6) : total,
  };
  const endDate = contractEnd(inst, offer);
  const volumes = data.volumes.filter((v) => v.instanceIds.includes(inst.id));
  const e = inst.endpoint;
  const record: Record<string, unknown> = {
    id: inst.id,
    machine_id: offer.machine_id,
    host_id: offer.host_id,
    bundle_id: offer.id,
    cluster_id: offer.cluster_id,
    ...status,
    label: inst.label,
    image_uuid: inst.image,
    image_args: inst.args,
    image_runtype: inst.runtype,
    extra_env: inst.env,
    onstart: inst.onstart,
    template_id: inst.templateId,
    template_hash_id: inst.templateHashId,
    template_name: inst.templateName,
    jupyter_token: inst.jupyterToken,
    client_id: inst.clientId,
    ssh_host: e.sshHost,
    ssh_idx: e.sshIdx,
    ssh_port: e.sshPort,
    machine_dir_ssh_port: e.sshPort + 1,
    public_ipaddr: e.publicIp,
    local_ipaddrs: '172.17.0.2 127.0.0.1\n',
    direct_port_count: offer.direct_port_count,
    direct_port_start: e.directPortStart,
    direct_port_end: e.directPortEnd,
    static_ip: offer.static_ip,
    inet_up: offer.inet_up,
    inet_down: offer.inet_down,
    num_gpus: offer.num_gpus,
    gpu_name: offer.gpu_name,
    gpu_arch: offer.gpu_arch,
    gpu_ram: offer.gpu_ram,
    gpu_totalram: offer.gpu_total_ram,
    gpu_frac: offer.gpu_frac,
    gpu_lanes: offer.gpu_lanes,
    gpu_mem_bw: offer.gpu_mem_bw,
    bw_nvlink: offer.bw_nvlink,
    compute_cap: offer.compute_cap,
    cpu_name: offer.cpu_name,
    cpu_arch: offer.cpu_arch,
    cpu_cores: offer.cpu_cores,
    cpu_cores_effective: offer.cpu_cores_effective,
    cpu_ram: offer.cpu_ram,
    disk_name: offer.disk_name,
    disk_space: inst.diskGb,
    disk_bw: offer.disk_bw,
    mobo_name: offer.mobo_name,
    os_version: offer.os_version,
    pci_gen: offer.pci_gen,
    pcie_bw: offer.pcie_bw,
    cuda_max_good: offer.cuda_max_good,
    driver_version: offer.driver_version,
    gpu_util: running ? round((h % 1000) / 10, 1) : null,
    gpu_temp: running ? 35 + (h % 45) : null,
    cpu_util: running ? round(((h >>> 10) % 800) / 10, 1) : 0,
    mem_usage: running ? round(((h >>> 4) % 100) / 10 + 0.5, 2) : 0,
    mem_limit: round(offer.cpu_ram / 1024, 2),
    vmem_usage: running ? round(((h >>> 6) % 200) / 10, 2) : 0,
    disk_usage: round(Math.min(inst.diskGb, 1.2 + (inst.phase === 'provisioning' ? 0 : 2.8)), 2),
    disk_util: round(Math.min(1, 4 / Math.max(inst.diskGb, 1)), 3),
    start_date: epoch(inst.createdAt),
    end_date: endDate,
    duration: round((now - inst.createdAt) / 1000, 3),
    uptime_mins: inst.runningSince !== null ? round((now - inst.runningSince) / 60_000, 2) : null,
    time_remaining: '',
    time_remaining_isbid: '',
    client_run_time: round((now - inst.createdAt) / 1000, 3),
    host_run_time: round((now - inst.createdAt) / 1000, 3),
    dph_base: inst.gpuRate,
    dph_total: total,
    storage_cost: offer.storage_cost,
    storage_total_cost: inst.diskRate,
    vram_costperhour: offer.vram_costperhour,
    inet_up_cost: offer.inet_up_cost,
    inet_down_cost: offer.inet_down_cost,
    min_bid: offer.min_bid,
    is_bid: inst.isBid,
    credit_balance: reserved ? round(reserved.remaining, 4) : null,
    credit_discount: reserved ? reserved.rate : null,
    credit_discount_max: offer.credit_discount_max,
    search: breakdown,
    instance: { ...breakdown },
    reliability2: offer.reliability2,
    verification: offer.verification,
    rentable: false,
    external: offer.external,
    hosting_type: offer.hosting_type,
    geolocation: offer.geolocation,
    country_code: countryOf(offer.geolocation),
    score: offer.score,
    dlperf: offer.dlperf,
    dlperf_per_dphtotal: round(offer.dlperf / total, 4),
    flops_per_dphtotal: round(offer.total_flops / total, 4),
    total_flops: offer.total_flops,
    logo: offer.logo,
    webpage: offer.webpage,
    volume_info: volumes.map((v) => ({ volume_id: v.id, name: v.name ?? `V.${v.id}`, size: v.sizeGb })),
    created_at: epoch(inst.createdAt),
  };
  // Docker's port map exists only while the container runs.
  if (running) record.ports = portsField(e);
  return record;
}
