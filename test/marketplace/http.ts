/**
 * The simulator's HTTP side: from a request to a route's answer. The code-server release mirror
 * under `/__mirror/` (mirror.ts) and the control routes first (no key, no faults), then the fault
 * rules, then the route table: path and method matched (405 with `Allow` for a known path under
 * another method, the web framework's 404 for an unknown one), the body read as JSON, the key
 * authenticated and its permissions checked (auth.ts), the handler run.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, authorise, bearer } from './auth';
import { writeFault, type Captured, type Faults } from './faults';
import type { Account, ApiKeyRecord } from './model';
import { notFoundReply } from './notFound';
import { HttpError, matchRoute, normalisePath, type Ctx, type Method, type Reply, type RouteDef, type Sim } from './router';
import { handleControl, type MarketplaceControl } from './routes/control';
import { takeOffer } from './listings';

/** What answering requests needs from the running simulator. */
export interface HttpHost extends Sim {
  readonly faults: Faults;
  /** The routes served (all of them, less the `withoutRoutes` option's). */
  readonly routes: readonly RouteDef[];
  readonly control: MarketplaceControl;
  countRequest(): void;
  /** A delay the simulator cancels when it stops. */
  sleep(ms: number): Promise<void>;
}

const MAX_BODY = 5 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function capture(reply: Reply): Captured {
  const status = reply.status ?? 200;
  const text = reply.text ?? JSON.stringify(reply.json ?? null);
  const contentType = reply.contentType ?? (reply.text !== undefined ? 'text/plain; charset=utf-8' : 'application/json');
  return { status, headers: { 'content-type': contentType, ...reply.headers }, body: Buffer.from(text) };
}

export function send(res: ServerResponse, c: Captured): void {
  if (res.destroyed) return;
  res.writeHead(c.status, { ...c.headers, 'content-length': String(c.body.length) }).end(c.body);
}

/** The path as the client sent it, percent-decoded where that is valid, without the query. */
function requestedPath(req: IncomingMessage): string {
  const raw = (req.url ?? '/').split('?')[0] ?? '/';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function errorReply(error: unknown): Reply {
  if (error instanceof HttpError) return { status: error.status, json: error.body };
  console.error('marketplace: handler failed:', error);
  return { status: 500, json: { success: false, error: 'server_error', msg: error instanceof Error ? error.message : String(error) } };
}

/**
 * Answers one request: a control route, or an API request (counted, with its faults applied
 * before and after the route runs).
 */
export async function handleRequest(host: HttpHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = normalisePath(url.pathname);
  const method = (req.method ?? 'GET').toUpperCase();
  const raw = await readBody(req);
  // The code-server release mirror (mirror.ts): a public download site, no key, no faults.
  if (path === '/__mirror' || path.startsWith('/__mirror/')) return host.mirror.serve(req, res, path);
  if (path === '/__control' || path.startsWith('/__control/')) {
    let body: unknown;
    try {
      body = raw.length ? JSON.parse(raw.toString('utf8')) : {};
    } catch {
      return send(res, capture({ status: 400, json: { success: false, error: 'invalid_request', msg: 'Body is not valid JSON.' } }));
    }
    let reply: Reply;
    try {
      reply = handleControl(host.control, method, path, body);
    } catch (error) {
      reply = errorReply(error);
    }
    return send(res, capture(reply));
  }
  host.countRequest();
  const faults = host.faults.forRequest(method, path + url.search);
  if (faults.delayBeforeMs > 0) await host.sleep(faults.delayBeforeMs);
  if (faults.before) return writeFault(faults.before, res);
  if (faults.takeOffer !== undefined) takeOffer(host, faults.takeOffer);
  const captured = capture(await dispatch(host, req, method, path, url.searchParams, raw));
  if (faults.delayAfterMs > 0) await host.sleep(faults.delayAfterMs);
  if (faults.after) return writeFault(faults.after, res, captured);
  send(res, captured);
}

/** Finds the route, reads the body, checks the key and its permissions, and runs the handler. */
async function dispatch(
  host: HttpHost,
  req: IncomingMessage,
  method: string,
  path: string,
  query: URLSearchParams,
  raw: Buffer,
): Promise<Reply> {
  try {
    const { match, allowed } = matchRoute(host.routes, method, path);
    if (!match) {
      if (allowed.length > 0)
        return {
          status: 405,
          json: { success: false, error: 'method_not_allowed', msg: `${method} is not allowed here.` },
          headers: { allow: allowed.join(', ') },
        };
      return notFoundReply(requestedPath(req), req.headers.accept);
    }
    let rawBody: unknown;
    const text = raw.toString('utf8').trim();
    try {
      rawBody = text ? JSON.parse(text) : undefined;
    } catch {
      return { status: 400, json: { success: false, error: 'invalid_request', msg: 'The request body is not valid JSON.' } };
    }
    const body = rawBody !== null && typeof rawBody === 'object' && !Array.isArray(rawBody) ? (rawBody as Record<string, unknown>) : {};
    let key: ApiKeyRecord | undefined;
    let account: Account | undefined;
    if (match.route.category) {
      key = authenticate(host.store, bearer(req, query));
      account = host.store.account(key.accountId);
    }
    host.tick();
    const ctx = {
      sim: host,
      method: method as Method,
      path,
      params: match.params,
      query,
      body,
      rawBody,
      account,
      key,
      now: host.now(),
    } as Ctx;
    if (key) authorise(key, match.route, ctx);
    return await match.route.handler(ctx);
  } catch (error) {
    return errorReply(error);
  }
}
