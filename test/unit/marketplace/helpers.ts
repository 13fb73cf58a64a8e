/** Plain-HTTP helpers for the simulator's own tests (no API client involved). */
import { request as httpRequest } from 'node:http';
import { CATALOGUE_EPOCH } from '../../marketplace/catalogue';
import { startMarketplace, type Marketplace, type MarketplaceOptions } from '../../marketplace/server';

export const KEY = 'sim-test-key-0123456789abcdef';
export const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPq3d0kN8bO5n0t1s2m3u4l5a6t7o8r9k0e1y2z3a4b5 sim@test';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** A clock the test moves by hand; starts at the catalogue epoch so offer dates are unshifted. */
export class FakeClock {
  ms = CATALOGUE_EPOCH * 1000;
  readonly now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export function start(options: MarketplaceOptions = {}): Promise<Marketplace> {
  return startMarketplace({ port: 0, apiKey: KEY, bootSeconds: 0.2, seed: 1, ...options });
}

/** One request; `key` null sends no Authorization header. */
export async function call(sim: { url: string }, method: string, path: string, body?: unknown, key: string | null = KEY): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(sim.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The body as an object (throws when it is not one). */
export function obj(answer: Answer): Record<string, unknown> {
  if (answer.json === null || typeof answer.json !== 'object' || Array.isArray(answer.json))
    throw new Error(`not an object: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.json as Record<string, unknown>;
}

export function q(value: unknown): string {
  return encodeURIComponent(JSON.stringify(value));
}

/** A raw request that reports what happened on the socket: a response, or the error that ended it. */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  key = KEY,
  body?: unknown,
): Promise<{ status?: number; text?: string; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      url + path,
      {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8'), error }));
        res.on('aborted', () =>
          resolve({
            status: res.statusCode,
            text: Buffer.concat(chunks).toString('utf8'),
            error: Object.assign(new Error('aborted'), { code: 'ECONNRESET' }),
          }),
        );
      },
    );
    req.on('error', (error) => resolve({ error }));
    req.end(payload);
  });
}

/** Rents the cheapest rentable offer; returns the instance id and its instance API key. */
export async function rentOne(
  sim: { url: string },
  body: Record<string, unknown> = {},
  key = KEY,
): Promise<{ id: number; instanceKey: string; offerId: number }> {
  const offers = obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 1 }, key))
    .offers as Array<{ id: number }>;
  const offerId = offers[0]!.id;
  const res = await call(sim, 'PUT', `/api/v0/asks/${offerId}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 10, ...body }, key);
  const created = obj(res);
  if (res.status !== 200) throw new Error(`rent failed: ${res.text}`);
  return { id: created.new_contract as number, instanceKey: created.instance_api_key as string, offerId };
}

export async function show(sim: { url: string }, id: number, key = KEY): Promise<Record<string, unknown> | null> {
  return obj(await call(sim, 'GET', `/api/v0/instances/${id}/`, undefined, key)).instances as Record<string, unknown> | null;
}

export async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
