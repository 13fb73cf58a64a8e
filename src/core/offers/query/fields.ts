/**
 * What the offer query language knows about fields: the ones we can describe, the CLI's aliases and the
 * fields people type in other units than the API uses. Unknown fields are still accepted by the parser.
 */

export type OfferQueryFieldKind = 'number' | 'bool' | 'string';

export interface OfferQueryField {
  /** The API name, as it appears in filters. */
  name: string;
  kind: OfferQueryFieldKind;
  /** The unit a person types in the query (which may differ from the API's, see `unitFactor`). */
  unit?: string;
  description: string;
}

const f = (name: string, kind: OfferQueryFieldKind, description: string, unit?: string): OfferQueryField =>
  unit === undefined ? { name, kind, description } : { name, kind, unit, description };

/** Fields worth offering in completion and help, with the units they are typed in. */
export const OFFER_QUERY_FIELDS: readonly OfferQueryField[] = Object.freeze([
  f('num_gpus', 'number', 'Number of GPUs in the offer'),
  f('gpu_name', 'string', 'GPU model; write spaces as underscores (RTX_4090) or quote the name ("RTX 4090")'),
  f('gpu_ram', 'number', 'Memory per GPU', 'GB'),
  f('gpu_total_ram', 'number', 'Memory of all GPUs together', 'GB'),
  f('gpu_arch', 'string', 'GPU vendor architecture: nvidia or amd'),
  f('gpu_frac', 'number', "Share of the machine's GPUs this offer covers (0..1)"),
  f('gpu_mem_bw', 'number', 'GPU memory bandwidth', 'GB/s'),
  f('gpu_max_power', 'number', 'GPU power limit', 'W'),
  f('gpu_max_temp', 'number', 'GPU temperature limit', '°C'),
  f('gpu_display_active', 'bool', 'A display is attached to the GPU (alias: display_active)'),
  f('bw_nvlink', 'number', 'NVLink bandwidth', 'GB/s'),
  f('pcie_bw', 'number', 'PCIe bandwidth', 'GB/s'),
  f('pci_gen', 'number', 'PCIe generation'),
  f('gpu_lanes', 'number', 'PCIe lanes per GPU'),
  f('compute_cap', 'number', 'CUDA compute capability times 100 (8.9 is 890)'),
  f('cuda_max_good', 'number', 'Highest CUDA version the driver supports, e.g. 12.8 (alias: cuda_vers)'),
  f('driver_version', 'string', 'NVIDIA driver version, e.g. 535.86.05'),
  f('driver_vers', 'number', 'Driver version packed into an integer (535.86.05 is 535086005)'),
  f('cpu_name', 'string', 'CPU model'),
  f('cpu_arch', 'string', 'CPU architecture: amd64 or arm64'),
  f('cpu_cores', 'number', 'CPU cores of the whole machine'),
  f('cpu_cores_effective', 'number', 'Virtual CPUs you get'),
  f('cpu_ghz', 'number', 'CPU clock', 'GHz'),
  f('cpu_ram', 'number', 'System memory', 'GB'),
  f('has_avx', 'number', 'The CPU supports AVX (1) or not (0)'),
  f('disk_space', 'number', 'Disk space available', 'GB'),
  f('disk_bw', 'number', 'Disk bandwidth', 'MB/s'),
  f('disk_name', 'string', 'Disk model'),
  f('mobo_name', 'string', 'Motherboard model'),
  f('os_version', 'string', 'Host operating system version'),
  f('inet_up', 'number', 'Upload speed', 'Mb/s'),
  f('inet_down', 'number', 'Download speed', 'Mb/s'),
  f('inet_up_cost', 'number', 'Upload price', '$/GB'),
  f('inet_down_cost', 'number', 'Download price', '$/GB'),
  f('direct_port_count', 'number', "Ports open on the host's router"),
  f('dph_total', 'number', 'Total price including storage (alias: dph)', '$/hour'),
  f('dph_base', 'number', 'Price without storage', '$/hour'),
  f('min_bid', 'number', 'Current minimum bid for interruptible use', '$/hour'),
  f('discounted_dph_total', 'number', 'Price with the reserved-pricing discount', '$/hour'),
  f('storage_cost', 'number', 'Storage price', '$/GB/month'),
  f('storage_total_cost', 'number', 'Storage price for the allocated disk', '$/hour'),
  f('dlperf', 'number', 'Deep-learning performance score (DLPerf)'),
  f('dlperf_per_dphtotal', 'number', 'DLPerf per dollar per hour (alias: dlperf_usd)'),
  f('total_flops', 'number', 'Total compute', 'TFLOPS'),
  f('flops_per_dphtotal', 'number', 'TFLOPS per dollar per hour (alias: flops_usd)'),
  f('score', 'number', 'Overall ranking score'),
  f('reliability', 'number', 'Host reliability (0..1)'),
  f('verified', 'bool', 'The machine is verified'),
  f('verification', 'string', 'verified, unverified or deverified'),
  f('rentable', 'bool', 'The offer can be rented now'),
  f('rented', 'bool', 'The machine is already rented'),
  f('external', 'bool', 'Listed by an external provider'),
  f('static_ip', 'bool', 'The host has a static IP address'),
  f('datacenter', 'bool', 'Hosted in a datacenter (secure cloud)'),
  f('hosting_type', 'number', 'Hosting type code (0 or 1)'),
  f('geolocation', 'string', 'Country, as a two-letter code such as US; use in [US,CA] for several'),
  f('duration', 'number', 'How long the offer stays available', 'days'),
  f('machine_id', 'number', 'Machine id'),
  f('host_id', 'number', 'Host id'),
  f('id', 'number', 'Offer id'),
]);

/** CLI alias -> API name. */
export const OFFER_QUERY_ALIASES: ReadonlyMap<string, string> = new Map([
  ['cuda_vers', 'cuda_max_good'],
  ['display_active', 'gpu_display_active'],
  ['dlperf_usd', 'dlperf_per_dphtotal'],
  ['dph', 'dph_total'],
  ['flops_usd', 'flops_per_dphtotal'],
]);

/** How many API units one typed unit is: GB to MB, days to seconds. */
export const UNIT_FACTORS: ReadonlyMap<string, bigint> = new Map([
  ['cpu_ram', 1000n],
  ['gpu_ram', 1000n],
  ['gpu_total_ram', 1000n],
  ['duration', 86400n],
]);

/** The field whose `major.minor.patch` values are packed into an integer. */
export const DRIVER_VERSION_FIELD = 'driver_version';

/** Keys of the query language that are settings rather than filters. */
export const SPECIAL_KEYS: ReadonlySet<string> = new Set(['type', 'order', 'limit', 'allocated_storage']);

const KNOWN = new Set<string>([...OFFER_QUERY_FIELDS.map((x) => x.name), ...OFFER_QUERY_ALIASES.keys(), ...SPECIAL_KEYS]);

/** Whether a name typed in a query is one we know (an API field, an alias or `type`/`order`). */
export function isKnownQueryField(name: string): boolean {
  return KNOWN.has(name);
}

/** The API name for a typed field name. */
export function canonicalField(name: string): string {
  return OFFER_QUERY_ALIASES.get(name) ?? name;
}
