/**
 * GPU market metrics: the going price per GPU model now, from the live catalogue, and a seeded
 * price history that ends at the simulator's clock. Every price is per GPU per hour
 * (`dph_total / num_gpus` of an offer priced for the default disk).
 *
 * The history is a pure function of (seed, model, hour): a slow trend (a sine with a period of
 * 9 to 25 days and up to ±7 %), a daily cycle (±4 %, dearest in the evening UTC) and hourly noise
 * (±2.5 %) around the median of the model's whole catalogue. So the same instant reads the same
 * in every answer, whatever the range or step asked, and the clock moving on only adds points.
 */
import type { Offer } from './catalogue';
import { Random, round } from './random';

/** How far back the history reaches. */
export const HISTORY_DAYS = 30;
/** Without a step, a range is sampled at about this many points, as the service does. */
export const DEFAULT_POINTS = 20;
/** The most points one model's series may hold in one answer. */
export const MAX_POINTS = 2000;
/** The models asked for when `gpu_name` is left out, as the service's defaults; those not in the catalogue are absent. */
export const DEFAULT_HISTORY_GPUS = ['RTX 5090', 'RTX 4090', 'RTX 3090'];

export interface MetricsFilter {
  verified: 'yes' | 'no' | 'all';
  hostingType: 'all' | 'secure_cloud' | 'community';
  /** A GPU count, or undefined for all. */
  numGpus: number | undefined;
}

export const ALL_OFFERS: MetricsFilter = { verified: 'all', hostingType: 'all', numGpus: undefined };

/** The offers a filter counts: `verified=yes` is the verified ones only, `secure_cloud` the datacenter ones. */
export function filterOffers(offers: readonly Offer[], f: MetricsFilter): Offer[] {
  return offers.filter(
    (o) =>
      (f.verified === 'all' || (o.verification === 'verified') === (f.verified === 'yes')) &&
      (f.hostingType === 'all' || (o.hosting_type === 1) === (f.hostingType === 'secure_cloud')) &&
      (f.numGpus === undefined || o.num_gpus === f.numGpus),
  );
}

/** An offer's price per GPU per hour. */
export function perGpu(offer: Offer): number {
  return offer.dph_total / Math.max(1, offer.num_gpus);
}

