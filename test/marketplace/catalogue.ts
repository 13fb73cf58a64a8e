/**
 * The seeded machine catalogue. Field names and units follow the real search API: `gpu_ram`,
 * `gpu_total_ram`, `cpu_ram` in MB; `disk_space` in GB; `disk_bw` MB/s; `inet_*` Mb/s;
 * `inet_*_cost` $/GB; `dph_*`, `min_bid`, `storage_total_cost` $/hour; `storage_cost`
 * $/GB/month; dates epoch seconds; `duration` seconds.
 */
import { Random, round } from './random';

/** Hours in the month used to turn a monthly storage price into an hourly one (30 days). */
export const HOURS_PER_MONTH = 720;
/** Disk priced into `dph_total` when a search names no `allocated_storage` (GB). */
export const DEFAULT_ALLOCATED_STORAGE = 8;
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

interface GpuModel {
  name: string;
  ramMb: number;
  cc: number;
  tflops: number;
  dlperf: number;
  /** Typical on-demand $/hour for one GPU. */
  price: number;
  memBw: number;
  power: number;
  datacenter: boolean;
  minDriver: number;
  weight: number;
}

const GPUS: readonly GpuModel[] = [
  {
    name: 'RTX 3060',
    ramMb: 12288,
    cc: 860,
    tflops: 12.7,
    dlperf: 7.9,
    price: 0.06,
    memBw: 360,
    power: 170,
    datacenter: false,
    minDriver: 0,
    weight: 3,
  },
  {
    name: 'RTX 3090',
    ramMb: 24576,
    cc: 860,
    tflops: 35.6,
    dlperf: 20.4,
    price: 0.19,
    memBw: 936,
    power: 350,
    datacenter: false,
    minDriver: 0,
    weight: 10,
  },
  {
    name: 'RTX 4090',
    ramMb: 24564,
    cc: 890,
    tflops: 82.6,
    dlperf: 39.8,
    price: 0.34,
    memBw: 1008,
    power: 450,
    datacenter: false,
    minDriver: 0,
    weight: 14,
  },
  {
    name: 'RTX 5090',
    ramMb: 32607,
    cc: 1200,
    tflops: 104.8,
    dlperf: 55.2,
    price: 0.62,
    memBw: 1792,
    power: 575,
    datacenter: false,
    minDriver: 3,
    weight: 8,
  },
  {
    name: 'RTX A4000',
    ramMb: 16376,
    cc: 860,
    tflops: 19.2,
    dlperf: 11.6,
    price: 0.11,
    memBw: 448,
    power: 140,
    datacenter: false,
    minDriver: 0,
    weight: 5,
  },
  {
    name: 'RTX A5000',
    ramMb: 24564,
    cc: 860,
    tflops: 27.8,
    dlperf: 15.9,
    price: 0.2,
    memBw: 768,
    power: 230,
    datacenter: false,
    minDriver: 0,
    weight: 3,
  },
  {
    name: 'RTX A6000',
    ramMb: 49140,
    cc: 860,
    tflops: 38.7,
    dlperf: 22.3,
    price: 0.45,
    memBw: 768,
    power: 300,
    datacenter: true,
    minDriver: 0,
    weight: 6,
  },
  {
    name: 'RTX 6000Ada',
    ramMb: 49140,
    cc: 890,
    tflops: 91.1,
    dlperf: 42.5,
    price: 0.74,
    memBw: 960,
    power: 300,
    datacenter: true,
    minDriver: 0,
    weight: 4,
  },
  {
    name: 'L40S',
    ramMb: 46068,
    cc: 890,
    tflops: 91.6,
    dlperf: 43.1,
    price: 0.71,
    memBw: 864,
    power: 350,
    datacenter: true,
    minDriver: 0,
    weight: 6,
  },
  {
    name: 'Tesla V100',
    ramMb: 16384,
    cc: 700,
    tflops: 15.7,
    dlperf: 17.5,
    price: 0.16,
    memBw: 900,
    power: 300,
    datacenter: true,
    minDriver: 0,
    weight: 3,
  },
  {
    name: 'A100 PCIE',
    ramMb: 40960,
    cc: 800,
    tflops: 19.5,
    dlperf: 44.9,
    price: 0.85,
    memBw: 1555,
    power: 250,
    datacenter: true,
    minDriver: 0,
    weight: 4,
  },
  {
    name: 'A100 SXM4',
    ramMb: 81920,
    cc: 800,
    tflops: 19.5,
    dlperf: 54.6,
    price: 1.1,
    memBw: 2039,
    power: 400,
    datacenter: true,
    minDriver: 0,
    weight: 6,
  },
  {
    name: 'H100 PCIE',
    ramMb: 81559,
    cc: 900,
    tflops: 51.2,
    dlperf: 88.4,
    price: 1.75,
    memBw: 2000,
    power: 350,
    datacenter: true,
    minDriver: 1,
    weight: 4,
  },
  {
    name: 'H100 SXM',
    ramMb: 81559,
    cc: 900,
    tflops: 66.9,
    dlperf: 109.7,
    price: 2.05,
    memBw: 3350,
    power: 700,
    datacenter: true,
    minDriver: 1,
    weight: 7,
  },
  {
    name: 'H200',
    ramMb: 143771,
    cc: 900,
    tflops: 66.9,
    dlperf: 121.3,
    price: 2.85,
    memBw: 4800,
    power: 700,
    datacenter: true,
    minDriver: 2,
    weight: 3,
  },
];

interface Cpu {
  name: string;
  cores: number;
  ghz: number;
}

