/**
 * The seeded machine catalogue. Field names and units follow the real search API: `gpu_ram`,
 * `gpu_total_ram`, `cpu_ram` in MB; `disk_space` in GB; `disk_bw` MB/s; `inet_*` Mb/s;
 * `inet_*_cost` $/GB; `dph_*`, `min_bid`, `storage_total_cost` $/hour; `storage_cost`
 * $/GB/month; dates epoch seconds; `duration` seconds.
 */
import { CONSUMER_CPUS, DISKS, DRIVERS, GPUS, MOBOS, NETS, PLACES, SERVER_CPUS, geocode, packDriver } from './hardware';
import { DEFAULT_ALLOCATED_STORAGE, emptyBreakdown, priceOffer } from './pricing';
import { Random, hash32, round } from './random';

/** The instant `generateOffers` dates its offers from unless told otherwise (2026-06-01 UTC). */
export const CATALOGUE_EPOCH = 1780272000;

export interface PriceBreakdown {
  gpuCostPerHour: number;
  diskHour: number;
  totalHour: number;
  discountTotalHour: number;
  discountedTotalPerHour: number;
}

export interface Offer {
  id: number;
  ask_contract_id: number;
  bundle_id: number;
  machine_id: number;
  host_id: number;
  cluster_id: number | null;
  num_gpus: number;
  gpu_name: string;
  gpu_ram: number;
  gpu_total_ram: number;
  gpu_frac: number;
  gpu_arch: string;
  gpu_ids: number[];
  gpu_max_power: number;
  gpu_max_temp: number;
  gpu_lanes: number;
  gpu_mem_bw: number;
  bw_nvlink: number;
  gpu_display_active: boolean;
  compute_cap: number;
  cpu_name: string;
  cpu_arch: string;
  cpu_cores: number;
  cpu_cores_effective: number;
  cpu_ghz: number;
  cpu_ram: number;
  has_avx: number;
  disk_space: number;
  disk_bw: number;
  disk_name: string;
  mobo_name: string;
  inet_up: number;
  inet_down: number;
  inet_up_cost: number;
  inet_down_cost: number;
  internet_up_cost_per_tb: number;
  internet_down_cost_per_tb: number;
  direct_port_count: number;
  dph_base: number;
  dph_total: number;
  min_bid: number;
  is_bid: boolean;
  storage_cost: number;
  storage_total_cost: number;
  vram_costperhour: number;
  discount_rate: number;
  discounted_dph_total: number;
  discounted_hourly: number;
  credit_discount_max: number;
  dlperf: number;
  dlperf_per_dphtotal: number;
  total_flops: number;
  flops_per_dphtotal: number;
  score: number;
  reliability: number;
  reliability2: number;
  reliability_mult: number;
  verification: 'verified' | 'unverified' | 'deverified';
  vericode: number;
  verified: boolean;
  rentable: boolean;
  rented: boolean;
  external: boolean;
  hosting_type: number;
  geolocation: string;
  geolocode: number;
  public_ipaddr: string;
  static_ip: boolean;
  hostname: string;
  cuda_max_good: number;
  driver_version: string;
  driver_vers: number;
  pci_gen: number;
  pcie_bw: number;
  os_version: string;
  vms_enabled: boolean;
  resource_type: string;
  start_date: number;
  end_date: number;
  duration: number;
  logo: string;
  webpage: string | null;
  search: PriceBreakdown;
  instance: PriceBreakdown;
}

/** How a search types a filter value: each field from its definition, never from one offer (whose nullable fields are null). */
export type FieldKind = 'number' | 'string' | 'boolean' | 'object';

const fields = (names: string): string[] => names.trim().split(/\s+/);

/** Every `Offer` field's kind (`catalogue.test.ts` checks it against the interface). */
export const OFFER_FIELD_KINDS: Readonly<Record<string, FieldKind>> = Object.fromEntries([
  ...fields(`gpu_name gpu_arch cpu_name cpu_arch disk_name mobo_name verification geolocation public_ipaddr hostname driver_version
    os_version resource_type logo webpage`).map((f) => [f, 'string']),
  ...fields('gpu_display_active is_bid verified rentable rented external static_ip vms_enabled').map((f) => [f, 'boolean']),
  ...fields('gpu_ids search instance').map((f) => [f, 'object']),
  ...fields(`id ask_contract_id bundle_id machine_id host_id cluster_id num_gpus gpu_ram gpu_total_ram gpu_frac gpu_max_power
    gpu_max_temp gpu_lanes gpu_mem_bw bw_nvlink compute_cap cpu_cores cpu_cores_effective cpu_ghz cpu_ram has_avx disk_space disk_bw
    inet_up inet_down inet_up_cost inet_down_cost internet_up_cost_per_tb internet_down_cost_per_tb direct_port_count dph_base dph_total
    min_bid storage_cost storage_total_cost vram_costperhour discount_rate discounted_dph_total discounted_hourly credit_discount_max
    dlperf dlperf_per_dphtotal total_flops flops_per_dphtotal score reliability reliability2 reliability_mult vericode hosting_type
    geolocode cuda_max_good driver_vers pci_gen pcie_bw start_date end_date duration`).map((f) => [f, 'number']),
]) as Record<string, FieldKind>;

