/**
 * Price context: an offer's price against the going rate for its GPU model ("18% under the 7-day
 * median"), built from the service's GPU metrics. Pure: no requests, no clock of its own.
 */
import type { GpuHistory, GpuMetric } from '../api/metrics';
import { formatDollars } from '../format';
import { l10n } from '../l10n';

/** Going rate of one GPU model, per GPU per hour. */
export interface GpuPriceStats {
  gpuName: string;
  /** The median of the history's medians over the 7 days up to its newest point. */
  median7d?: number;
  /** The service's median asking price now (`price_median` of the current metrics). */
  currentMedian?: number;
  p10?: number;
  p90?: number;
  /**
   * Hourly or coarser points, oldest first: unix seconds and the median. The median is the
   * service's `avail_median` (what machines still on offer ask), because an offer is an asking
   * price and is best compared with other asks; `rented_median` counts only what was taken, which
   * leans to the cheap end. A model whose history has no `avail_median` at all uses `rented_median`
   * rather than showing nothing; the two are never mixed within one model.
   */
  history: Array<{ t: number; median: number }>;
}

export interface PriceContext {
  /** How far from the median, in whole percent, never negative; 0 when `relation` is `at`. */
  percent: number;
  relation: 'under' | 'over' | 'at';
  /** "18% under the 7-day median" */
  text: string;
  medianPerGpu: number;
  /**
   * What the median is: the 7-day one, or the current one when the model has no history. The text
   * says which.
   */
  basis?: '7d' | 'current';
}

/** Within this fraction of the median an offer is "at" it: closer than that is noise, not a deal. */
export const AT_MEDIAN_BAND = 0.02;
const WEEK = 7 * 86_400;

/** The middle value (mean of the two middle ones for an even count); undefined for none. */
export function medianOf(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** An offer's price per GPU per hour, as the metrics price it; undefined for a count that is not a positive number. */
export function pricePerGpu(offer: { num_gpus: number; dph_total: number }): number | undefined {
  if (!(offer.num_gpus > 0) || !Number.isFinite(offer.dph_total) || offer.dph_total < 0) return undefined;
  return offer.dph_total / offer.num_gpus;
}

/** Compares the offer's price per GPU (dph_total / num_gpus) with the model's 7-day median; undefined when unknown. */
export function priceContextFor(
  offer: { gpu_name: string; num_gpus: number; dph_total: number },
  stats: GpuPriceStats | undefined,
): PriceContext | undefined {
  const price = pricePerGpu(offer);
  if (price === undefined || !stats) return undefined;
  const basis =
    stats.median7d !== undefined && stats.median7d > 0
      ? '7d'
      : stats.currentMedian !== undefined && stats.currentMedian > 0
        ? 'current'
        : undefined;
  if (!basis) return undefined;
  const median = basis === '7d' ? stats.median7d! : stats.currentMedian!;
  const what = basis === '7d' ? l10n.t('the 7-day median') : l10n.t('the current median');
  const ratio = price / median - 1;
  // The epsilon keeps exactly 2 % (0.49 against 0.5) from reading 2.0000000000000018 % in binary.
  if (Math.abs(ratio) <= AT_MEDIAN_BAND + 1e-9) return { percent: 0, relation: 'at', text: `at ${what}`, medianPerGpu: median, basis };
  const relation = ratio < 0 ? 'under' : 'over';
  const percent = Math.round(Math.abs(ratio) * 100);
  return { percent, relation, text: `${percent}% ${relation} ${what}`, medianPerGpu: median, basis };
}

/**
 * The context of what a rent pays, `totalPerHour` for the whole machine (a bid and the disk
 * included), rather than the offer's listed price: an interruptible rent compares its bid.
 */
export function rentPriceContext(
  offer: { gpu_name: string; num_gpus: number },
  totalPerHour: number,
  stats: GpuPriceStats | undefined,
): PriceContext | undefined {
  return priceContextFor({ gpu_name: offer.gpu_name, num_gpus: offer.num_gpus, dph_total: totalPerHour }, stats);
}

/**
 * The tooltip's and the confirmation's line: "Price: 18% under the 7-day median for RTX 4090
 * ($0.410/GPU/h)", the amount being the median. Without a median to compare with, "No price history
 * for this GPU".
 */
export function describePriceContext(
  offer: { gpu_name: string; num_gpus: number; dph_total: number },
  stats: GpuPriceStats | undefined,
): string {
  const context = priceContextFor(offer, stats);
  return context ? l10n.t('Price: {0}', priceContextPhrase(context, offer.gpu_name)) : l10n.t('No price history for this GPU');
}

/** "18% under the 7-day median for RTX 4090 ($0.410/GPU/h)": the context with the model and the median it was compared with. */
export function priceContextPhrase(context: PriceContext, gpuName: string): string {
  return l10n.t('{0} for {1} ({2}/GPU/h)', context.text, gpuName, formatDollars(context.medianPerGpu));
}

/** The series a model's history is drawn from: `avail_median` when it has any, else `rented_median` (see GpuPriceStats.history). */
function historyLine(history: GpuHistory | undefined): Array<{ t: number; median: number }> {
  if (!history) return [];
  const series = history.pricing.some((p) => p.avail_median !== undefined) ? 'avail_median' : 'rented_median';
  const points: Array<{ t: number; median: number }> = [];
  for (const p of history.pricing) {
    const median = p[series];
    if (median !== undefined && median > 0 && Number.isFinite(p.t)) points.push({ t: p.t, median });
  }
  // The service sends oldest first; sorting keeps a stray out-of-order point from bending the chart.
  points.sort((a, b) => a.t - b.t);
  return points;
}

function positive(value: number | null | undefined): number | undefined {
  return value !== null && value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * Builds stats from the API answers (current + history); a GPU missing from either gives what is
 * known. The 7-day median is taken over the history's last 7 days, counted back from its newest
 * point, so a history that ends a little before now still counts whole.
 */
export function priceStatsFrom(
  current: readonly GpuMetric[] | undefined,
  history: ReadonlyMap<string, GpuHistory> | undefined,
): Map<string, GpuPriceStats> {
  const out = new Map<string, GpuPriceStats>();
  const entry = (gpuName: string): GpuPriceStats => {
    let stats = out.get(gpuName);
    if (!stats) out.set(gpuName, (stats = { gpuName, history: [] }));
    return stats;
  };
  for (const metric of current ?? []) {
    const stats = entry(metric.gpu_name);
    stats.currentMedian = positive(metric.price_median);
    stats.p10 = positive(metric.price_p10);
    stats.p90 = positive(metric.price_p90);
  }
  for (const [gpuName, one] of history ?? new Map<string, GpuHistory>()) {
    const line = historyLine(one);
    if (line.length === 0) continue;
    const stats = entry(gpuName);
    stats.history = line;
    const newest = line[line.length - 1]!.t;
    stats.median7d = medianOf(line.filter((p) => p.t > newest - WEEK).map((p) => p.median));
  }
  return out;
}
