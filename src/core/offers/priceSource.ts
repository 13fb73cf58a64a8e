/**
 * Where the Offers view, the explorer and the rent confirmation get the going rate of GPU models:
 * the service's metrics, asked once per 10 minutes per service and profile, shared by concurrent
 * callers. Price context is a nicety: a refusal (a scoped key without `misc`), a rate limit or a
 * network fault is logged once and gives an empty map, and never blocks a search or a rent.
 *
 * Nothing here imports the API client at runtime (only its types): the client comes from
 * `session.client` on the first request, so activation never loads zod.
 */
import type { GpuRentalClient } from '../api/client';
import type { GpuHistory, GpuMetric } from '../api/metrics';
import type { Logger } from '../log';
import { priceStatsFrom, type GpuPriceStats } from './priceContext';
import { l10n } from '../l10n';

/** How long an answer stands for its models. */
export const PRICE_CONTEXT_TTL_MS = 10 * 60_000;
/** How long a failed request is not repeated: a refusal stands like an answer; a fault is tried again sooner. */
const REFUSED_TTL_MS = PRICE_CONTEXT_TTL_MS;
const FAULT_TTL_MS = 60_000;
/** The history behind the 7-day median: hourly over the last week. */
const HISTORY_SECONDS = 7 * 86_400;
const HISTORY_STEP = 3600;

export interface PriceContextSourceOptions {
  /** The window's client, read when a request is made (it may throw when the base URL is unusable). */
  client: () => Pick<GpuRentalClient, 'metrics'>;
  /** Whose answers these are: base URL and profile; undefined when signed out (nothing is asked). */
  scope: () => string | undefined;
  logger: Logger;
  /** Milliseconds; Date.now unless a test steps it. */
  now?: () => number;
}

interface Known {
  /** Undefined: the service has nothing for this model (or the request failed). */
  stats: GpuPriceStats | undefined;
  until: number;
}

interface Scope {
  key: string;
  current?: { data: readonly GpuMetric[] | undefined; until: number };
  currentRequest?: Promise<readonly GpuMetric[] | undefined>;
  names: Map<string, Known>;
  pending: Map<string, Promise<void>>;
  /** Failures already logged as warnings here: the same kind again is only a debug line. */
  logged: Set<string>;
}

function isRefusal(error: unknown): boolean {
  const kind = (error as { kind?: unknown } | null)?.kind;
  return kind === 'forbidden' || kind === 'auth';
}

export class PriceContextSource {
  private scopeState: Scope | undefined;
  private readonly now: () => number;

  constructor(private readonly options: PriceContextSourceOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The going rate of each named model that the service knows, by name; models it has nothing
   * for are absent. Resolves with what is known when a request fails; never rejects.
   */
  async statsFor(gpuNames: readonly string[]): Promise<Map<string, GpuPriceStats>> {
    const key = this.options.scope();
    const out = new Map<string, GpuPriceStats>();
    if (key === undefined) return out;
    if (this.scopeState?.key !== key) this.scopeState = { key, names: new Map(), pending: new Map(), logged: new Set() };
    const scope = this.scopeState;
    const names = [...new Set(gpuNames.filter((n) => n.trim() !== ''))];
    const now = this.now();
    const missing = names.filter((n) => !scope.pending.has(n) && (scope.names.get(n)?.until ?? 0) <= now);
    if (missing.length > 0) {
      const request = this.fetch(scope, missing);
      for (const n of missing) scope.pending.set(n, request);
      void request.finally(() => {
        for (const n of missing) if (scope.pending.get(n) === request) scope.pending.delete(n);
      });
    }
    await Promise.all(names.map((n) => scope.pending.get(n)).filter((p): p is Promise<void> => p !== undefined));
    for (const n of names) {
      const stats = scope.names.get(n)?.stats;
      if (stats) out.set(n, stats);
    }
    return out;
  }

  /** Forgets every answer, e.g. when the account changed; the next call asks again. */
  clear(): void {
    this.scopeState = undefined;
  }

  private async fetch(scope: Scope, names: string[]): Promise<void> {
    const [current, history] = await Promise.allSettled([this.current(scope), this.history(scope, names)]);
    const metrics = current.status === 'fulfilled' ? current.value : undefined;
    const series = history.status === 'fulfilled' ? history.value : undefined;
    const failure = history.status === 'rejected' ? (history.reason as unknown) : undefined;
    const stats = priceStatsFrom(metrics, series);
    const until = this.now() + (failure === undefined ? PRICE_CONTEXT_TTL_MS : isRefusal(failure) ? REFUSED_TTL_MS : FAULT_TTL_MS);
    for (const n of names) scope.names.set(n, { stats: stats.get(n), until });
  }

  /** The current metrics cover every model, so one answer serves all names for the TTL. */
  private current(scope: Scope): Promise<readonly GpuMetric[] | undefined> {
    if (scope.current && scope.current.until > this.now()) return Promise.resolve(scope.current.data);
    if (scope.currentRequest) return scope.currentRequest;
    const request = (async () => {
      try {
        const data = await this.options.client().metrics.current();
        scope.current = { data, until: this.now() + PRICE_CONTEXT_TTL_MS };
        return data;
      } catch (error) {
        this.failed(scope, l10n.t('read the current GPU prices'), error);
        scope.current = { data: undefined, until: this.now() + (isRefusal(error) ? REFUSED_TTL_MS : FAULT_TTL_MS) };
        return undefined;
      } finally {
        scope.currentRequest = undefined;
      }
    })();
    scope.currentRequest = request;
    return request;
  }

  private async history(scope: Scope, names: string[]): Promise<Map<string, GpuHistory>> {
    const end = Math.floor(this.now() / 1000);
    try {
      return await this.options.client().metrics.history(names, { start: end - HISTORY_SECONDS, end, step: HISTORY_STEP });
    } catch (error) {
      this.failed(scope, l10n.t('read the GPU price history'), error);
      throw error;
    }
  }

  private failed(scope: Scope, what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const kind = String((error as { kind?: unknown } | null)?.kind ?? 'error');
    const line = l10n.t('Price context: could not {0}; offers are shown without it. {1}', what, message);
    if (scope.logged.has(`${what}:${kind}`)) this.options.logger.debug(line);
    else {
      scope.logged.add(`${what}:${kind}`);
      this.options.logger.warn(line);
    }
  }
}

/** Waits at most `ms` for the stats: the rent confirmation shows what came in time and never waits longer. */
export async function statsWithin(
  source: PriceContextSource,
  gpuNames: readonly string[],
  ms: number,
): Promise<Map<string, GpuPriceStats>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Map<string, GpuPriceStats>>((resolve) => {
    timer = setTimeout(() => resolve(new Map()), ms);
  });
  try {
    return await Promise.race([source.statsFor(gpuNames), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