/**
 * Cluster runs: from offer CLUSTER_AT on, every CLUSTER_EVERY offers, a run of 5 to 7 machines of
 * one data-centre host form one cluster: the same GPU model and count, one place, rentable and
 * verified, so that a 2-, 3- or 4-node cluster can be rented with spares to replace a node. Each
 * run is drawn from its own seeded generator, so the other offers are the ones they were before
 * runs existed, and a prefix of the catalogue does not depend on its length.
 */
const CLUSTER_AT = 40;
const CLUSTER_EVERY = 100;
const CLUSTER_GPUS = GPUS.filter((g) => g.datacenter);

interface ClusterRun {
  run: number;
  length: number;
  clusterId: number;
  hostId: number;
  gpu: (typeof GPUS)[number];
  numGpus: number;
  place: string;
  net: string;
  firstOctet: number;
  driver: number;
  cpu: (typeof SERVER_CPUS)[number];
}

function clusterRun(seed: number, run: number): ClusterRun {
  const rng = new Random(hash32(`cluster:${seed}:${run}`));
  const gpu = rng.weighted(
    CLUSTER_GPUS,
    CLUSTER_GPUS.map((g) => g.weight),
  );
  return {
    run,
    length: rng.int(5, 7),
    clusterId: 4000 + run * 1000 + rng.int(0, 999),
    hostId: 600_000 + run * 1000 + rng.int(0, 999),
    gpu,
    // The first run is light (1 or 2 GPUs a machine), for CPU-only distributed tests; the rest are 4 or 8.
    numGpus: rng.pick(run === 0 ? [1, 2] : [4, 8]),
    place: rng.weighted(
      PLACES.map((p) => p[0]),
      PLACES.map((p) => p[1]),
    ),
    net: rng.pick(NETS),
    firstOctet: rng.int(1, 200),
    driver: rng.int(gpu.minDriver, DRIVERS.length - 1),
    cpu: rng.pick(SERVER_CPUS),
  };
}

/** The cluster run offer `index` belongs to, and its place in it; undefined for most offers. */
function clusterSlot(seed: number, index: number): { run: ClusterRun; k: number } | undefined {
  if (index < CLUSTER_AT) return undefined;
  const run = clusterRun(seed, Math.floor((index - CLUSTER_AT) / CLUSTER_EVERY));
  const k = (index - CLUSTER_AT) % CLUSTER_EVERY;
  return k < run.length ? { run, k } : undefined;
}

/** Makes a generated offer machine `k` of a cluster run (its id, machine id and dates stay). */
function asClusterMachine(offer: Offer, seed: number, { run, k }: { run: ClusterRun; k: number }): Offer {
  const rng = new Random(hash32(`cluster:${seed}:${run.run}:${k}`));
  const { gpu, numGpus } = run;
  const dphBase = round(gpu.price * numGpus * rng.float(0.9, 1.15), 6);
  const reliability = round(rng.float(0.99, 0.9999), 5);
  const [driver, cuda] = DRIVERS[run.driver] ?? DRIVERS[DRIVERS.length - 1]!;
  const pciGen = gpu.cc >= 890 || gpu.name.startsWith('H') ? 5 : 4;
  return {
    ...offer,
    host_id: run.hostId,
    cluster_id: run.clusterId,
    num_gpus: numGpus,
    gpu_name: gpu.name,
    gpu_ram: gpu.ramMb,
    gpu_total_ram: gpu.ramMb * numGpus,
    gpu_frac: 1,
    gpu_ids: Array.from({ length: numGpus }, (_, g) => g),
    gpu_max_power: gpu.power,
    gpu_lanes: 16,
    gpu_mem_bw: round(gpu.memBw * rng.float(0.9, 0.98), 1),
    bw_nvlink: gpu.name.includes('SXM') || gpu.name === 'H200' ? round(rng.float(350, 450), 1) : 0,
    gpu_display_active: false,
    compute_cap: gpu.cc,
    cpu_name: run.cpu.name,
    cpu_cores: run.cpu.cores,
    cpu_cores_effective: run.cpu.cores,
    cpu_ghz: run.cpu.ghz,
    cpu_ram: 512 * 1024,
    disk_space: round(rng.float(800, 2000), 1),
    inet_up: round(rng.float(5000, 10_000), 1),
    inet_down: round(rng.float(5000, 10_000), 1),
    dph_base: dphBase,
    min_bid: round(dphBase * rng.float(0.3, 0.6), 6),
    dlperf: round(gpu.dlperf * numGpus * rng.float(0.95, 1.05), 4),
    total_flops: round(gpu.tflops * numGpus * rng.float(0.97, 1.02), 4),
    reliability,
    reliability2: reliability,
    reliability_mult: round(reliability ** 4, 5),
    verification: 'verified',
    vericode: 1,
    verified: true,
    rentable: true,
    rented: false,
    external: false,
    hosting_type: 1,
    geolocation: run.place,
    geolocode: geocode(run.place),
    public_ipaddr: `${run.net}.${run.firstOctet + k}`,
    static_ip: true,
    hostname: `host${run.hostId}`,
    cuda_max_good: cuda,
    driver_version: driver,
    driver_vers: packDriver(driver),
    pci_gen: pciGen,
    pcie_bw: round(16 * (pciGen === 5 ? 3.9 : 1.95) * rng.float(0.85, 0.97), 1),
  };
}

