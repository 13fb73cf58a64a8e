import { l10n } from '../../l10n';
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
  f('num_gpus', 'number', l10n.t('Number of GPUs in the offer')),
  f('gpu_name', 'string', l10n.t('GPU model; write spaces as underscores (RTX_4090) or quote the name ("RTX 4090")')),
  f('gpu_ram', 'number', l10n.t('Memory per GPU'), 'GB'),
  f('gpu_total_ram', 'number', l10n.t('Memory of all GPUs together'), 'GB'),
  f('gpu_arch', 'string', l10n.t('GPU vendor architecture: nvidia or amd')),
  f('gpu_frac', 'number', l10n.t("Share of the machine's GPUs this offer covers (0..1)")),
  f('gpu_mem_bw', 'number', l10n.t('GPU memory bandwidth'), 'GB/s'),
  f('gpu_max_power', 'number', l10n.t('GPU power limit'), 'W'),
  f('gpu_max_temp', 'number', l10n.t('GPU temperature limit'), '°C'),
  f('gpu_display_active', 'bool', l10n.t('A display is attached to the GPU (alias: display_active)')),
  f('bw_nvlink', 'number', l10n.t('NVLink bandwidth'), 'GB/s'),
  f('pcie_bw', 'number', l10n.t('PCIe bandwidth'), 'GB/s'),
  f('pci_gen', 'number', l10n.t('PCIe generation')),
  f('gpu_lanes', 'number', l10n.t('PCIe lanes per GPU')),
  f('compute_cap', 'number', l10n.t('CUDA compute capability times 100 (8.9 is 890)')),
  f('cuda_max_good', 'number', l10n.t('Highest CUDA version the driver supports, e.g. 12.8 (alias: cuda_vers)')),
  f('driver_version', 'string', l10n.t('NVIDIA driver version, e.g. 535.86.05')),
  f('driver_vers', 'number', l10n.t('Driver version packed into an integer (535.86.05 is 535086005)')),
  f('cpu_name', 'string', l10n.t('CPU model')),
  f('cpu_arch', 'string', l10n.t('CPU architecture: amd64 or arm64')),
  f('cpu_cores', 'number', l10n.t('CPU cores of the whole machine')),
  f('cpu_cores_effective', 'number', l10n.t('Virtual CPUs you get')),
  f('cpu_ghz', 'number', l10n.t('CPU clock'), 'GHz'),
  f('cpu_ram', 'number', l10n.t('System memory'), 'GB'),
  f('has_avx', 'number', l10n.t('The CPU supports AVX (1) or not (0)')),
  f('disk_space', 'number', l10n.t('Disk space available'), 'GB'),
  f('disk_bw', 'number', l10n.t('Disk bandwidth'), 'MB/s'),
  f('disk_name', 'string', l10n.t('Disk model')),
  f('mobo_name', 'string', l10n.t('Motherboard model')),
  f('os_version', 'string', l10n.t('Host operating system version')),
  f('inet_up', 'number', l10n.t('Upload speed'), 'Mb/s'),
  f('inet_down', 'number', l10n.t('Download speed'), 'Mb/s'),
  f('inet_up_cost', 'number', l10n.t('Upload price'), '$/GB'),
  f('inet_down_cost', 'number', l10n.t('Download price'), '$/GB'),
  f('direct_port_count', 'number', l10n.t("Ports open on the host's router")),
  f('dph_total', 'number', l10n.t('Total price including storage (alias: dph)'), '$/hour'),
  f('dph_base', 'number', l10n.t('Price without storage'), '$/hour'),
  f('min_bid', 'number', l10n.t('Current minimum bid for interruptible use'), '$/hour'),
  f('discounted_dph_total', 'number', l10n.t('Price with the reserved-pricing discount'), '$/hour'),
  f('storage_cost', 'number', l10n.t('Storage price'), '$/GB/month'),
  f('storage_total_cost', 'number', l10n.t('Storage price for the allocated disk'), '$/hour'),
  f('dlperf', 'number', l10n.t('Deep-learning performance score (DLPerf)')),
  f('dlperf_per_dphtotal', 'number', l10n.t('DLPerf per dollar per hour (alias: dlperf_usd)')),
  f('total_flops', 'number', l10n.t('Total compute'), 'TFLOPS'),
  f('flops_per_dphtotal', 'number', l10n.t('TFLOPS per dollar per hour (alias: flops_usd)')),
  f('score', 'number', l10n.t('Overall ranking score')),
  f('reliability', 'number', l10n.t('Host reliability (0..1)')),
  f('verified', 'bool', l10n.t('The machine is verified')),
  f('verification', 'string', l10n.t('verified, unverified or deverified')),
  f('rentable', 'bool', l10n.t('The offer can be rented now')),
  f('rented', 'bool', l10n.t('The machine is already rented')),
  f('external', 'bool', l10n.t('Listed by an external provider')),
  f('static_ip', 'bool', l10n.t('The host has a static IP address')),
  f('datacenter', 'bool', l10n.t('Hosted in a datacenter (secure cloud)')),
  f('hosting_type', 'number', l10n.t('Hosting type code (0 or 1)')),
  f('geolocation', 'string', l10n.t('Country, as a two-letter code such as US; use in [US,CA] for several')),
  f('duration', 'number', l10n.t('How long the offer stays available'), 'days'),
  f('machine_id', 'number', l10n.t('Machine id')),
  f(
    'cluster_id',
    'number',
    l10n.t(
      'Physical cluster whose machines share a fast network; cluster_id!=None finds machines in any cluster, cluster_id=ID one cluster',
    ),
  ),
  f('host_id', 'number', l10n.t('Host id')),
  f('id', 'number', l10n.t('Offer id')),
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
