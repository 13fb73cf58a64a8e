/**
 * The simulator over plain HTTP, as a second client would call it: no API client in between, so
 * a test sees exactly what the simulator answers (status, headers, body).
 */
import { request as httpRequest } from 'node:http';
import { DEMO_KEY } from './keys';

/** Anything with the simulator's base URL: an in-process `Marketplace`, a spawned one, an e2e workbench's. */
export interface SimulatorAt {
  url: string;
}

/** One answer, read whole; `json` is undefined when the body is not JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** One request; `key` null sends no Authorization header. */
export async function call(sim: SimulatorAt, method: string, path: string, body?: unknown, key: string | null = DEMO_KEY): Promise<Answer> {
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

/** A value JSON-encoded for a query parameter (`?q=`, `select_filters=`). */
export function q(value: unknown): string {
  return encodeURIComponent(JSON.stringify(value));
}

/** Calls `/__control/{path}` (the test-only control API, no key) and returns its JSON; throws unless 2xx. */
export async function control(sim: SimulatorAt, method: string, path: string, body?: unknown): Promise<unknown> {
  const answer = await call(sim, method, `/__control/${path}`, body, null);
  if (answer.status >= 300) throw new Error(`control ${method} ${path}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.json;
}

/** Rents the cheapest rentable offer; returns the instance id and its instance API key. */
export async function rentOne(
  sim: SimulatorAt,
  body: Record<string, unknown> = {},
  key = DEMO_KEY,
): Promise<{ id: number; instanceKey: string; offerId: number }> {
  const offers = obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 1 }, key))
    .offers as Array<{ id: number }>;
  const offerId = offers[0]!.id;
  const res = await call(sim, 'PUT', `/api/v0/asks/${offerId}/`, { client_id: 'me', image: 'ubuntu:22.04', disk: 10, ...body }, key);
  const created = obj(res);
  if (res.status !== 200) throw new Error(`rent failed: ${res.text}`);
  return { id: created.new_contract as number, instanceKey: created.instance_api_key as string, offerId };
}

/** Rents the cheapest interruptible offer as a bid `over` its minimum ($/h); returns the instance id. */
export async function rentBid(sim: SimulatorAt, over = 0.05, key = DEMO_KEY): Promise<number> {
  const offers = obj(
    await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, type: 'bid', order: [['dph_total', 'asc']], limit: 1 }, key),
  ).offers as Array<{ id: number; min_bid: number }>;
  const res = await call(
    sim,
    'PUT',
    `/api/v0/asks/${offers[0]!.id}/`,
    { client_id: 'me', image: 'ubuntu:22.04', disk: 10, price: offers[0]!.min_bid + over },
    key,
  );
  if (res.status !== 200) throw new Error(`rent failed: ${res.text}`);
  return obj(res).new_contract as number;
}

/** An instance as `GET /api/v0/instances/{id}/` shows it to `key`'s account (null when not its own). */
export async function show(sim: SimulatorAt, id: number, key = DEMO_KEY): Promise<Record<string, unknown> | null> {
  return obj(await call(sim, 'GET', `/api/v0/instances/${id}/`, undefined, key)).instances as Record<string, unknown> | null;
}

/** A raw request that reports what happened on the socket: a response, or the error that ended it. */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  key = DEMO_KEY,
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
