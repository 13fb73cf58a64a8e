/**
 * The Offer Explorer's columns: what each shows of an offer, how it reads, how it sorts. Shared by
 * the extension (which checks the remembered column choice) and the webview (which draws them).
 * Values are in the units people compare in: GB for memory, Mb/s for the network, MB/s for disk,
 * days for how long an offer stays.
 */
import type { Offer } from '../../api/offers';
import { formatDollars } from '../../format';
import type { PriceContext } from '../priceContext';
import type { OfferType } from '../../api/offerQuery';
import { l10n } from '../../l10n';

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

const known = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);
const fixed = (n: number | null | undefined, digits: number): string => (known(n) ? n.toFixed(digits) : '');
const rounded = (n: number | null | undefined): string => (known(n) ? Math.round(n).toLocaleString('en-US') : '');

/** MB → GB the way the Offers view shows it (1024 MB a GB), one decimal under 10 GB. */
export function gbFromMb(mb: number | null | undefined): number | undefined {
  return known(mb) ? mb / 1024 : undefined;
}
function gbText(mb: number | null | undefined): string {
  const gb = gbFromMb(mb);
  if (gb === undefined) return '';
  return gb >= 10 ? `${Math.round(gb)} GB` : `${gb.toFixed(1)} GB`;
}

/** The price of one GPU-hour of the offer. */
export function pricePerGpu(offer: Offer): number | undefined {
  return offer.num_gpus > 0 ? offer.dph_total / offer.num_gpus : undefined;
}

/** "on-demand", or "interruptible" with the current minimum bid, or "reserved". */
export function rentalTypeText(offer: Offer, type: OfferType): string {
  if (type === 'bid') return known(offer.min_bid) ? l10n.t('interruptible, min {0}/h', formatDollars(offer.min_bid)) : 'interruptible';
  return type;
}

/** 3.5 days → "3.5 d", 30 hours → "30 h", as max duration reads in a narrow column. */
export function durationText(seconds: number | null | undefined): string {
  if (!known(seconds) || seconds <= 0) return '';
  const days = seconds / 86_400;
  if (days >= 10) return `${Math.round(days)} d`;
  if (days >= 1) return `${days.toFixed(1)} d`;
  return `${Math.max(1, Math.round(seconds / 3600))} h`;
}

function verifiedOf(offer: Offer): boolean | undefined {
  if (typeof offer.verified === 'boolean') return offer.verified;
  return offer.verification ? offer.verification === 'verified' : undefined;
}

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

/** "535.86.05" sorts as 535086005, so 535.104 comes after 535.86 as it should. */
function driverKey(version: string | null | undefined): number | undefined {
  if (!version) return undefined;
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version);
  if (!m) return undefined;
  return Number(m[1]) * 1_000_000 + Number(m[2] ?? 0) * 1_000 + Number(m[3] ?? 0);
}

const BY_ID: ReadonlyMap<string, ColumnSpec> = new Map(COLUMNS.map((c) => [c.id, c]));

export function isColumnId(value: unknown): value is ColumnId {
  return typeof value === 'string' && BY_ID.has(value);
}

export function columnById(id: ColumnId): ColumnSpec {
  return BY_ID.get(id)!;
}

export const DEFAULT_VISIBLE_COLUMNS: readonly ColumnId[] = Object.freeze(COLUMNS.filter((c) => c.visibleByDefault).map((c) => c.id));

export const MIN_COLUMN_WIDTH = 32;
export const MAX_COLUMN_WIDTH = 600;

/** The explorer's remembered column choice: which show, in which order, and widths the user changed. */
export interface ColumnLayout {
  visible: ColumnId[];
  widths: Partial<Record<ColumnId, number>>;
}

export const DEFAULT_COLUMN_LAYOUT: ColumnLayout = Object.freeze({ visible: [...DEFAULT_VISIBLE_COLUMNS], widths: {} }) as ColumnLayout;

/**
 * Reads a column layout from anywhere (stored state, a message): unknown or repeated column ids
 * are dropped, widths are clamped; nothing readable gives the default. The GPU column always shows.
 */
export function readColumnLayout(raw: unknown): ColumnLayout {
  if (!raw || typeof raw !== 'object') return { visible: [...DEFAULT_VISIBLE_COLUMNS], widths: {} };
  const r = raw as { visible?: unknown; widths?: unknown };
  const visible = Array.isArray(r.visible) ? [...new Set(r.visible.filter(isColumnId))] : [...DEFAULT_VISIBLE_COLUMNS];
  if (!visible.includes('gpu')) visible.unshift('gpu');
  const widths: Partial<Record<ColumnId, number>> = {};
  if (r.widths && typeof r.widths === 'object') {
    for (const [id, w] of Object.entries(r.widths as Record<string, unknown>)) {
      if (isColumnId(id) && typeof w === 'number' && Number.isFinite(w)) widths[id] = clampWidth(w);
    }
  }
  return { visible, widths };
}

export function clampWidth(width: number): number {
  return Math.round(Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, width)));
}

export function columnWidth(layout: ColumnLayout, id: ColumnId): number {
  return layout.widths[id] ?? columnById(id).width;
}
