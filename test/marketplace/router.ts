/** Route table types, path matching and small helpers shared by the route files. */
import type { PermissionCategory } from '../../src/core/api/permissions';
import type { Offer } from './catalogue';
import type { Faults } from './faults';
import type { CodeServerMirror } from './mirror';
import type { Account, ApiKeyRecord, Contract, InstanceState, Ms } from './model';
import type { Network } from './network';
import type { Notifications } from './notifications';
import type { Store } from './state';
import type { Transfers } from './transfers';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What the route files need from the running simulator. */
export interface Sim {
  store: Store;
  faults: Faults;
  network: Network;
  /** Copies between instances and cloud connections, on the containers' files. */
  transfers: Transfers;
  /** The base catalogue, unpriced for any particular search. */
  offers: Offer[];
  offerById: Map<number, Offer>;
  /** Field name -> typeof, for coercing filter values. */
  offerKinds: Record<string, string>;
  now(): Ms;
  baseUrl(): string;
  /** How long a requested log stays 404 before it can be read (wall-clock ms). */
  logReadyDelayMs: number;
  /** Brings every instance up to date with the clock (lazy transitions, credit). */
  tick(): void;
  /** Advance one instance and return it with its contract. */
  live(id: number): { inst: InstanceState; contract: Contract } | undefined;
  /** Pending log uploads: token -> when readable (monotonic ms) and the text. */
  logs: Map<string, { readyAt: number; text: string }>;
  /** API requests received (control requests not counted). */
  readonly requestCount: number;
  /** The code-server release mirror under `/__mirror/` (mirror.ts). */
  readonly mirror: CodeServerMirror;
  /** Notification events and their webhook deliveries (notifications.ts, webhooks.ts). */
  readonly notifications: Notifications;
}

export interface Ctx {
  sim: Sim;
  method: Method;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The body as parsed, which may be something other than an object. */
  rawBody: unknown;
  /** Set for every route that needs a key (all but the public log URLs). */
  account: Account;
  key: ApiKeyRecord;
  now: Ms;
}

export interface Reply {
  status?: number;
  /** Serialised as JSON; a string becomes a JSON string. */
  json?: unknown;
  /** Sent as is, instead of `json`. */
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: Method;
  /** Without the trailing slash; `:name` matches one segment. */
  path: string;
  /** null: no key needed (presigned-style log URLs). */
  category: PermissionCategory | null;
  /** Internal action name used by constrained keys, e.g. api.instance.destroy. */
  action: string | ((ctx: Ctx) => string);
  /** Whether an instance API key may make this call (it only ever reaches its own instance). */
  instanceKey?: (ctx: Ctx, instanceId: number) => boolean;
  /** Most answer at once; one that waits on something (a test webhook delivery) returns a promise. */
  handler: (ctx: Ctx) => Reply | Promise<Reply>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'object' && body && 'msg' in body ? String((body as { msg: unknown }).msg) : `HTTP ${status}`);
  }
}

/** The service's usual error: `{success: false, error, msg}` plus any extra fields. */
export function fail(status: number, error: string, msg: string, extra: Record<string, unknown> = {}): HttpError {
  return new HttpError(status, { success: false, error, msg, ...extra });
}

export function ok(json: unknown, status = 200): Reply {
  return { status, json };
}

/** The end of a handler that changed state: marks the store changed (it is saved shortly) and answers `json`. */
export function saved(store: Store, json: unknown): Reply {
  store.changed();
  return ok(json);
}

export function normalisePath(pathname: string): string {
  const collapsed = pathname.replace(/\/{2,}/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

export interface Match<R extends PathRoute = RouteDef> {
  route: R;
  params: Record<string, string>;
}

/** What path matching needs of a route: the API's routes and the control routes both have it. */
export interface PathRoute {
  method: Method;
  /** Without the trailing slash; `:name` matches one segment. */
  path: string;
}

/** Finds the route; `allowed` lists methods of routes whose path matched, for 405s. */
export function matchRoute<R extends PathRoute>(
  routes: readonly R[],
  method: string,
  path: string,
): { match?: Match<R>; allowed: Method[] } {
  const parts = path.split('/');
  const allowed: Method[] = [];
  for (const route of routes) {
    const pattern = route.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let hit = true;
    for (let i = 0; i < pattern.length; i++) {
      const p = pattern[i]!;
      const v = parts[i]!;
      if (p.startsWith(':')) {
        if (!v) {
          hit = false;
          break;
        }
        params[p.slice(1)] = decodeURIComponent(v);
      } else if (p !== v) {
        hit = false;
        break;
      }
    }
    if (!hit) continue;
    if (route.method === method) return { match: { route, params }, allowed };
    allowed.push(route.method);
  }
  return { allowed };
}

/** A query parameter that clients JSON-encode (`select_filters`, `order_by`, `limit`...). */
export function jsonParam(query: URLSearchParams, name: string): unknown {
  const raw = query.get(name);
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function intParam(ctx: Ctx, name: string): number {
  const raw = ctx.params[name] ?? '';
  if (!/^\d+$/.test(raw)) throw fail(400, 'invalid_args', `Invalid ${name}: '${raw}'.`);
  return Number(raw);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Seconds with millisecond precision, as the service's timestamps. */
export function epoch(ms: Ms): number {
  return Math.round(ms) / 1000;
}
