/**
 * Notifications (notifications.ts) and their webhooks (webhooks.ts): the types, the account's
 * preferences, and webhook create, list, update, delete, secret rotation and a test delivery, in
 * the OpenAPI's shapes. A webhook shows `webhook_secret` only when created and when its secret is
 * rotated. Refusals are 400 `invalid_args` with a `msg` saying what is wrong: a fifth webhook,
 * a URL that is not https://, is over 2,048 characters or has no host name, a name over 120
 * characters, `event_types` empty or naming an unknown type. Another account's or an unknown
 * webhook is a 404. A loopback or private target is accepted here and refused at delivery (outside
 * test mode), as the service does.
 */
import { newSecret } from '../state';
import type { WebhookRecord } from '../model';
import {
  enableWebhookChannel,
  NOTIFICATION_KEYS,
  NOTIFICATION_TYPES,
  preferencesOf,
  prefsProblem,
  replacePreferences,
} from '../notifications';
import { epoch, fail, intParam, ok, saved, type Ctx, type RouteDef } from '../router';
import type { NotificationPrefs } from '../model';

export const MAX_WEBHOOKS = 4;
export const MAX_URL_LENGTH = 2048;
export const MAX_NAME_LENGTH = 120;

function shown(hook: WebhookRecord, withSecret = false): Record<string, unknown> {
  return {
    id: hook.id,
    user_id: hook.accountId,
    name: hook.name,
    webhook_url: hook.url,
    event_types: [...hook.eventTypes],
    created_at: epoch(hook.createdAt),
    updated_at: epoch(hook.updatedAt),
    ...(withSecret ? { webhook_secret: hook.secret } : {}),
  };
}

