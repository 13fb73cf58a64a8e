/**
 * The Offer Explorer's column definitions: what each column shows of an offer, its header, spoken
 * name and width, and the value it sorts by. How values read is in cellText.ts.
 */
import type { Offer } from '../../api/offers';
import type { OfferType } from '../../api/offerQuery';
import { formatDollars } from '../../format';
import type { PriceContext } from '../priceContext';
import { l10n } from '../../l10n';
import { driverKey, durationText, fixed, gbFromMb, gbText, known, pricePerGpu, rentalTypeText, rounded, verifiedOf } from './cellText';

/**
 * What the price-context column shows for one offer: a short text ("18% under"), the whole
 * sentence ("18% under the 7-day median") and the signed difference to the going rate (-0.18).
 */
export interface RowPriceContext {
  readonly text: string;
  readonly sentence: string;
  readonly delta: number;
}

/** The row's form of core's PriceContext (src/core/offers/priceContext.ts). */
export function rowPriceContext(context: PriceContext | undefined): RowPriceContext | undefined {
  if (!context) return undefined;
  const sign = context.relation === 'under' ? -1 : context.relation === 'over' ? 1 : 0;
  const text = context.relation === 'at' ? l10n.t('at median') : `${context.percent}% ${context.relation}`;
  return { text, sentence: context.text, delta: (sign * context.percent) / 100 };
}

/** What a row needs besides its offer: the search's rental type, and the price context when the GPU's stats are known. */
export interface RowContext {
  readonly type: OfferType;
  readonly priceContext?: (offer: Offer) => RowPriceContext | undefined;
}

export type ColumnKind = 'number' | 'text';

export interface ColumnSpec {
  readonly id: ColumnId;
  /** The header text. */
  readonly label: string;
  /** The spoken name: the header's aria-label and the live region's "sorted by …". */
  readonly name: string;
  readonly kind: ColumnKind;
  /** Width in CSS pixels until the user resizes it. */
  readonly width: number;
  readonly visibleByDefault: boolean;
  /** The value a sort compares; undefined (unknown) sorts last in either direction. */
  value(offer: Offer, ctx: RowContext): number | string | undefined;
  /** The cell's text; '' when the value is unknown. */
  text(offer: Offer, ctx: RowContext): string;
}

export const COLUMN_IDS = [
  'gpu',
  'count',
  'vram',
  'price',
  'pricePerGpu',
  'dlperf',
  'dlperfPerDollar',
  'priceContext',
  'tflops',
  'reliability',
  'verified',
  'location',
  'cluster',
  'inetUp',
  'inetDown',
  'diskSpace',
  'diskBw',
  'cpuCores',
  'ram',
  'cuda',
  'driver',
  'maxDuration',
  'rentalType',
] as const;
export type ColumnId = (typeof COLUMN_IDS)[number];

function col(
  id: ColumnId,
  label: string,
  name: string,
  kind: ColumnKind,
  width: number,
  visibleByDefault: boolean,
  value: ColumnSpec['value'],
  text: ColumnSpec['text'],
): ColumnSpec {
  return { id, label, name, kind, width, visibleByDefault, value, text };
}

