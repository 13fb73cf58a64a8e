/**
 * How the Offer Explorer's offers travel from the extension to its page. The page shows a handful
 * of columns of up to 10,000 offers, so it gets only the fields it shows, sorts, narrows, plots and
 * groups by (pageFields), one typed array per field (OfferColumns): numbers as Float64, text as an
 * index into a table where each string is written once (GPU models and places repeat thousands of
 * times). VS Code posts typed arrays to a webview as binary, so 10,000 offers cost no JSON writing
 * and reading number by number. The extension keeps the full offers; the page asks for one by id
 * for its details.
 */
import type { Offer } from '../../api/offers';
import { l10n } from '../../l10n';
import type { ColumnId } from './columnSpecs';

type FieldKind = 'number' | 'string' | 'boolean';

/** Every field of an offer that may travel to the page, with its kind: all but the nested price breakdown (`search`). */
export const OFFER_FIELD_KINDS = {
  id: 'number',
  num_gpus: 'number',
  gpu_name: 'string',
  gpu_ram: 'number',
  dph_total: 'number',
  machine_id: 'number',
  host_id: 'number',
  cluster_id: 'number',
  cpu_name: 'string',
  cpu_cores_effective: 'number',
  cpu_ram: 'number',
  disk_space: 'number',
  inet_up: 'number',
  inet_down: 'number',
  direct_port_count: 'number',
  dph_base: 'number',
  min_bid: 'number',
  storage_cost: 'number',
  storage_total_cost: 'number',
  dlperf: 'number',
  dlperf_per_dphtotal: 'number',
  reliability2: 'number',
  verification: 'string',
  verified: 'boolean',
  rentable: 'boolean',
  geolocation: 'string',
  cuda_max_good: 'number',
  driver_version: 'string',
  pci_gen: 'number',
  gpu_lanes: 'number',
  disk_bw: 'number',
  total_flops: 'number',
  duration: 'number',
  is_bid: 'boolean',
} as const satisfies Record<Exclude<keyof Offer, 'search'>, FieldKind>;
export type TransferField = keyof typeof OFFER_FIELD_KINDS;

const isTransferField = (name: string): name is TransferField => Object.prototype.hasOwnProperty.call(OFFER_FIELD_KINDS, name);

/** What each column reads of an offer (its cell, its sort value, its price context). */
export const COLUMN_FIELDS: Readonly<Record<ColumnId, readonly TransferField[]>> = {
  gpu: ['gpu_name'],
  count: ['num_gpus'],
  vram: ['gpu_ram'],
  price: ['dph_total'],
  pricePerGpu: ['dph_total', 'num_gpus'],
  dlperf: ['dlperf'],
  dlperfPerDollar: ['dlperf_per_dphtotal'],
  priceContext: ['gpu_name', 'num_gpus', 'dph_total'],
  tflops: ['total_flops'],
  reliability: ['reliability2'],
  verified: ['verified', 'verification'],
  location: ['geolocation'],
  cluster: ['cluster_id'],
  inetUp: ['inet_up'],
  inetDown: ['inet_down'],
  diskSpace: ['disk_space'],
  diskBw: ['disk_bw'],
  cpuCores: ['cpu_cores_effective'],
  ram: ['cpu_ram'],
  cuda: ['cuda_max_good'],
  driver: ['driver_version'],
  maxDuration: ['duration'],
  rentalType: ['min_bid'],
};

/**
 * What every row needs whatever the columns: its id and what an offer always has (GPU, count,
 * memory, price: the price context reads them), the plot's axes and best offer (price, DLPerf,
 * DLPerf per dollar), grouping by cluster and the details' buttons (machine, cluster), and each
 * field the filter bar edits, so a changed filter narrows the table at once.
 */
export const ROW_FIELDS: readonly TransferField[] = [
  'id',
  'gpu_name',
  'num_gpus',
  'gpu_ram',
  'dph_total',
  'dlperf',
  'dlperf_per_dphtotal',
  'machine_id',
  'cluster_id',
  'reliability2',
  'verified',
  'geolocation',
];

/**
 * The fields the page gets: ROW_FIELDS, those of the visible columns, and those the query's
 * filters name (`filterFields`, as in the query: `reliability` reads `reliability2`), so the
 * page narrows on them as the service does. Each once, in OFFER_FIELD_KINDS's order.
 */
export function pageFields(visible: readonly ColumnId[], filterFields: Iterable<string> = []): TransferField[] {
  const wanted = new Set<TransferField>(ROW_FIELDS);
  for (const column of visible) for (const f of COLUMN_FIELDS[column] ?? []) wanted.add(f);
  for (const name of filterFields) {
    const f = name === 'reliability' ? 'reliability2' : name;
    if (isTransferField(f)) wanted.add(f);
  }
  return (Object.keys(OFFER_FIELD_KINDS) as TransferField[]).filter((f) => wanted.has(f));
}

