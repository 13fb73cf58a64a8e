/**
 * Notifications: the types an account can be told about, its preferences per type and channel, and
 * the events that go out to its webhooks (service notes §15.3, openapi's Notifications routes;
 * delivery itself is webhooks.ts).
 *
 * An event goes to every webhook of the account subscribed to its type, while the account's
 * preference for that type has the `webhooks` channel on. Subscribing a webhook turns that channel
 * on; turning it off in the preferences (`PUT .../notification-prefs/`) silences the type for every
 * webhook. Events the simulator raises:
 *
 * - `client:outbid`: an interruptible instance stopped for a higher bid (bids.ts);
 * - `client:instance_stopped`: an instance stopped, by its renter or by itself (out of credit,
 *   outbid, its host); `lifecycle.stop` tells `Network.onStopped`;
 * - `client:low_credit`: the account's credit fell below LOW_CREDIT_THRESHOLD. Once per crossing:
 *   it must rise to the threshold or above before it is told again. Checked on every tick, for the
 *   accounts with a webhook on the type.
 *
 * The other types are listed and can be subscribed to, but nothing in the simulator raises them.
 */
import { randomUUID } from 'node:crypto';
import { balance } from './ledger';
import type { InstanceState, Ms, NotificationPrefs, StoreData, WebhookRecord } from './model';
import type { DeliveryOutcome, WebhookSender } from './webhooks';

/** A notification type as `GET /api/v0/notification-types/` lists it (openapi `NotificationType`). */
export interface NotificationType {
  key: string;
  slug: string;
  context: 'client' | 'host';
  topic: string | null;
  category: string;
  display_name: string;
  default_preferences: Record<string, boolean>;
  mandatory_email: boolean;
}

/** The channels a preference turns on and off. */
export const CHANNELS = ['email', 'webhooks'] as const;

function type(key: string, topic: string | null, category: string, displayName: string, mandatoryEmail = false): NotificationType {
  const [context, slug] = key.split(':') as ['client' | 'host', string];
  return {
    key,
    slug,
    context,
    topic,
    category,
    display_name: displayName,
    default_preferences: { email: true, webhooks: false },
    mandatory_email: mandatoryEmail,
  };
}

export const NOTIFICATION_TYPES: readonly NotificationType[] = [
  type('client:outbid', 'instances', 'instances', 'Outbid interruptible instances'),
  type('client:low_credit', 'billing', 'billing', 'Low balance notifications'),
  type('client:instance_stopped', 'instances', 'instances', 'Instance stopped'),
  type('client:instance_offline', 'instances', 'instances', "Instance's machine offline"),
  type('client:disk_full', 'instances', 'instances', 'Instance disk full'),
  type('client:contract_expiring', 'contracts', 'billing', 'Contract ending soon', true),
  type('host:machine_offline', 'machines', 'hosting', 'Machine offline'),
  type('host:machine_rented', 'machines', 'hosting', 'Machine rented'),
];

export const NOTIFICATION_KEYS: ReadonlySet<string> = new Set(NOTIFICATION_TYPES.map((t) => t.key));

/** The slug of a test delivery (`POST /api/v0/webhooks/{id}/test/`); not a type one subscribes to. */
export const TEST_EVENT = 'webhook_test';

/** Credit below this many dollars is low (the `balance_threshold` the user record shows). */
export const LOW_CREDIT_THRESHOLD = 5;

/** Every type's defaults. */
function defaults(): NotificationPrefs {
  const prefs: NotificationPrefs = {};
  for (const t of NOTIFICATION_TYPES) (prefs[t.context] ??= {})[t.slug] = { ...t.default_preferences };
  return prefs;
}

/** The account's preferences: the defaults with what it changed over them. */
export function preferencesOf(data: StoreData, accountId: number): NotificationPrefs {
  const prefs = defaults();
  const stored = data.notificationPrefs?.find((p) => p.accountId === accountId)?.prefs ?? {};
  for (const [context, slugs] of Object.entries(stored))
    for (const [slug, channels] of Object.entries(slugs)) if (prefs[context]?.[slug]) Object.assign(prefs[context][slug], channels);
  return prefs;
}

function store(data: StoreData, accountId: number, prefs: NotificationPrefs): void {
  const list = (data.notificationPrefs ??= []);
  const entry = list.find((p) => p.accountId === accountId);
  if (entry) entry.prefs = prefs;
  else list.push({ accountId, prefs });
}

/**
 * Checks a `notification_preferences` object (context -> slug -> channel -> boolean); answers what
 * is wrong with it, or undefined.
 */