function checkedUrl(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw fail(400, 'invalid_args', 'webhook_url is required: an https:// URL.');
  if (value.length > MAX_URL_LENGTH) throw fail(400, 'invalid_args', `webhook_url may have at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail(400, 'invalid_args', 'webhook_url must be an https:// URL with a host name.');
  }
  if (url.protocol !== 'https:') throw fail(400, 'invalid_args', `webhook_url must use https://, not ${url.protocol}//.`);
  if (!url.hostname) throw fail(400, 'invalid_args', 'webhook_url must have a host name.');
  return value;
}

function checkedName(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw fail(400, 'invalid_args', 'name must be a string or null.');
  if (value.length > MAX_NAME_LENGTH) throw fail(400, 'invalid_args', `name may have at most ${MAX_NAME_LENGTH} characters.`);
  return value;
}

function checkedTypes(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw fail(400, 'invalid_args', 'event_types must list at least one notification type (GET /api/v0/notification-types/).');
  for (const key of value) {
    if (typeof key !== 'string' || !NOTIFICATION_KEYS.has(key))
      throw fail(400, 'invalid_args', `Unknown notification type ${JSON.stringify(key)} (GET /api/v0/notification-types/ lists them).`);
  }
  return [...new Set(value as string[])];
}

function ownWebhook(ctx: Ctx): WebhookRecord {
  const id = intParam(ctx, 'id');
  const hook = ctx.sim.store.data.webhooks?.find((h) => h.id === id && h.accountId === ctx.account.id);
  if (!hook) throw fail(404, 'not_found', `Webhook ${id} not found.`);
  return hook;
}

/** The account behind `:user_id` must be the caller's (`me` too); another is a 404. */
function ownUser(ctx: Ctx): number {
  const raw = ctx.params.user_id ?? '';
  if (raw !== 'me' && raw !== String(ctx.account.id)) throw fail(404, 'not_found', `User ${raw} not found.`);
  return ctx.account.id;
}

function create(ctx: Ctx) {
  const { body, sim, account, now } = ctx;
  const data = sim.store.data;
  const hooks = (data.webhooks ??= []);
  if (hooks.filter((h) => h.accountId === account.id).length >= MAX_WEBHOOKS)
    throw fail(400, 'invalid_args', `An account may have at most ${MAX_WEBHOOKS} webhooks; delete one first.`);
  const hook: WebhookRecord = {
    id: 0,
    accountId: account.id,
    name: checkedName(body.name),
    url: checkedUrl(body.webhook_url),
    eventTypes: checkedTypes(body.event_types),
    secret: newSecret(),
    createdAt: now,
    updatedAt: now,
  };
  hook.id = sim.store.nextId('webhook');
  hooks.push(hook);
  const enabled = enableWebhookChannel(data, account.id, hook.eventTypes);
  if (hook.eventTypes.includes('client:low_credit')) sim.notifications.watchCredit(account.id, now);
  return saved(sim.store, { success: true, webhook: shown(hook, true), enabled_notification_preferences: enabled });
}

function update(ctx: Ctx) {
  const hook = ownWebhook(ctx);
  const { body, sim, account, now } = ctx;
  if (!('name' in body) && !('webhook_url' in body) && !('event_types' in body))
    throw fail(400, 'invalid_args', 'Give a name, webhook_url or event_types to change.');
  const name = 'name' in body ? checkedName(body.name) : hook.name;
  const url = 'webhook_url' in body ? checkedUrl(body.webhook_url) : hook.url;
  const types = 'event_types' in body ? checkedTypes(body.event_types) : hook.eventTypes;
  Object.assign(hook, { name, url, eventTypes: types, updatedAt: now });
  const enabled = enableWebhookChannel(sim.store.data, account.id, types);
  if (types.includes('client:low_credit')) sim.notifications.watchCredit(account.id, now);
  return saved(sim.store, { success: true, webhook: shown(hook), enabled_notification_preferences: enabled });
}

async function test(ctx: Ctx) {
  const hook = ownWebhook(ctx);
  const outcome = await ctx.sim.notifications.test(hook, ctx.now);
  if (!outcome.delivered) throw fail(400, 'webhook_test_failed', `Test webhook not delivered: ${outcome.error ?? 'no answer'}.`);
  return ok({ success: true, msg: 'Test webhook delivered' });
}

export const notificationRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/notification-types',
    category: 'user_read',
    action: 'api.notification.types',
    handler: () => ok({ success: true, notification_types: NOTIFICATION_TYPES }),
  },
  {
    method: 'GET',
    path: '/api/v0/users/:user_id/notification-prefs',
    category: 'user_read',
    action: 'api.notification.prefs.show',
    handler: (ctx) => ok({ success: true, notification_preferences: preferencesOf(ctx.sim.store.data, ownUser(ctx)) }),
  },
  {
    method: 'PUT',
    path: '/api/v0/users/:user_id/notification-prefs',
    category: 'user_write',
    action: 'api.notification.prefs.update',
    handler: (ctx) => {
      const accountId = ownUser(ctx);
      const problem = prefsProblem(ctx.body.notification_preferences);
      if (problem) throw fail(400, 'invalid_args', problem);
      const prefs = replacePreferences(ctx.sim.store.data, accountId, ctx.body.notification_preferences as NotificationPrefs);
      return saved(ctx.sim.store, { success: true, notification_preferences: prefs });
    },
  },
  {
    method: 'GET',
    path: '/api/v0/webhooks',
    category: 'user_read',
    action: 'api.webhook.list',
    handler: (ctx) =>
      ok({
        success: true,
        webhooks: (ctx.sim.store.data.webhooks ?? []).filter((h) => h.accountId === ctx.account.id).map((h) => shown(h)),
      }),
  },
  { method: 'POST', path: '/api/v0/webhooks', category: 'user_write', action: 'api.webhook.create', handler: create },
  { method: 'PUT', path: '/api/v0/webhooks/:id', category: 'user_write', action: 'api.webhook.update', handler: update },
  {
    method: 'DELETE',
    path: '/api/v0/webhooks/:id',
    category: 'user_write',
    action: 'api.webhook.delete',
    handler: (ctx) => {
      const hook = ownWebhook(ctx);
      const data = ctx.sim.store.data;
      data.webhooks = (data.webhooks ?? []).filter((h) => h !== hook);
      return saved(ctx.sim.store, { success: true });
    },
  },
  {
    method: 'POST',
    path: '/api/v0/webhooks/:id/rotate-secret',
    category: 'user_write',
    action: 'api.webhook.rotate_secret',
    handler: (ctx) => {
      const hook = ownWebhook(ctx);
      hook.secret = newSecret();
      hook.updatedAt = ctx.now;
      return saved(ctx.sim.store, { success: true, webhook: shown(hook, true) });
    },
  },
  { method: 'POST', path: '/api/v0/webhooks/:id/test', category: 'user_write', action: 'api.webhook.test', handler: test },
];