/**
 * `count` offers from `seed`: the same arguments always give the same offers. Dates are
 * relative to `nowSec` (default `CATALOGUE_EPOCH`); the server shifts them to its clock.
 */
export function generateOffers(count: number, seed: number, nowSec: number = CATALOGUE_EPOCH): Offer[] {
  const rng = new Random(seed);
  const offers: Offer[] = [];
  let offerId = 20_000_000 + rng.int(0, 999_999);
  let machineId = 10_000 + rng.int(0, 20_000);
  let hostId = 100_000 + rng.int(0, 100_000);
  let hostPlace = rng.weighted(
    PLACES.map((p) => p[0]),
    PLACES.map((p) => p[1]),
  );
  let hostIp = `${rng.pick(NETS)}.${rng.int(1, 254)}`;
  let hostDatacenter = rng.chance(0.3);
  for (let i = 0; i < count; i++) {
    offerId += rng.int(1, 4000);
    machineId += rng.int(1, 40);
    if (i === 0 || rng.chance(0.6)) {
      hostId += rng.int(1, 900);
      hostPlace = rng.weighted(
        PLACES.map((p) => p[0]),
        PLACES.map((p) => p[1]),
      );
      hostIp = `${rng.pick(NETS)}.${rng.int(1, 254)}`;
      hostDatacenter = rng.chance(0.3);
    }
    const gpu = rng.weighted(
      GPUS,
      GPUS.map((g) => g.weight),
    );
    const machineGpus = rng.weighted([1, 2, 4, 8], gpu.datacenter ? [1, 2, 4, 8] : [3, 3, 3, 2]);
    const numGpus = rng.chance(0.75) ? machineGpus : rng.pick([1, 2, 4, 8].filter((n) => n <= machineGpus));
    const frac = numGpus / machineGpus;
    const datacenter = hostDatacenter || (gpu.datacenter && rng.chance(0.4));
    const cpu = rng.pick(gpu.datacenter || datacenter ? SERVER_CPUS : CONSUMER_CPUS);
    const driverIndex = rng.int(gpu.minDriver, DRIVERS.length - 1);
    const [driver, cuda] = DRIVERS[driverIndex] ?? DRIVERS[DRIVERS.length - 1]!;
    const reliability = round(rng.float(0.9, 0.99995), 5);
    const verification = rng.weighted(['verified', 'unverified', 'deverified'] as const, [76, 19, 5]);
    const rentedByOthers = rng.chance(0.05);
    const unlisted = !rentedByOthers && rng.chance(0.03);
    const dphBase = round(gpu.price * numGpus * rng.float(0.8, 1.35) + rng.float(0, 0.03), 6);
    const storageCost = round(rng.float(0.05, 0.3), 4);
    const diskSpace = round(rng.pick([120, 250, 500, 1000, 2000, 4000]) * rng.float(0.55, 1) * frac, 1);
    const ageDays = rng.float(1, 400);
    const remainingDays = rng.float(3, 240);
    const directPorts = rng.chance(0.15) ? 0 : rng.pick([16, 50, 100, 200, 500, 999]);
    const pciGen = gpu.cc >= 1200 || gpu.name.startsWith('H') ? 5 : gpu.cc >= 890 ? rng.pick([4, 5]) : rng.pick([3, 4]);
    const lanes = rng.pick([8, 16, 16]);
    const inetDown = round(rng.float(100, 10_000), 1);
    const offer: Offer = {
      id: offerId,
      ask_contract_id: offerId,
      bundle_id: offerId,
      machine_id: machineId,
      host_id: hostId,
      cluster_id: datacenter && rng.chance(0.5) ? 1000 + (hostId % 97) : null,
      num_gpus: numGpus,
      gpu_name: gpu.name,
      gpu_ram: gpu.ramMb,
      gpu_total_ram: gpu.ramMb * numGpus,
      gpu_frac: round(frac, 4),
      gpu_arch: 'nvidia',
      gpu_ids: Array.from({ length: numGpus }, (_, k) => k),
      gpu_max_power: gpu.power,
      gpu_max_temp: rng.pick([83, 85, 87, 90]),
      gpu_lanes: lanes,
      gpu_mem_bw: round(gpu.memBw * rng.float(0.85, 0.98), 1),
      bw_nvlink: gpu.name.includes('SXM') || gpu.name === 'H200' ? round(rng.float(300, 450), 1) : 0,
      gpu_display_active: !datacenter && rng.chance(0.1),
      compute_cap: gpu.cc,
      cpu_name: cpu.name,
      cpu_arch: 'amd64',
      cpu_cores: cpu.cores,
      cpu_cores_effective: round(Math.max(2, cpu.cores * frac), 1),
      cpu_ghz: cpu.ghz,
      cpu_ram: Math.round(rng.pick(gpu.datacenter || datacenter ? [256, 512, 1024, 2048] : [32, 64, 128, 256]) * 1024 * frac),
      has_avx: 1,
      disk_space: Math.max(diskSpace, 20),
      disk_bw: round(rng.float(800, 7000), 1),
      disk_name: rng.pick(DISKS),
      mobo_name: rng.pick(MOBOS),
      inet_up: round(Math.min(inetDown, rng.float(80, 10_000)), 1),
      inet_down: inetDown,
      inet_up_cost: round(rng.float(0, 0.02), 4),
      inet_down_cost: round(rng.float(0, 0.02), 4),
      internet_up_cost_per_tb: 0,
      internet_down_cost_per_tb: 0,
      direct_port_count: directPorts,
      dph_base: dphBase,
      dph_total: 0,
      min_bid: round(dphBase * rng.float(0.3, 0.6), 6),
      is_bid: false,
      storage_cost: storageCost,
      storage_total_cost: 0,
      vram_costperhour: 0,
      discount_rate: round(rng.float(0.1, 0.4), 3),
      discounted_dph_total: 0,
      discounted_hourly: 0,
      credit_discount_max: 0.4,
      dlperf: round(gpu.dlperf * numGpus * rng.float(0.85, 1.05), 4),
      dlperf_per_dphtotal: 0,
      total_flops: round(gpu.tflops * numGpus * rng.float(0.93, 1.02), 4),
      flops_per_dphtotal: 0,
      score: 0,
      reliability,
      reliability2: reliability,
      reliability_mult: round(reliability ** 4, 5),
      verification,
      vericode: verification === 'verified' ? 1 : verification === 'unverified' ? 0 : -1,
      verified: verification === 'verified',
      rentable: !rentedByOthers && !unlisted,
      rented: rentedByOthers,
      external: !datacenter && rng.chance(0.12),
      hosting_type: datacenter ? 1 : 0,
      geolocation: hostPlace,
      geolocode: geocode(hostPlace),
      public_ipaddr: hostIp,
      static_ip: datacenter || rng.chance(0.4),
      hostname: `host${hostId}`,
      cuda_max_good: cuda,
      driver_version: driver,
      driver_vers: packDriver(driver),
      pci_gen: pciGen,
      pcie_bw: round(lanes * (pciGen === 5 ? 3.9 : pciGen === 4 ? 1.95 : 0.98) * rng.float(0.8, 0.97), 1),
      os_version: rng.pick(['22.04', '22.04', '24.04', '20.04']),
      vms_enabled: datacenter && rng.chance(0.3),
      resource_type: 'gpu',
      start_date: round(nowSec - ageDays * 86400, 3),
      end_date: round(nowSec + remainingDays * 86400, 3),
      duration: round(remainingDays * 86400, 3),
      logo: '/static/logos/vastai_small2.png',
      webpage: null,
      search: emptyBreakdown(),
      instance: emptyBreakdown(),
    };
    const slot = clusterSlot(seed, i);
    const machine = slot ? asClusterMachine(offer, seed, slot) : offer;
    offers.push(priceOffer(machine, { allocatedStorage: DEFAULT_ALLOCATED_STORAGE, type: 'on-demand' }));
  }
  return offers;
}