/** The q-th quantile (0..1) of sorted values, linearly interpolated; undefined for none. */
export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function median(values: number[]): number | undefined {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

function priced(value: number | undefined): number | undefined {
  return value === undefined ? undefined : round(value, 4);
}

/** One model's snapshot, fields as the service names them. */
export interface CurrentMetric {
  gpu_name: string;
  total: number;
  available: number;
  rented_verified: number;
  avail_verified: number;
  rented_unverified: number;
  avail_unverified: number;
  usage: number;
  dlperf: number | undefined;
  tflops: number | undefined;
  price_p10: number | undefined;
  price_p25: number | undefined;
  price_median: number | undefined;
  price_p75: number | undefined;
  price_p90: number | undefined;
  tflops_per_dollar: number | undefined;
  dlperf_per_dollar: number | undefined;
}

/**
 * Each model's counts and price percentiles now. Machines are counted by `machine_id`; a machine
 * is available while one of its offers can be rented. Percentiles are over the offers that can be
 * rented now (the asks), so renting the cheap ones moves the median up, as on the market.
 */
export function currentMetrics(offers: readonly Offer[], rented: ReadonlySet<number>, f: MetricsFilter): CurrentMetric[] {
  const byModel = new Map<string, Offer[]>();
  for (const o of filterOffers(offers, f)) {
    const list = byModel.get(o.gpu_name);
    if (list) list.push(o);
    else byModel.set(o.gpu_name, [o]);
  }
  const out: CurrentMetric[] = [];
  for (const [name, list] of [...byModel].sort(([a], [b]) => a.localeCompare(b, 'en'))) {
    const machines = new Map<number, { verified: boolean; available: boolean }>();
    const prices: number[] = [];
    for (const o of list) {
      const open = o.rentable && !rented.has(o.id);
      if (open) prices.push(perGpu(o));
      const m = machines.get(o.machine_id) ?? { verified: o.verification === 'verified', available: false };
      m.available ||= open;
      machines.set(o.machine_id, m);
    }
    prices.sort((a, b) => a - b);
    const count = (verified: boolean, available: boolean) =>
      [...machines.values()].filter((m) => m.verified === verified && m.available === available).length;
    const available = [...machines.values()].filter((m) => m.available).length;
    const dlperf = median(list.map((o) => o.dlperf / Math.max(1, o.num_gpus)));
    const tflops = median(list.map((o) => o.total_flops / Math.max(1, o.num_gpus)));
    const mid = quantile(prices, 0.5);
    out.push({
      gpu_name: name,
      total: machines.size,
      available,
      rented_verified: count(true, false),
      avail_verified: count(true, true),
      rented_unverified: count(false, false),
      avail_unverified: count(false, true),
      usage: round(machines.size === 0 ? 0 : ((machines.size - available) / machines.size) * 100, 1),
      dlperf: priced(dlperf),
      tflops: priced(tflops),
      price_p10: priced(quantile(prices, 0.1)),
      price_p25: priced(quantile(prices, 0.25)),
      price_median: priced(mid),
      price_p75: priced(quantile(prices, 0.75)),
      price_p90: priced(quantile(prices, 0.9)),
      tflops_per_dollar: mid && tflops !== undefined ? round(tflops / mid, 1) : undefined,
      dlperf_per_dollar: mid && dlperf !== undefined ? round(dlperf / mid, 1) : undefined,
    });
  }
  return out;
}

/** FNV-1a of a model name, to give each model its own seeded shape. */
function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A model's shape: fixed by the seed and the name, independent of the clock. */
interface Shape {
  base: number;
  lowRatio: number;
  highRatio: number;
  trendPeriod: number;
  trendPhase: number;
  trendAmp: number;
  dailyPhase: number;
  key: number;
}

function shapeOf(seed: number, name: string, prices: number[]): Shape | undefined {
  const sorted = [...prices].sort((a, b) => a - b);
  const base = quantile(sorted, 0.5);
  if (base === undefined || base <= 0) return undefined;
  const key = (seed * 0x2545f491) ^ nameHash(name);
  const rng = new Random(key);
  return {
    base,
    // The spread of the catalogue's own prices, kept within plausible bounds for one or two offers.
    lowRatio: Math.min(0.92, Math.max(0.55, quantile(sorted, 0.1)! / base)),
    highRatio: Math.max(1.1, Math.min(1.9, quantile(sorted, 0.9)! / base)),
    trendPeriod: rng.float(9, 25) * 86_400,
    trendPhase: rng.float(0, 2 * Math.PI),
    trendAmp: rng.float(0.03, 0.07),
    // Dearest around 17:30-20:30 UTC, when both American and European renters are at work.
    dailyPhase: rng.float(-0.4, 0.4),
    key,
  };
}

/** Noise of one hour, the same whichever point falls in it. */
function hourNoise(key: number, hour: number, salt: number): number {
  return new Random(key ^ Math.imul(hour, 0x9e3779b1) ^ salt).float(-1, 1);
}

/** The asking median at an instant, per GPU per hour. */
function askMedianAt(s: Shape, t: number): number {
  const trend = s.trendAmp * Math.sin((2 * Math.PI * t) / s.trendPeriod + s.trendPhase);
  const daily = 0.04 * Math.sin((2 * Math.PI * (t % 86_400)) / 86_400 - (13 * Math.PI) / 12 + s.dailyPhase);
  const noise = 0.025 * hourNoise(s.key, Math.floor(t / 3600), 1);
  return s.base * (1 + trend + daily + noise);
}

export interface PricingSeries {
  timestamps: number[];
  rented_p10: number[];
  rented_median: number[];
  rented_p90: number[];
  avail_p10: number[];
  avail_median: number[];
  avail_p90: number[];
}

export interface SupplySeries {
  timestamps: number[];
  rented_verified: number[];
  avail_verified: number[];
  rented_unverified: number[];
  avail_unverified: number[];
  total: number[];
}

export interface HistoryEntry {
  supply_demand: SupplySeries;
  pricing: PricingSeries;
  stats: {
    tflops: number | undefined;
    dlperf: number | undefined;
    tflops_per_dollar: number | undefined;
    dlperf_per_dollar: number | undefined;
  };
}

export interface HistoryRange {
  /** Unix seconds, already checked and clamped by `historyRange`. */
  start: number;
  end: number;
  step: number;
}

/** A range or step the simulator refuses (answered 400). */
export class MetricsRangeError extends Error {}

/**
 * The range an answer covers: the last 24 hours and about DEFAULT_POINTS points unless told,
 * never before the history begins (HISTORY_DAYS back) nor after now.
 */
export function historyRange(nowSec: number, start: number | undefined, end: number | undefined, step: number | undefined): HistoryRange {
  const to = Math.min(Math.floor(end ?? nowSec), Math.floor(nowSec));
  const from = Math.max(Math.floor(start ?? to - 86_400), Math.floor(nowSec) - HISTORY_DAYS * 86_400);
  if (from > to) throw new MetricsRangeError('start must be before end and within the last 30 days');
  const every = step ?? Math.max(1, Math.ceil((to - from) / DEFAULT_POINTS));
  if (!Number.isInteger(every) || every < 1) throw new MetricsRangeError('step must be a whole number of seconds, at least 1');
  if ((to - from) / every + 1 > MAX_POINTS) throw new MetricsRangeError(`at most ${MAX_POINTS} points per GPU; use a larger step`);
  return { start: from, end: to, step: every };
}

/**
 * The history of the named models over a range, keyed by name; a name the catalogue (under the
 * filter) does not hold is absent. Points fall on multiples of `step` from `start`, the last one
 * at `end`.
 */
export function gpuHistory(
  seed: number,
  offers: readonly Offer[],
  rented: ReadonlySet<number>,
  names: readonly string[],
  f: MetricsFilter,
  range: HistoryRange,
): Record<string, HistoryEntry> {
  const filtered = filterOffers(offers, f);
  const current = new Map(currentMetrics(filtered, rented, ALL_OFFERS).map((m) => [m.gpu_name, m]));
  const times: number[] = [];
  for (let t = range.end; t >= range.start; t -= range.step) times.push(t);
  times.reverse();
  const out: Record<string, HistoryEntry> = {};
  for (const name of names) {
    const now = current.get(name);
    const shape = shapeOf(seed, name, filtered.filter((o) => o.gpu_name === name).map(perGpu));
    if (!now || !shape) continue;
    const pricing: PricingSeries = {
      timestamps: times,
      rented_p10: [],
      rented_median: [],
      rented_p90: [],
      avail_p10: [],
      avail_median: [],
      avail_p90: [],
    };
    const supply: SupplySeries = {
      timestamps: times,
      rented_verified: [],
      avail_verified: [],
      rented_unverified: [],
      avail_unverified: [],
      total: [],
    };
    for (const t of times) {
      const ask = askMedianAt(shape, t);
      const hour = Math.floor(t / 3600);
      // What was taken leans to the cheap end of the asks.
      const taken = ask * (0.93 + 0.02 * hourNoise(shape.key, hour, 2));
      pricing.avail_median.push(round(ask, 4));
      pricing.avail_p10.push(round(ask * shape.lowRatio, 4));
      pricing.avail_p90.push(round(ask * shape.highRatio, 4));
      pricing.rented_median.push(round(taken, 4));
      pricing.rented_p10.push(round(taken * shape.lowRatio, 4));
      pricing.rented_p90.push(round(taken * (shape.highRatio - 0.05), 4));
      // Busier when dearer: the share rented follows the price's deviation from its base.
      const busy = Math.min(1, Math.max(0, now.usage / 100 + (ask / shape.base - 1) * 2));
      const share = (n: number, rentedSide: boolean) => Math.round(n * (rentedSide ? busy : 1 - busy));
      const verified = now.rented_verified + now.avail_verified;
      const unverified = now.rented_unverified + now.avail_unverified;
      supply.rented_verified.push(share(verified, true));
      supply.avail_verified.push(share(verified, false));
      supply.rented_unverified.push(share(unverified, true));
      supply.avail_unverified.push(share(unverified, false));
      supply.total.push(now.total);
    }
    out[name] = {
      supply_demand: supply,
      pricing,
      stats: { tflops: now.tflops, dlperf: now.dlperf, tflops_per_dollar: now.tflops_per_dollar, dlperf_per_dollar: now.dlperf_per_dollar },
    };
  }
  return out;
}
