/** The extension's typed API client, built as the extension builds it, for tests against the simulator. */
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { GpuRentalClient } from '../../src/core/api/client';
import { ApiError } from '../../src/core/api/errors';
import type { TransportOptions } from '../../src/core/api/transport';
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
