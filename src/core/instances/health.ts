import type { Instance } from '../api/instances';
import { l10n } from '../l10n';

/** A GPU this hot (°C) is flagged: sustained, it throttles and shortens the card's life. */
export const HOT_GPU_C = 85;
/** A disk this full (fraction) is flagged: a job writing checkpoints fails when it fills. */
export const FULL_DISK = 0.9;

/**
 * A running instance's health as the instance list reports it. Each field is left out when the
 * service did not send it (or sent something that cannot be read in a known unit).
 */
export interface Health {
  /** 0 to 100. */
  gpuUtilPct?: number;
  gpuTempC?: number;
  vramUsedGb?: number;
  vramTotalGb?: number;
  diskUsedGb?: number;
  diskTotalGb?: number;
  hot: boolean;
  diskNearlyFull: boolean;
}

/** The fields the health reading uses; all optional, as the service sends them when it has them. */
export type HealthFields = Pick<
  Instance,
  'gpu_util' | 'gpu_temp' | 'vmem_usage' | 'gpu_ram' | 'gpu_totalram' | 'num_gpus' | 'disk_usage' | 'disk_space'
>;

const MB_PER_GB = 1024;

function finite(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * GPU utilisation in percent. The API description says a fraction while the service's records
 * and this project's idle check read a percentage: a value strictly between 0 and 1 can only be a
 * fraction (GPU drivers report whole percents); anything else is read as a percentage.
 */
export function gpuUtilPercent(value: number | null | undefined): number | undefined {
  if (!finite(value) || value < 0) return undefined;
  const pct = value > 0 && value < 1 ? value * 100 : value;
  return pct <= 100 ? pct : undefined;
}

/**
 * The instance's health, or undefined when the service sent none of it. Units: `gpu_temp` °C;
 * `gpu_totalram` (else `gpu_ram` × `num_gpus`) MB; `vmem_usage` GB as the service's records show it
 * (the API description says MB: a value above the card's total can only be MB and is converted);
 * `disk_space` GB allocated and `disk_usage` GB used (a negative value means unknown, and a value
 * above the allocation is a unit this cannot read, so it is left out).
 */
export function instanceHealth(instance: HealthFields): Health | undefined {
  const gpuUtilPct = gpuUtilPercent(instance.gpu_util);
  const gpuTempC = finite(instance.gpu_temp) && instance.gpu_temp > 0 && instance.gpu_temp < 150 ? instance.gpu_temp : undefined;
  const totalMb = finite(instance.gpu_totalram)
    ? instance.gpu_totalram
    : finite(instance.gpu_ram)
      ? instance.gpu_ram * (finite(instance.num_gpus) && instance.num_gpus > 0 ? instance.num_gpus : 1)
      : undefined;
  const vramTotalGb = totalMb !== undefined && totalMb > 0 ? totalMb / MB_PER_GB : undefined;
  let vramUsedGb: number | undefined;
  if (finite(instance.vmem_usage) && instance.vmem_usage >= 0) {
    vramUsedGb = instance.vmem_usage;
    if (vramTotalGb !== undefined && vramUsedGb > vramTotalGb * 1.05) vramUsedGb = vramUsedGb / MB_PER_GB;
    if (vramTotalGb !== undefined && vramUsedGb > vramTotalGb * 1.05) vramUsedGb = undefined;
  }
  const diskTotalGb = finite(instance.disk_space) && instance.disk_space > 0 ? instance.disk_space : undefined;
  const diskUsedGb =
    finite(instance.disk_usage) && instance.disk_usage >= 0 && (diskTotalGb === undefined || instance.disk_usage <= diskTotalGb * 1.01)
      ? instance.disk_usage
      : undefined;
  const health: Health = {
    gpuUtilPct,
    gpuTempC,
    vramUsedGb,
    vramTotalGb,
    diskUsedGb,
    diskTotalGb,
    hot: gpuTempC !== undefined && gpuTempC >= HOT_GPU_C,
    diskNearlyFull: diskUsedGb !== undefined && diskTotalGb !== undefined && diskUsedGb / diskTotalGb >= FULL_DISK,
  };
  const known = [gpuUtilPct, gpuTempC, vramUsedGb, diskUsedGb].some((v) => v !== undefined);
  return known ? health : undefined;
}

/** The disk's fill in percent, when both figures are known. */
export function diskPercent(h: Health): number | undefined {
  return h.diskUsedGb !== undefined && h.diskTotalGb !== undefined ? (h.diskUsedGb / h.diskTotalGb) * 100 : undefined;
}

/** The row's compact health: "GPU 87% · 71°C", with "hot" and "disk 93% full" when flagged. */
export function healthDescription(h: Health): string {
  const parts: string[] = [];
  const gpu = [
    h.gpuUtilPct === undefined ? undefined : `${Math.round(h.gpuUtilPct)}%`,
    h.gpuTempC === undefined ? undefined : `${Math.round(h.gpuTempC)}°C`,
  ]
    .filter((p) => p !== undefined)
    .join(' · ');
  if (gpu) parts.push(`GPU ${gpu}${h.hot ? ' hot' : ''}`);
  const disk = diskPercent(h);
  if (h.diskNearlyFull && disk !== undefined) parts.push(l10n.t('disk {0}% full', Math.round(disk)));
  return parts.join(' · ');
}

/** The tooltip's health rows: label and value, the flagged ones saying why they matter. */
export function healthRows(h: Health): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  if (h.gpuUtilPct !== undefined) rows.push([l10n.t('GPU utilisation'), `${Math.round(h.gpuUtilPct)}%`]);
  if (h.gpuTempC !== undefined)
    rows.push([
      l10n.t('GPU temperature'),
      h.hot
        ? l10n.t('{0} °C ⚠ hot ({1} °C or more): the GPU may throttle', Math.round(h.gpuTempC), HOT_GPU_C)
        : `${Math.round(h.gpuTempC)} °C`,
    ]);
  if (h.vramUsedGb !== undefined)
    rows.push([
      'VRAM',
      h.vramTotalGb === undefined ? `${gb(h.vramUsedGb)} used` : l10n.t('{0} of {1} used', gb(h.vramUsedGb), gb(h.vramTotalGb)),
    ]);
  if (h.diskUsedGb !== undefined) {
    const pct = diskPercent(h);
    const of = h.diskTotalGb === undefined ? '' : ` of ${gb(h.diskTotalGb)}`;
    const used = `${gb(h.diskUsedGb)}${of}${pct === undefined ? '' : ` (${Math.round(pct)}%)`}`;
    rows.push([l10n.t('Disk used'), h.diskNearlyFull ? l10n.t('{0} ⚠ nearly full: free space or a job writing to it fails', used) : used]);
  }
  return rows;
}

/** Health as a screen reader says it: "GPU 87 percent, 71 degrees Celsius, hot". */
export function healthSpoken(h: Health): string {
  const parts: string[] = [];
  if (h.gpuUtilPct !== undefined) parts.push(l10n.t('GPU {0} percent', Math.round(h.gpuUtilPct)));
  if (h.gpuTempC !== undefined)
    parts.push(h.hot ? l10n.t('{0} degrees Celsius, hot', Math.round(h.gpuTempC)) : l10n.t('{0} degrees Celsius', Math.round(h.gpuTempC)));
  const disk = diskPercent(h);
  if (h.diskNearlyFull && disk !== undefined) parts.push(l10n.t('disk {0} percent full', Math.round(disk)));
  return parts.join(', ');
}

function gb(value: number): string {
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} GB`;
}