const CONSUMER_CPUS: readonly Cpu[] = [
  { name: 'AMD Ryzen 9 7950X 16-Core Processor', cores: 32, ghz: 4.5 },
  { name: 'AMD Ryzen 9 5950X 16-Core Processor', cores: 32, ghz: 3.4 },
  { name: 'Intel Core i9-13900K', cores: 32, ghz: 3.0 },
  { name: 'AMD Ryzen Threadripper PRO 5975WX 32-Cores', cores: 64, ghz: 3.6 },
  { name: 'Intel Xeon E5-2698 v4', cores: 40, ghz: 2.2 },
];
const SERVER_CPUS: readonly Cpu[] = [
  { name: 'AMD EPYC 7543 32-Core Processor', cores: 64, ghz: 2.8 },
  { name: 'AMD EPYC 7763 64-Core Processor', cores: 128, ghz: 2.45 },
  { name: 'AMD EPYC 9654 96-Core Processor', cores: 192, ghz: 2.4 },
  { name: 'Intel Xeon Platinum 8480+', cores: 112, ghz: 2.0 },
  { name: 'Intel Xeon Gold 6342 CPU @ 2.80GHz', cores: 48, ghz: 2.8 },
];
const MOBOS = ['ROMED8-2T', 'H12SSL-i', 'WRX80 Creator', 'PRO WS W790-ACE', 'X13DEG-OA', 'G593-SD0', 'B650M-HDV'] as const;
const DISKS = [
  'Samsung SSD 990 PRO 2TB',
  'SAMSUNG MZQL23T8HCLS',
  'Micron_7450_MTFDKCC3T8TFR',
  'KINGSTON SFYRD4000G',
  'WD_BLACK SN850X 4000GB',
] as const;
/** "Region, CC" as the service shows it. The country code is what the `geolocation` filter matches. */
const PLACES: ReadonlyArray<[string, number]> = [
  ['Texas, US', 8],
  ['California, US', 6],
  ['Washington, US', 3],
  ['Virginia, US', 4],
  ['Ontario, CA', 3],
  ['Quebec, CA', 4],
  ['Bavaria, DE', 3],
  ['Hesse, DE', 2],
  ['North Holland, NL', 3],
  ['England, GB', 3],
  ['Ile-de-France, FR', 2],
  ['Norway, NO', 2],
  ['Stockholm, SE', 2],
  ['Czechia, CZ', 2],
  ['Poland, PL', 2],
  ['Tokyo, JP', 2],
  ['Seoul, KR', 2],
  ['Taiwan, TW', 2],
  ['Singapore, SG', 2],
  ['New South Wales, AU', 1],
  ['Vietnam, VN', 1],
  ['Sichuan, CN', 1],
  ['Sao Paulo, BR', 1],
];
/** Driver versions by age; a GPU's `minDriver` is the oldest index that supports it. */
const DRIVERS: ReadonlyArray<[string, number]> = [
  ['535.183.01', 12.2],
  ['550.127.05', 12.4],
  ['560.35.03', 12.6],
  ['570.133.07', 12.8],
  ['575.57.08', 12.9],
];
/** Documentation address blocks (RFC 5737): realistic-looking and never anyone's machine. */
const NETS = ['192.0.2', '198.51.100', '203.0.113'] as const;

function packDriver(version: string): number {
  const [a = '0', b = '0', c = '0'] = version.split('.');
  return Number(a) * 1_000_000 + Number(b) * 1_000 + Number(c);
}

/** Stable numeric code per country, standing in for the service's internal `geolocode`. */
function geocode(place: string): number {
  const cc = place.slice(-2);
  return (cc.charCodeAt(0) - 64) * 100 + (cc.charCodeAt(1) - 64);
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
    offers.push(priceOffer(offer, { allocatedStorage: DEFAULT_ALLOCATED_STORAGE, type: 'on-demand' }));
  }
  return offers;
}

function emptyBreakdown(): PriceBreakdown {
  return { gpuCostPerHour: 0, diskHour: 0, totalHour: 0, discountTotalHour: 0, discountedTotalPerHour: 0 };
}

export type PricingType = 'on-demand' | 'bid' | 'reserved';

/** $/hour for `gb` GB of disk at `storageCost` $/GB/month. */
export function storagePerHour(storageCost: number, gb: number): number {
  return round((storageCost * gb) / HOURS_PER_MONTH, 6);
}

/**
 * A copy of `offer` priced for `allocatedStorage` GB of disk and a pricing type. Bid prices use
 * the offer's current minimum bid as the GPU price; reserved prices add the discounted total.
 */
export function priceOffer(offer: Offer, o: { allocatedStorage: number; type: PricingType }): Offer {
  const disk = storagePerHour(offer.storage_cost, o.allocatedStorage);
  const gpu = o.type === 'bid' ? offer.min_bid : offer.dph_base;
  const total = round(gpu + disk, 6);
  const discounted = round(total * (1 - offer.discount_rate), 6);
  const breakdown: PriceBreakdown = {
    gpuCostPerHour: gpu,
    diskHour: disk,
    totalHour: total,
    discountTotalHour: o.type === 'reserved' ? round(total - discounted, 6) : 0,
    discountedTotalPerHour: o.type === 'reserved' ? discounted : total,
  };
  return {
    ...offer,
    is_bid: o.type === 'bid',
    dph_total: total,
    storage_total_cost: disk,
    vram_costperhour: round(disk / Math.max(1, offer.gpu_total_ram / 1024), 8),
    discounted_dph_total: discounted,
    discounted_hourly: discounted,
    dlperf_per_dphtotal: round(offer.dlperf / total, 4),
    flops_per_dphtotal: round(offer.total_flops / total, 4),
    score: round((offer.dlperf / total) * offer.reliability2 ** 2, 4),
    search: breakdown,
    instance: { ...breakdown },
  };
}
