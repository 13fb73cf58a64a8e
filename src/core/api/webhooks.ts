/**
 * The account's notification webhooks and the notification types they subscribe to
 * (`/api/v0/webhooks/`, `/api/v0/notification-types/`; openapi.yaml's Notifications and
 * ../shared/reference/service-notes.md §15.3). A webhook's signing secret comes back only when it
 * is created or its secret rotated; it is handed on wrapped in a SigningSecret, which prints as a
 * placeholder, so that a template string, a log line or JSON never carries it by mistake.
 */
import * as z from 'zod';
import { listOf, optNumber, optString, recordId, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/** A webhook's signing secret: `reveal()` is the only way to its text. */
export class SigningSecret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
}

/** A list of text: anything that is not text is left out; a missing or odd list is empty. */
const textList = z.unknown().transform((v): string[] => (Array.isArray(v) ? v.filter((e): e is string => typeof e === 'string') : []));

/**
 * One webhook as the service lists it. Only the fields the extension reads are kept: a
 * `webhook_secret`, should a list ever carry one, is dropped here.
 */
const WebhookSchema = z.object({
  id: recordId,
  name: optString,
  webhook_url: optString,
  event_types: textList,
  created_at: optNumber,
  updated_at: optNumber,
});
export type Webhook = z.output<typeof WebhookSchema>;

/** The answer to a create or a rotate: the webhook, and its secret taken out of the record at once. */
const WithSecretSchema = z
  .object({ webhook: WebhookSchema.extend({ webhook_secret: optString }) })
  .transform(({ webhook: { webhook_secret, ...webhook } }) => ({
    webhook,
    secret: webhook_secret ? new SigningSecret(webhook_secret) : undefined,
  }));
export type WebhookWithSecret = z.output<typeof WithSecretSchema>;

/** One notification type: `key` is the full name a webhook subscribes to (`client:outbid`). */
const NotificationTypeSchema = z.object({
  key: z.string().min(1),
  slug: optString,
  context: optString,
  category: optString,
  display_name: optString,
});
export type NotificationType = z.output<typeof NotificationTypeSchema>;

/** What the service said to a test delivery. */
const TestAnswerSchema = z
  .object({ msg: optString, message: optString })
  .catch({ msg: undefined, message: undefined })
  .transform((a) => a.msg ?? a.message ?? undefined);

const Answered = z.unknown().transform(() => undefined);

/** What a webhook is made with, or changed to; a change sends only the fields given. */
export interface WebhookFields {
  name?: string;
  webhook_url?: string;
  event_types?: readonly string[];
}

function checkedId(id: number): number {
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error(l10n.t('{0} is not a webhook id.', String(id)));
  return id;
}

export class WebhooksApi {
  constructor(private readonly t: Transport) {}

  /** The account's webhooks (the service allows four), without their secrets. */
  list(o: RequestOptions = {}): Promise<Webhook[]> {
    return this.t.send({
      action: l10n.t('list notification webhooks'),
      method: 'GET',
      path: '/api/v0/webhooks/',
      schema: listOf(WebhookSchema, 'webhooks'),
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
  }

  /**
   * Registers a webhook; the answer carries its signing secret, the only time but a rotate. Not
   * repeated after a lost answer: a second create would make a second webhook.
   */
  create(fields: Required<Pick<WebhookFields, 'webhook_url' | 'event_types'>> & WebhookFields, o: RequestOptions = {}) {
    return this.t.send({
      action: l10n.t('create a notification webhook'),
      method: 'POST',
      path: '/api/v0/webhooks/',
      body: { name: fields.name, webhook_url: fields.webhook_url, event_types: fields.event_types },
      schema: WithSecretSchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** Changes a webhook's name, URL or events; setting the same values twice is harmless. */
  update(id: number, fields: WebhookFields, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('change notification webhook {0}', id),
      method: 'PUT',
      path: `/api/v0/webhooks/${checkedId(id)}/`,
      body: fields,
      schema: Answered,
      permission: 'user_write',
      retry: 'read',
      ...o,
    });
  }

  delete(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('remove notification webhook {0}', id),
      method: 'DELETE',
      path: `/api/v0/webhooks/${checkedId(id)}/`,
      schema: Answered,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** Replaces the webhook's signing secret; the answer carries the new one. The old one stops verifying at once. */
  rotateSecret(id: number, o: RequestOptions = {}): Promise<WebhookWithSecret> {
    return this.t.send({
      action: l10n.t('rotate the secret of notification webhook {0}', id),
      method: 'POST',
      path: `/api/v0/webhooks/${checkedId(id)}/rotate-secret/`,
      schema: WithSecretSchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** Asks the service to send one `webhook_test` delivery (not retried by the service); resolves what it said. */
  test(id: number, o: RequestOptions = {}): Promise<string | undefined> {
    return this.t.send({
      action: l10n.t('send a test delivery to notification webhook {0}', id),
      method: 'POST',
      path: `/api/v0/webhooks/${checkedId(id)}/test/`,
      schema: TestAnswerSchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** The notification types the account may subscribe to (renters' start with `client:`). */
  types(o: RequestOptions = {}): Promise<NotificationType[]> {
    return this.t.send({
      action: l10n.t('list notification types'),
      method: 'GET',
      path: '/api/v0/notification-types/',
      schema: listOf(NotificationTypeSchema, 'notification_types'),
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
  }
}
