/**
 * The hardware the seeded catalogue draws its machines from: GPU models with their typical prices,
 * CPUs, boards, disks, places, driver versions and address blocks. Data, and two small encoders.
 */

export interface GpuModel {
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

export const GPUS: readonly GpuModel[] = [
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

export interface Cpu {
  name: string;
  cores: number;
  ghz: number;
}

const CPUS: ReadonlyArray<Cpu & { server: boolean }> = [
  { name: 'AMD Ryzen 9 7950X 16-Core Processor', cores: 32, ghz: 4.5, server: false },
  { name: 'AMD Ryzen 9 5950X 16-Core Processor', cores: 32, ghz: 3.4, server: false },
  { name: 'Intel Core i9-13900K', cores: 32, ghz: 3.0, server: false },
  { name: 'AMD Ryzen Threadripper PRO 5975WX 32-Cores', cores: 64, ghz: 3.6, server: false },
  { name: 'Intel Xeon E5-2698 v4', cores: 40, ghz: 2.2, server: false },
  { name: 'AMD EPYC 7543 32-Core Processor', cores: 64, ghz: 2.8, server: true },
  { name: 'AMD EPYC 7763 64-Core Processor', cores: 128, ghz: 2.45, server: true },
  { name: 'AMD EPYC 9654 96-Core Processor', cores: 192, ghz: 2.4, server: true },
  { name: 'Intel Xeon Platinum 8480+', cores: 112, ghz: 2.0, server: true },
  { name: 'Intel Xeon Gold 6342 CPU @ 2.80GHz', cores: 48, ghz: 2.8, server: true },
];
/** CPUs of workstations and of servers (data-centre GPUs and hosts get a server CPU). */
export const CONSUMER_CPUS: readonly Cpu[] = CPUS.filter((c) => !c.server);
export const SERVER_CPUS: readonly Cpu[] = CPUS.filter((c) => c.server);
export const MOBOS = ['ROMED8-2T', 'H12SSL-i', 'WRX80 Creator', 'PRO WS W790-ACE', 'X13DEG-OA', 'G593-SD0', 'B650M-HDV'] as const;
export const DISKS = [
  'Samsung SSD 990 PRO 2TB',
  'SAMSUNG MZQL23T8HCLS',
  'Micron_7450_MTFDKCC3T8TFR',
  'KINGSTON SFYRD4000G',
  'WD_BLACK SN850X 4000GB',
] as const;
/** "Region, CC" as the service shows it. The country code is what the `geolocation` filter matches. */
export const PLACES: ReadonlyArray<[string, number]> = [
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
export const DRIVERS: ReadonlyArray<[string, number]> = [
  ['535.183.01', 12.2],
  ['550.127.05', 12.4],
  ['560.35.03', 12.6],
  ['570.133.07', 12.8],
  ['575.57.08', 12.9],
];
/** Documentation address blocks (RFC 5737): realistic-looking and never anyone's machine. */
export const NETS = ['192.0.2', '198.51.100', '203.0.113'] as const;

export function packDriver(version: string): number {
  const [a = '0', b = '0', c = '0'] = version.split('.');
  return Number(a) * 1_000_000 + Number(b) * 1_000 + Number(c);
}

/** Stable numeric code per country, standing in for the service's internal `geolocode`. */
export function geocode(place: string): number {
  const cc = place.slice(-2);
  return (cc.charCodeAt(0) - 64) * 100 + (cc.charCodeAt(1) - 64);
}