/** In a string or boolean column: the value was missing (undefined). */
export const UNSET = -1;
/** In a string or boolean column: the value was null. */
export const NULL = -2;

/**
 * One field of every offer, position i for offer i, as a typed array: VS Code posts typed arrays
 * to a webview as binary, beside the message's JSON, where an array of numbers would be written
 * and read back as text, number by number.
 */
export interface EncodedColumn {
  /**
   * A number column: each number as it is, NaN for null or missing (the service's JSON has no NaN).
   * A string column: an index into `strings`; a boolean column: 1 or 0. In string and boolean
   * columns UNSET is a missing value and NULL a null.
   */
  readonly values: Float64Array | Int32Array;
  /** In a number column: the positions whose value was missing rather than null (left out when none). */
  readonly unset?: readonly number[];
}

/** Offers as the page gets them: one array per field, each string once. */
export interface OfferColumns {
  readonly count: number;
  readonly strings: readonly string[];
  readonly columns: { readonly [field: string]: EncodedColumn };
}

/** The offers' `fields`, column by column. */
export function encodeOffers(offers: readonly Offer[], fields: readonly TransferField[]): OfferColumns {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const columns: Record<string, EncodedColumn> = {};
  const n = offers.length;
  for (const field of fields) {
    const kind = OFFER_FIELD_KINDS[field];
    if (kind === 'number') {
      const numbers = new Float64Array(n);
      const unset: number[] = [];
      for (let i = 0; i < n; i++) {
        const v = offers[i]![field] as number | null | undefined;
        if (v === undefined) unset.push(i);
        numbers[i] = typeof v === 'number' ? v : NaN;
      }
      columns[field] = unset.length > 0 ? { values: numbers, unset } : { values: numbers };
      continue;
    }
    const values = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const v = offers[i]![field] as string | boolean | null | undefined;
      if (v === undefined) values[i] = UNSET;
      else if (v === null) values[i] = NULL;
      else if (kind === 'boolean') values[i] = v ? 1 : 0;
      else {
        const text = String(v);
        let k = index.get(text);
        if (k === undefined) {
          k = strings.length;
          strings.push(text);
          index.set(text, k);
        }
        values[i] = k;
      }
    }
    columns[field] = { values };
  }
  return { count: n, strings, columns };
}

/**
 * The offers back, each with every field that travelled (undefined where it was missing) and no
 * other: what the page sorts, narrows and draws. Throws a TypeError for columns that do not fit
 * (an unknown field, a length that is not the count, an index out of the table).
 */
export function decodeOffers(encoded: OfferColumns): Offer[] {
  const { count, strings, columns } = encoded;
  if (!Number.isSafeInteger(count) || count < 0 || !Array.isArray(strings)) throw unreadable('count');
  const fields = Object.keys(columns);
  const readers: Array<(i: number) => unknown> = [];
  for (const field of fields) {
    if (!isTransferField(field)) throw unreadable('field');
    const { values, unset } = columns[field]!;
    const kind = OFFER_FIELD_KINDS[field];
    const fits = kind === 'number' ? values instanceof Float64Array : values instanceof Int32Array;
    if (!fits || values.length !== count) throw unreadable(field);
    if (kind === 'number') {
      const missing = new Set(unset ?? []);
      readers.push((i) => {
        const v = values[i]!;
        return Number.isNaN(v) ? (missing.has(i) ? undefined : null) : v;
      });
      continue;
    }
    for (const v of values) {
      const ok = v === UNSET || v === NULL || (kind === 'boolean' ? v === 0 || v === 1 : v >= 0 && v < strings.length);
      if (!ok) throw unreadable(field);
    }
    readers.push((i) => {
      const v = values[i]!;
      return v === UNSET ? undefined : v === NULL ? null : kind === 'boolean' ? v === 1 : strings[v];
    });
  }
  const offers = new Array<Offer>(count);
  for (let i = 0; i < count; i++) {
    const offer: Record<string, unknown> = {};
    for (let f = 0; f < fields.length; f++) offer[fields[f]!] = readers[f]!(i);
    offers[i] = offer as Offer;
  }
  return offers;
}

/** What the page says when the offers it got do not fit together (a bug, never the user's doing); `part` names what, in English. */
function unreadable(part: string): TypeError {
  return new TypeError(
    l10n.t('GPU Rental: the Offer Explorer could not read the offers it got ({0}). Search again, or reload the window.', part),
  );
}