/** Every column, in the order the table shows them. */
export const COLUMNS: readonly ColumnSpec[] = Object.freeze([
  col(
    'gpu',
    'GPU',
    l10n.t('GPU model'),
    'text',
    140,
    true,
    (o) => o.gpu_name,
    (o) => o.gpu_name,
  ),
  col(
    'count',
    '#',
    l10n.t('GPU count'),
    'number',
    40,
    true,
    (o) => o.num_gpus,
    (o) => String(o.num_gpus),
  ),
  col(
    'vram',
    'VRAM',
    l10n.t('memory per GPU'),
    'number',
    64,
    true,
    (o) => gbFromMb(o.gpu_ram),
    (o) => gbText(o.gpu_ram),
  ),
  col(
    'price',
    '$/h',
    l10n.t('price per hour'),
    'number',
    70,
    true,
    (o) => o.dph_total,
    (o) => formatDollars(o.dph_total),
  ),
  col(
    'pricePerGpu',
    '$/GPU/h',
    l10n.t('price per GPU hour'),
    'number',
    84,
    true,
    (o) => pricePerGpu(o),
    (o) => {
      const p = pricePerGpu(o);
      return p === undefined ? '' : formatDollars(p);
    },
  ),
  col(
    'dlperf',
    'DLPerf',
    'DLPerf',
    'number',
    64,
    true,
    (o) => o.dlperf ?? undefined,
    (o) => fixed(o.dlperf, 1),
  ),
  col(
    'dlperfPerDollar',
    'DLPerf/$',
    l10n.t('DLPerf per dollar'),
    'number',
    96,
    true,
    (o) => o.dlperf_per_dphtotal ?? undefined,
    (o) => fixed(o.dlperf_per_dphtotal, 1),
  ),
  col(
    'priceContext',
    l10n.t('vs. median'),
    l10n.t('price against the going rate'),
    'number',
    110,
    true,
    (o, c) => c.priceContext?.(o)?.delta,
    (o, c) => c.priceContext?.(o)?.text ?? '',
  ),
  col(
    'tflops',
    'TFLOPS',
    'TFLOPS',
    'number',
    64,
    false,
    (o) => o.total_flops ?? undefined,
    (o) => fixed(o.total_flops, 1),
  ),
  col(
    'reliability',
    l10n.t('Reliab.'),
    'reliability',
    'number',
    76,
    true,
    (o) => o.reliability2 ?? undefined,
    (o) => (known(o.reliability2) ? `${(o.reliability2 * 100).toFixed(1)}%` : ''),
  ),
  col(
    'verified',
    l10n.t('Verified'),
    'verified',
    'text',
    60,
    false,
    (o) => {
      const v = verifiedOf(o);
      return v === undefined ? undefined : v ? 'yes' : 'no';
    },
    (o) => {
      const v = verifiedOf(o);
      return v === undefined ? '' : v ? l10n.t('yes') : l10n.t('no');
    },
  ),
  col(
    'location',
    l10n.t('Location'),
    'location',
    'text',
    110,
    true,
    (o) => o.geolocation ?? undefined,
    (o) => o.geolocation ?? '',
  ),
  col(
    'cluster',
    l10n.t('Cluster'),
    l10n.t('cluster ID'),
    'number',
    64,
    false,
    (o) => (known(o.cluster_id) ? o.cluster_id : undefined),
    (o) => (known(o.cluster_id) ? String(o.cluster_id) : ''),
  ),
  col(
    'inetUp',
    '↑ Mb/s',
    l10n.t('internet upload, megabits per second'),
    'number',
    64,
    false,
    (o) => o.inet_up ?? undefined,
    (o) => rounded(o.inet_up),
  ),
  col(
    'inetDown',
    '↓ Mb/s',
    l10n.t('internet download, megabits per second'),
    'number',
    64,
    true,
    (o) => o.inet_down ?? undefined,
    (o) => rounded(o.inet_down),
  ),
  col(
    'diskSpace',
    l10n.t('Disk GB'),
    l10n.t('disk space, gigabytes'),
    'number',
    64,
    false,
    (o) => o.disk_space ?? undefined,
    (o) => rounded(o.disk_space),
  ),
  col(
    'diskBw',
    l10n.t('Disk MB/s'),
    l10n.t('disk bandwidth, megabytes per second'),
    'number',
    72,
    false,
    (o) => o.disk_bw ?? undefined,
    (o) => rounded(o.disk_bw),
  ),
  col(
    'cpuCores',
    'vCPU',
    l10n.t('CPU cores'),
    'number',
    48,
    false,
    (o) => o.cpu_cores_effective ?? undefined,
    (o) => (known(o.cpu_cores_effective) ? String(Math.round(o.cpu_cores_effective * 10) / 10) : ''),
  ),
  col(
    'ram',
    'RAM',
    l10n.t('system memory'),
    'number',
    64,
    false,
    (o) => gbFromMb(o.cpu_ram),
    (o) => gbText(o.cpu_ram),
  ),
  col(
    'cuda',
    'CUDA',
    l10n.t('CUDA version'),
    'number',
    48,
    false,
    (o) => o.cuda_max_good ?? undefined,
    (o) => (known(o.cuda_max_good) ? String(o.cuda_max_good) : ''),
  ),
  col(
    'driver',
    l10n.t('Driver'),
    l10n.t('driver version'),
    'text',
    80,
    false,
    (o) => driverKey(o.driver_version),
    (o) => o.driver_version ?? '',
  ),
  col(
    'maxDuration',
    l10n.t('Max dur.'),
    l10n.t('maximum duration'),
    'number',
    60,
    false,
    (o) => (known(o.duration) && o.duration > 0 ? o.duration : undefined),
    (o) => durationText(o.duration),
  ),
  col(
    'rentalType',
    l10n.t('Type'),
    l10n.t('rental type'),
    'text',
    90,
    false,
    (o, c) => rentalTypeText(o, c.type),
    (o, c) => rentalTypeText(o, c.type),
  ),
]);

const BY_ID: ReadonlyMap<string, ColumnSpec> = new Map(COLUMNS.map((c) => [c.id, c]));

export function isColumnId(value: unknown): value is ColumnId {
  return typeof value === 'string' && BY_ID.has(value);
}

export function columnById(id: ColumnId): ColumnSpec {
  return BY_ID.get(id)!;
}

export const DEFAULT_VISIBLE_COLUMNS: readonly ColumnId[] = Object.freeze(COLUMNS.filter((c) => c.visibleByDefault).map((c) => c.id));
