/**
 * API keys: create (scoped), list, show, delete. Key values are returned once, at creation.
 */
import type { Permissions } from '../../../src/core/api/permissions';
import { validPermissions } from '../auth';
import type { ApiKeyRecord } from '../model';
import { epoch, HttpError, fail, intParam, ok, str, type Ctx, type RouteDef, saved } from '../router';

function row(k: ApiKeyRecord) {
  return {
    id: k.id,
    user_id: k.accountId,
    name: k.name,
    rights: k.permissions ? JSON.stringify(k.permissions) : null,
    team_id: null,
    team_name: null,
    key_params: k.keyParams ?? null,
    created_at: epoch(k.createdAt),
  };
}

function ownKey(ctx: Ctx): ApiKeyRecord {
  const id = intParam(ctx, 'id');
  const key = ctx.sim.store.data.keys.find((k) => k.id === id && k.deletedAt === null && k.instanceId === null);
  if (!key) throw new HttpError(404, { msg: 'API Key not found.' });
  if (key.accountId !== ctx.account.id) throw new HttpError(403, { msg: 'You do not have permission to delete this API Key.' });
  return key;
}

export const keyRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/api/v0/auth/apikeys',
    category: 'user_write',
    action: 'api.apikey.create',
    handler: (ctx) => {
      const { body } = ctx;
      if (body.permissions === undefined || body.permissions === null)
        throw fail(400, 'missing_permissions', 'A permissions object is required.');
      const problem = validPermissions(body.permissions);
      if (problem) throw fail(400, 'invalid_permissions', problem);
      const permissions = body.permissions as Permissions;
      const name = str(body.name) ?? null;
      const record = ctx.sim.store.addKey({ accountId: ctx.account.id, name, permissions, keyParams: body.key_params, now: ctx.now });
      return ok({ id: record.id, key: record.key, permissions });
    },
  },
  {
    method: 'GET',
    path: '/api/v0/auth/apikeys',
    category: 'user_read',
    action: 'api.apikey.list',
    handler: (ctx) => {
      return ok({ apikeys: ctx.sim.store.accountKeys(ctx.account.id).map(row) });
    },
  },
  {
    method: 'GET',
    path: '/api/v0/auth/apikeys/:id',
    category: 'user_read',
    action: 'api.apikey.show',
    handler: (ctx) => ok(row(ownKey(ctx))),
  },
  {
    method: 'DELETE',
    path: '/api/v0/auth/apikeys/:id',
    category: 'user_write',
    action: 'api.apikey.delete',
    handler: (ctx) => {
      const key = ownKey(ctx);
      key.deletedAt = ctx.now;
      return saved(ctx.sim.store, 'Successfully Deleted API Key');
    },
  },
];
