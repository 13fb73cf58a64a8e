import * as z from 'zod';
import { listOf, logUnreadable, numberFrom, optInt, optNumber, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/*
 * The marketplace's GPU metrics: supply and the going price per GPU model. Every price here is
 * per GPU per hour, whatever the machine's GPU count. The service does not say which permission
 * category these routes need; they read market data as an offer search does, so a scoped key is
 * told to have `misc` (the category of offer search) when refused.
 */

/** One GPU model's snapshot now. Prices per GPU per hour; counts in machines. */
export const GpuMetricSchema = z.object({
  gpu_name: z.string().min(1),
  total: optInt,
  available: optInt,
  rented_verified: optInt,
  avail_verified: optInt,
  rented_unverified: optInt,
  avail_unverified: optInt,
  usage: optNumber,
  usage_30d: optNumber,
  dlperf: optNumber,
  tflops: optNumber,
  price_p10: optNumber,
  price_p25: optNumber,
  price_median: optNumber,
  price_p75: optNumber,
  price_p90: optNumber,
  tflops_per_dollar: optNumber,
  dlperf_per_dollar: optNumber,
});
export type GpuMetric = z.output<typeof GpuMetricSchema>;

/** `{success, gpus: [...]}`; a record without a GPU name is left out and counted, the rest kept. */
export const GpuMetricListSchema = listOf(GpuMetricSchema, 'gpus');

/** The pricing series' names, as the service sends them; each per GPU per hour. */
export const PRICE_SERIES = ['rented_p10', 'rented_median', 'rented_p90', 'avail_p10', 'avail_median', 'avail_p90'] as const;
export type PriceSeries = (typeof PRICE_SERIES)[number];

/** One instant of a model's price history: unix seconds and whichever percentiles were readable. */
export type GpuPricePoint = { t: number } & Partial<Record<PriceSeries, number>>;

export interface GpuHistory {
  /** Oldest first, as sent; only as many points as the shortest series present holds. */
  pricing: GpuPricePoint[];
  stats: { tflops?: number; dlperf?: number; tflops_per_dollar?: number; dlperf_per_dollar?: number };
}

function arrayOf(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/**
 * Parallel arrays become points. Series of unequal length are cut to the shortest present one (a
 * series that is absent altogether is left out, not taken as empty), so no point pairs a time with
 * another time's price. A value that is not a number leaves that percentile unknown at that point;
 * a point without a readable time is dropped.
 */
export function pricePoints(pricing: unknown): GpuPricePoint[] {
  if (typeof pricing !== 'object' || pricing === null) return [];
  const raw = pricing as Record<string, unknown>;
  const times = arrayOf(raw['timestamps']);
  if (!times) return [];
  const series = PRICE_SERIES.map((name) => [name, arrayOf(raw[name])] as const).filter(
    (entry): entry is readonly [PriceSeries, unknown[]] => entry[1] !== undefined,
  );
  const length = Math.min(times.length, ...series.map(([, values]) => values.length));
  const points: GpuPricePoint[] = [];
  for (let i = 0; i < length; i++) {
    const t = numberFrom(times[i]);
    if (t === undefined) continue;
    const point: GpuPricePoint = { t };
    for (const [name, values] of series) {
      const v = numberFrom(values[i]);
      if (v !== undefined && v >= 0) point[name] = v;
    }
    points.push(point);
  }
  return points;
}

function statsOf(stats: unknown): GpuHistory['stats'] {
  if (typeof stats !== 'object' || stats === null) return {};
  const raw = stats as Record<string, unknown>;
  const out: GpuHistory['stats'] = {};
  for (const key of ['tflops', 'dlperf', 'tflops_per_dollar', 'dlperf_per_dollar'] as const) {
    const v = numberFrom(raw[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/**
 * `{success, gpus: {"<name>": {pricing, supply_demand, stats}}}` as a map by GPU name. A model
 * whose entry is not an object is left out; odd values inside one are unknown, never fatal.
 */
export const GpuHistorySchema = z.object({ gpus: z.record(z.string(), z.unknown()).nullish().catch(undefined) }).transform(({ gpus }) => {
  const out = new Map<string, GpuHistory>();
  for (const [name, entry] of Object.entries(gpus ?? {})) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    const record = entry as Record<string, unknown>;
    out.set(name, { pricing: pricePoints(record['pricing']), stats: statsOf(record['stats']) });
  }
  return out;
});

/** Filters both metrics routes take; the service's defaults (verified `yes`, all hosting, all counts) when left out. */
export interface GpuMetricsFilter {
  verified?: 'yes' | 'no' | 'all';
  hosting_type?: 'all' | 'secure_cloud' | 'community';
  /** A GPU-count bucket such as `1` or `8`, or `all`. */
  num_gpus?: string;
}

export interface HistoryRange extends GpuMetricsFilter {
  /** Unix seconds; the service's default range is the last 24 hours. */
  start?: number;
  end?: number;
  /** Seconds between points; without it the service samples about 20 points. */
  step?: number;
}

function wholeSeconds(value: number | undefined): number | undefined {
  return value === undefined || !Number.isFinite(value) ? undefined : Math.floor(value);
}

export class MetricsApi {
  constructor(private readonly t: Transport) {}

  /** Each GPU model's supply and price percentiles now; unreadable records are left out and logged once. */
  async current(filter: GpuMetricsFilter = {}, o: RequestOptions = {}): Promise<GpuMetric[]> {
    const gpus = await this.t.send({
      action: l10n.t('read GPU prices'),
      method: 'GET',
      path: '/api/v0/metrics/gpu/current',
      query: { verified: filter.verified, hosting_type: filter.hosting_type, num_gpus: filter.num_gpus },
      schema: GpuMetricListSchema,
      permission: 'misc',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('read GPU prices'), gpus);
    return gpus;
  }

  /**
   * The price history of the named models, keyed by name; a model the service has no data for is
   * absent. Names containing a comma cannot be asked for (the list is comma-separated) and are
   * skipped; with no name left nothing is requested, since an empty list means the service's
   * default models.
   */
  async history(gpuNames: readonly string[], range: HistoryRange = {}, o: RequestOptions = {}): Promise<Map<string, GpuHistory>> {
    const names = [...new Set(gpuNames.map((n) => n.trim()).filter((n) => n !== '' && !n.includes(',')))];
    if (names.length === 0) return new Map();
    return this.t.send({
      action: l10n.t('read GPU price history'),
      method: 'GET',
      path: '/api/v0/metrics/gpu/history',
      query: {
        gpu_name: names.join(','),
        verified: range.verified,
        hosting_type: range.hosting_type,
        num_gpus: range.num_gpus,
        // The service takes whole seconds.
        start: wholeSeconds(range.start),
        end: wholeSeconds(range.end),
        step: wholeSeconds(range.step),
      },
      schema: GpuHistorySchema,
      permission: 'misc',
      retry: 'read',
      ...o,
    });
  }
}
