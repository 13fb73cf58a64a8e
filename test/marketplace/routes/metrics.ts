/**
 * GPU market metrics: `GET /api/v0/metrics/gpu/current` (each model's supply and price
 * percentiles now) and `GET /api/v0/metrics/gpu/history` (seeded price and supply series). Prices
 * are per GPU per hour. The service's route table gives these routes no scope the reference names;
 * they read market data as an offer search does, so they are under `misc` here.
 */
import {
  ALL_OFFERS,
  DEFAULT_HISTORY_GPUS,
  MetricsRangeError,
  currentMetrics,
  gpuHistory,
  historyRange,
  type MetricsFilter,
} from '../metrics';
import { epoch, fail, ok, type Ctx, type RouteDef } from '../router';

function choice<T extends string>(ctx: Ctx, name: string, allowed: readonly T[], fallback: T): T {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw fail(400, 'invalid_args', `Invalid ${name}: must be one of ${allowed.join(', ')}.`);
}

function filterOf(ctx: Ctx): MetricsFilter {
  const raw = ctx.query.get('num_gpus');
  let numGpus: number | undefined;
  if (raw !== null && raw !== '' && raw !== 'all') {
    if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1) throw fail(400, 'invalid_args', 'Invalid num_gpus: a GPU count or "all".');
    numGpus = Number(raw);
  }
  return {
    ...ALL_OFFERS,
    verified: choice(ctx, 'verified', ['yes', 'no', 'all'], 'yes'),
    hostingType: choice(ctx, 'hosting_type', ['all', 'secure_cloud', 'community'], 'all'),
    numGpus,
  };
}

function seconds(ctx: Ctx, name: string): number | undefined {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,12}$/.test(raw)) throw fail(400, 'invalid_args', `Invalid ${name}: a whole number of seconds.`);
  return Number(raw);
}

/** `gpu_name=A,B` (blanks around names ignored), `all`, or the service's default models. */
function namesOf(ctx: Ctx): string[] {
  const raw = ctx.query.get('gpu_name');
  if (raw === null || raw.trim() === '') return DEFAULT_HISTORY_GPUS;
  if (raw.trim() === 'all') return [...new Set(ctx.sim.offers.map((o) => o.gpu_name))];
  return [...new Set(raw.split(',').map((n) => n.trim()))].filter((n) => n !== '');
}

export const metricsRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/metrics/gpu/current',
    category: 'misc',
    action: 'api.metrics.gpu.current',
    handler: (ctx) => ok({ success: true, gpus: currentMetrics(ctx.sim.offers, ctx.sim.store.rentedOfferIds(), filterOf(ctx)) }),
  },
  {
    method: 'GET',
    path: '/api/v0/metrics/gpu/history',
    category: 'misc',
    action: 'api.metrics.gpu.history',
    handler: (ctx) => {
      const filter = filterOf(ctx);
      let range;
      try {
        range = historyRange(epoch(ctx.now), seconds(ctx, 'start'), seconds(ctx, 'end'), seconds(ctx, 'step'));
      } catch (error) {
        if (error instanceof MetricsRangeError) throw fail(400, 'invalid_args', error.message);
        throw error;
      }
      const gpus = gpuHistory(ctx.sim.store.data.seed, ctx.sim.offers, ctx.sim.store.rentedOfferIds(), namesOf(ctx), filter, range);
      return ok({ success: true, gpus });
    },
  },
];