export function prefsProblem(value: unknown): string | undefined {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(value)) return 'notification_preferences must be an object: {"client": {"low_credit": {"email": true, "webhooks": false}}}.';
  for (const [context, slugs] of Object.entries(value)) {
    if (!isObj(slugs)) return `notification_preferences.${context} must be an object.`;
    for (const [slug, channels] of Object.entries(slugs)) {
      const t = NOTIFICATION_TYPES.find((n) => n.key === `${context}:${slug}`);
      if (!t) return `Unknown notification type '${context}:${slug}'.`;
      if (!isObj(channels)) return `notification_preferences.${context}.${slug} must be an object of channels.`;
      for (const [channel, on] of Object.entries(channels)) {
        if (!(CHANNELS as readonly string[]).includes(channel)) return `Unknown channel '${channel}' (${CHANNELS.join(', ')}).`;
        if (typeof on !== 'boolean') return `notification_preferences.${context}.${slug}.${channel} must be true or false.`;
        if (channel === 'email' && !on && t.mandatory_email) return `Email for '${t.key}' cannot be turned off.`;
      }
    }
  }
  return undefined;
}

/** Replaces the account's preferences (checked with `prefsProblem`): what it leaves out is back to its default. */
export function replacePreferences(data: StoreData, accountId: number, given: NotificationPrefs): NotificationPrefs {
  store(data, accountId, given);
  return preferencesOf(data, accountId);
}

/** Turns the webhooks channel on for these type keys; answers the keys it was off for. */
export function enableWebhookChannel(data: StoreData, accountId: number, keys: readonly string[]): string[] {
  const prefs = preferencesOf(data, accountId);
  const enabled: string[] = [];
  for (const key of keys) {
    const [context = '', slug = ''] = key.split(':');
    const channels = prefs[context]?.[slug];
    if (!channels || channels.webhooks) continue;
    channels.webhooks = true;
    enabled.push(key);
  }
  if (enabled.length) store(data, accountId, prefs);
  return enabled;
}

/** The notifications of one simulator: it raises events and hands them to the sender. */
export class Notifications {
  /** Accounts watched for low credit -> whether their credit was below the threshold when last looked at. */
  private readonly lowCredit = new Map<number, boolean>();

  constructor(
    private readonly data: () => StoreData,
    readonly sender: WebhookSender,
    private readonly report: (line: string) => void,
  ) {}

  /** Sends a `key` event to the account's webhooks on it, when its preference lets webhooks have it. Never throws. */
  notify(accountId: number, key: string, subject: string, message: string, at: Ms): void {
    try {
      const data = this.data();
      const [context = '', slug = ''] = key.split(':');
      if (!preferencesOf(data, accountId)[context]?.[slug]?.webhooks) return;
      const event = { event_id: randomUUID(), user_id: accountId, notif_type: slug, subject, message, timestamp: Math.floor(at / 1000) };
      for (const hook of data.webhooks ?? [])
        if (hook.accountId === accountId && hook.eventTypes.includes(key)) void this.sender.send(hook, event, { retry: true });
    } catch (error) {
      this.report(`notifications: ${key} for account ${accountId} not sent: ${String(error)}`);
    }
  }

  /** One `webhook_test` event to one webhook, sent once; resolves with how it went. */
  test(hook: WebhookRecord, at: Ms): Promise<DeliveryOutcome> {
    const event = {
      event_id: randomUUID(),
      user_id: hook.accountId,
      notif_type: TEST_EVENT,
      subject: 'Test notification',
      message: `A test delivery to webhook ${hook.id}${hook.name ? ` (${hook.name})` : ''}.`,
      timestamp: Math.floor(at / 1000),
    };
    return this.sender.send(hook, event, { retry: false });
  }

  outbid(inst: InstanceState, minBid: number, at: Ms): void {
    this.notify(
      inst.accountId,
      'client:outbid',
      `Instance ${inst.id} was outbid`,
      `Another renter bid more for the GPU of your interruptible instance ${inst.id}, so it stopped. The machine's minimum bid is now $${minBid}/hour; raise your bid to at least that to run it again.`,
      at,
    );
  }

  instanceStopped(inst: InstanceState, reason: string, at: Ms): void {
    this.notify(inst.accountId, 'client:instance_stopped', `Instance ${inst.id} stopped`, `Instance ${inst.id} stopped: ${reason}.`, at);
  }

  /** Starts watching the account's credit (a webhook subscribed to low credit), from where it stands now. */
  watchCredit(accountId: number, now: Ms): void {
    if (!this.lowCredit.has(accountId)) this.lowCredit.set(accountId, balance(this.data(), accountId, now) < LOW_CREDIT_THRESHOLD);
  }

  /** Tells each watched account whose credit has just fallen below the threshold. Run on every tick. */
  checkCredit(now: Ms): void {
    const data = this.data();
    const watched = new Set((data.webhooks ?? []).filter((h) => h.eventTypes.includes('client:low_credit')).map((h) => h.accountId));
    for (const id of this.lowCredit.keys()) if (!watched.has(id)) this.lowCredit.delete(id);
    for (const accountId of watched) {
      const credit = balance(data, accountId, now);
      const low = credit < LOW_CREDIT_THRESHOLD;
      const was = this.lowCredit.get(accountId);
      this.lowCredit.set(accountId, low);
      if (!low || was !== false) continue;
      this.notify(
        accountId,
        'client:low_credit',
        'Your credit is low',
        `Your credit is $${credit.toFixed(2)}, below $${LOW_CREDIT_THRESHOLD.toFixed(2)}. Running instances stop when it runs out; add credit to keep them running.`,
        now,
      );
    }
  }
}
