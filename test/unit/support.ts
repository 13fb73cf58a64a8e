import { Agent } from 'undici';
import assert from 'node:assert/strict';
import { GpuRentalClient } from '../../src/core/api/client';
import { ApiError } from '../../src/core/api/errors';
import type { TransportOptions } from '../../src/core/api/transport';
import type { Logger } from '../../src/core/log';
import { startMarketplace } from '../marketplace/server';

export const DEMO_KEY = 'demo-key-5f0c1e9a7b3d4c2e8f6a';

/** Records every line, so a test can assert what was (and was not) logged. */
export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  debug(m: string) {
    this.lines.push(`debug ${m}`);
  }
  info(m: string) {
    this.lines.push(`info ${m}`);
  }
  warn(m: string) {
    this.lines.push(`warn ${m}`);
  }
  error(m: string) {
    this.lines.push(`error ${m}`);
  }
}

export type Marketplace = Awaited<ReturnType<typeof startMarketplace>>;

export function startSimulator(options: Partial<Parameters<typeof startMarketplace>[0]> = {}): Promise<Marketplace> {
  return startMarketplace({ port: 0, apiKey: DEMO_KEY, bootSeconds: 0.2, seed: 1, ...options });
}

const dispatcher = new Agent({ keepAliveTimeout: 1_000, connections: 8 });

/** A client as the extension builds it, with short retry delays so tests stay fast. */
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

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const TEST_PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEh4bmOm9Ws8bc3Lw6vYgZzl6m2kX6v3K0dJq2k3Yq8B test@gpu-rental';

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
