/**
 * Keys and permissions. A full-access key may do anything on its account. A scoped key carries
 * `{"api": {"<category>": {...}}}`: the route's category must be present; when that category's
 * object is not empty, it lists the actions allowed, each optionally constrained:
 * `{"api.instance.destroy": {"constraints": {"id": {"eq": 5}}}}` (ops eq, gte, lte; also neq, lt,
 * gt, in for convenience). Params are the route's path ids and the body's scalar fields.
 * An instance API key reaches only its own instance, on the routes that allow it.
 *
 * Refusals, as the service words them (service notes §1.2): a key that matches no live key is 401
 * "Invalid user key" (`auth_error`). A missing permission is 403, except on the billing routes,
 * where it is 401 (the service answers either; a client must read the body, not the status). An
 * account with two-factor authentication turned on (`setTwoFactor`, the control route
 * `/__control/accounts/{id}/quirks`) refuses key management and credit transfers to every API key
 * with 401 and a message naming "Two Factor Authentication".
 */
import type { IncomingMessage } from 'node:http';
import { PERMISSION_CATEGORIES } from '../../src/core/api/permissions';
import type { ApiKeyRecord } from './model';
import { fail, isObject, type Ctx, type HttpError, type RouteDef } from './router';
import type { Store } from './state';

export function bearer(req: IncomingMessage, query: URLSearchParams): string | undefined {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    return m ? m[1]!.trim() : undefined;
  }
  // Old clients sent the key as a query parameter; the service still accepts it.
  return query.get('api_key') ?? undefined;
}

/** The key record for a request, or the 401 the service answers with. */
export function authenticate(store: Store, secret: string | undefined): ApiKeyRecord {
  if (!secret) throw fail(401, 'auth_error', 'This action requires login.');
  const key = store.liveKey(secret);
  if (!key || !store.account(key.accountId)) throw fail(401, 'auth_error', 'Invalid user key');
  return key;
}

/** Categories whose missing permission is answered with 401 rather than 403. */
const DENIED_WITH_401 = new Set(['billing_read', 'billing_write']);

function denied(category: string, message = `This API key lacks the '${category}' permission.`): HttpError {
  return fail(DENIED_WITH_401.has(category) ? 401 : 403, 'permission_denied', message);
}

/** Actions an account with two-factor authentication allows only from a two-factor login. */
const TWO_FACTOR_ACTIONS = new Set(['api.apikey.create', 'api.apikey.delete']);
const TWO_FACTOR_CATEGORIES = new Set(['billing_write']);

const twoFactorAccounts = new WeakMap<Store, Set<number>>();

/** Turns the account's two-factor authentication on or off (test control; not persisted). */
export function setTwoFactor(store: Store, accountId: number, on: boolean): void {
  let accounts = twoFactorAccounts.get(store);
  if (!accounts) twoFactorAccounts.set(store, (accounts = new Set()));
  if (on) accounts.add(accountId);
  else accounts.delete(accountId);
}

export function hasTwoFactor(store: Store, accountId: number): boolean {
  return twoFactorAccounts.get(store)?.has(accountId) ?? false;
}

function satisfies(value: unknown, op: string, expected: unknown): boolean {
  const a = typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
  const b = typeof expected === 'string' && expected.trim() !== '' && !Number.isNaN(Number(expected)) ? Number(expected) : expected;
  switch (op) {
    case 'eq':
      return a === b;
    case 'neq':
      return a !== b;
    case 'in':
      return Array.isArray(expected) && expected.some((e) => satisfies(value, 'eq', e));
    case 'gte':
    case 'lte':
    case 'gt':
    case 'lt':
      if (typeof a !== 'number' || typeof b !== 'number') return false;
      return op === 'gte' ? a >= b : op === 'lte' ? a <= b : op === 'gt' ? a > b : a < b;
    default:
      return false;
  }
}

/** Path ids and scalar body fields: what constraints can refer to. */
export function actionParams(ctx: Ctx): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx.body)) if (v === null || typeof v !== 'object') params[k] = v;
  for (const [k, v] of Object.entries(ctx.params)) params[k] = /^\d+$/.test(v) ? Number(v) : v;
  return params;
}

/** Throws the 403 when the key may not make this call. */
export function authorise(key: ApiKeyRecord, route: RouteDef, ctx: Ctx): void {
  const category = route.category;
  if (!category) return;
  const action = typeof route.action === 'function' ? route.action(ctx) : route.action;
  if ((TWO_FACTOR_ACTIONS.has(action) || TWO_FACTOR_CATEGORIES.has(category)) && hasTwoFactor(ctx.sim.store, key.accountId)) {
    throw fail(401, 'tfa_required', 'This action requires Two Factor Authentication. Log in with two factor authentication to continue.');
  }
  if (key.instanceId !== null) {
    if (!route.instanceKey || !route.instanceKey(ctx, key.instanceId)) {
      throw fail(403, 'permission_denied', 'An instance API key can only show, start, stop or destroy its own instance.');
    }
    return;
  }
  if (key.permissions === null) return;
  const api = isObject(key.permissions) && isObject(key.permissions.api) ? key.permissions.api : {};
  const scope = (api as Record<string, unknown>)[category];
  if (!isObject(scope)) throw denied(category);
  const actions = Object.entries(scope);
  if (actions.length === 0) return;
  const rule = scope[action];
  if (!isObject(rule)) throw denied(category, `This API key's '${category}' permission does not include ${action}.`);
  const constraints = isObject(rule.constraints) ? rule.constraints : {};
  const params = actionParams(ctx);
  for (const [param, ops] of Object.entries(constraints)) {
    if (!isObject(ops)) continue;
    for (const [op, expected] of Object.entries(ops)) {
      if (!satisfies(params[param], op, expected)) {
        throw fail(403, 'permission_denied', `This API key may only call ${action} with ${param} ${op} ${JSON.stringify(expected)}.`);
      }
    }
  }
}

/** The service's categories: the extension's, and the agents ones it does not use. */
const CATEGORIES = new Set<string>([...Object.keys(PERMISSION_CATEGORIES), 'agents_read', 'agents_write']);

/** Checks the shape of a permission object given to create-key or a team role. */
export function validPermissions(value: unknown): string | undefined {
  if (!isObject(value) || !isObject(value.api)) return 'Permissions must be an object of the form {"api": {"<category>": {}}}.';
  for (const [category, scope] of Object.entries(value.api)) {
    if (!CATEGORIES.has(category)) return `Unknown permission category '${category}'.`;
    if (!isObject(scope)) return `Permission category '${category}' must map to an object.`;
  }
  return undefined;
}
