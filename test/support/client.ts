/** The extension's typed API client, built as the extension builds it, for tests against the simulator. */
import assert from 'node:assert/strict';
import { Agent, MockAgent } from 'undici';
import { GpuRentalClient } from '../../src/core/api/client';
import { ApiError } from '../../src/core/api/errors';
import type { Instance } from '../../src/core/api/instances';
import type { Offer } from '../../src/core/api/offers';
import { Transport, type TransportOptions } from '../../src/core/api/transport';
import { eventually } from './eventually';
import { MemoryLogger } from './logger';

const dispatcher = new Agent({ keepAliveTimeout: 1_000, connections: 8 });

/** A client with short retry delays so tests stay fast, and the logger it writes to. */
export function clientFor(url: string, key: string | undefined, extra: Partial<TransportOptions> = {}) {
  const logger = new MemoryLogger();
  const client = new GpuRentalClient({
    dispatcher,
    baseUrl: url,
    getApiKey: () => key,
    logger,
    timeoutMs: 5_000,
    retryBaseMs: 5,
    ...extra,
  });
  return { client, logger };
}

/**
 * The transport and the client over undici's MockAgent, with no network: a test scripts the
 * service's answers on `pool` (requests to `base`). One attempt per call unless `extra` says more.
 */
export function mockedApi(base: string, key: string, extra: Partial<TransportOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const logger = new MemoryLogger();
  const options: TransportOptions = {
    dispatcher: agent,
    baseUrl: base,
    getApiKey: () => key,
    logger,
    timeoutMs: 2_000,
    maxAttempts: 1,
    ...extra,
  };
  return { agent, pool: agent.get(base), logger, transport: new Transport(options), client: new GpuRentalClient(options) };
}

/** The ApiError a call fails with; fails the test when it succeeds or fails otherwise. */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected ApiError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

/** The cheapest rentable on-demand offers that pass `filters`, through the client. */
export async function rentableOffers(client: GpuRentalClient, count = 1, filters: Record<string, unknown> = {}): Promise<Offer[]> {
  return client.offers.search({
    query: { filters: { rentable: { eq: true }, ...filters }, order: [['dph_total', 'asc']], type: 'on-demand' },
    limit: count,
  });
}

/** Polls the instance through the client until its `actual_status` is `status`, and resolves with it. */
export function instanceIn(client: GpuRentalClient, id: number, status: string, timeoutMs = 10_000): Promise<Instance> {
  return eventually(
    async () => {
      const instance = await client.instances.show(id);
      return instance.actual_status === status ? instance : undefined;
    },
    `instance ${id} ${status}`,
    timeoutMs,
  );
}
