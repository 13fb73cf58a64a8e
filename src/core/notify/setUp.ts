/**
 * Notify Me Away from VS Code: registers one webhook named "GPU Rental" that sends the account's
 * notifications (outbid, low credit, …) to a URL the user owns, such as an ntfy topic that pushes
 * to a phone. The URL is checked before any request; the account's limit of four webhooks is read
 * before the create; the signing secret that comes back is kept in SecretStorage only and shown
 * once, with Copy.
 */
import { ApiError } from '../api/errors';
import type { NotificationType } from '../api/webhooks';
import { l10n } from '../l10n';
import { failure, info } from '../notice';
import {
  clientTypes,
  keepAndReveal,
  MAX_WEBHOOKS,
  preselected,
  refused,
  typeLabel,
  WEBHOOK_NAME,
  webhookName,
  type NotifyDeps,
  type NotifyOutcome,
} from './flowParts';
import { manageNotify } from './manage';
import { checkNotifyUrl, NTFY_EXAMPLE, urlHost } from './url';

/** What automation (and tests) may pass instead of answering: what is given is not asked. */
export interface SetUpGiven {
  url?: string;
  /** Notification type keys, e.g. `client:outbid`. */
  events?: readonly string[];
}

const TITLE = () => l10n.t('GPU Rental: Notify Me Away from VS Code');

/** Asks for the URL (checked as it is typed); undefined when dismissed. */
function askUrl(d: NotifyDeps): Promise<string | undefined> {
  return d.ask.input({
    title: l10n.t('{0} (1/2): where to?', TITLE()),
    prompt: l10n.t('An https:// URL you own; the service POSTs each notification to it. An ntfy topic URL works: your phone gets a push.'),
    placeholder: l10n.t('{0} (an ntfy topic: a push on your phone)', NTFY_EXAMPLE),
    validate: (text) => checkNotifyUrl(text, d.scope.baseUrl),
  });
}

/** The events, asked (the usual ones ticked) unless given; undefined when dismissed, or a notice for given ones the service does not list. */
async function chooseEvents(d: NotifyDeps, types: NotificationType[], given: readonly string[] | undefined): Promise<string[] | string> {
  if (given) {
    const unknown = given.filter((e) => !types.some((t) => t.key === e));
    if (unknown.length)
      return l10n.t(
        'GPU Rental: the service lists no notification type {0}. Use one of: {1}.',
        unknown.join(', '),
        types.map((t) => t.key).join(', '),
      );
    return [...given];
  }
  const picked = await d.pickMany({
    title: l10n.t('{0} (2/2): which events?', TITLE()),
    placeholder: l10n.t('Pick what the service tells you about; the usual ones are ticked'),
    items: types.map((t) => ({ label: typeLabel(t), description: t.key, picked: preselected(t), value: t.key })),
  });
  return picked ?? [];
}

/** Offers Manage where the account cannot take this webhook as it is; resolves Manage's outcome, or nothing. */
async function offerManage(d: NotifyDeps, message: string, detail: string): Promise<NotifyOutcome<undefined>> {
  const manage = l10n.t('Manage Webhooks');
  if ((await d.ask.choose(message, detail, [manage])) !== manage) return { value: undefined };
  const managed = await manageNotify(d);
  return { value: undefined, notice: managed.notice };
}

/**
 * Registers the webhook. Resolves its id and URL, or undefined when the user stopped or the
 * account or the service refused (the notice says why and what to do).
 */
export async function setUpNotify(d: NotifyDeps, given: SetUpGiven = {}): Promise<NotifyOutcome<{ id: number; url: string } | undefined>> {
  const typed = given.url ?? (await askUrl(d));
  if (typed === undefined) return { value: undefined };
  const bad = checkNotifyUrl(typed, d.scope.baseUrl);
  if (bad) return { value: undefined, notice: failure(l10n.t('GPU Rental: not set up. {0}', bad)) };
  const url = typed.trim();

  const existing = await d.webhooks.list();
  if (existing.length >= MAX_WEBHOOKS)
    return offerManage(
      d,
      l10n.t('GPU Rental: the account has {0} webhooks, the most the service allows.', existing.length),
      l10n.t('Remove one you no longer need in Manage, then set this one up again.'),
    );
  const same = existing.find((w) => w.webhook_url === url);
  if (same)
    return offerManage(
      d,
      l10n.t('GPU Rental: "{0}" sends to this URL already.', webhookName(same)),
      l10n.t('Change its events, send a test or copy its secret in Manage.'),
    );

  const types = clientTypes(await d.webhooks.types());
  if (types.length === 0)
    return {
      value: undefined,
      notice: failure(l10n.t('GPU Rental: the service lists no notification types for renters, so there is nothing to subscribe to.')),
    };
  const events = await chooseEvents(d, types, given.events);
  if (typeof events === 'string') return { value: undefined, notice: failure(events) };
  if (events.length === 0) return { value: undefined };

  let created;
  try {
    created = await d.webhooks.create({ name: WEBHOOK_NAME, webhook_url: url, event_types: events });
  } catch (e) {
    if (e instanceof ApiError && e.outcomeUnknown)
      return {
        value: undefined,
        notice: failure(
          l10n.t(
            'GPU Rental: no answer came back, so the webhook may or may not have been made. Open Manage Notifications Away from VS Code: if it is there, Rotate Secret gives you its signing secret.',
          ),
        ),
      };
    return refused(e, l10n.t('create the webhook'), l10n.t('Check the URL and the events, then try again.'));
  }
  const { webhook, secret } = created;
  d.logger.info(`Created notification webhook ${webhook.id} for ${urlHost(url)} (${events.join(', ')}).`);
  const where = { id: webhook.id, url, name: webhookName({ id: webhook.id, name: webhook.name ?? WEBHOOK_NAME }) };
  if (!secret)
    return {
      value: { id: webhook.id, url },
      notice: failure(
        l10n.t(
          'GPU Rental: the webhook was made, but the service sent no signing secret with it. Use Rotate Secret in Manage Notifications Away from VS Code to get one.',
        ),
      ),
    };
  await keepAndReveal(d, where, secret, true);
  return {
    value: { id: webhook.id, url },
    notice: info(
      l10n.t(
        'GPU Rental: notifications go to {0} now. Jobs you start from VS Code send a line there when they end, too (unsigned text). Manage Notifications Away from VS Code sends a test.',
        url,
      ),
    ),
  };
}
