/**
 * Manage Notifications Away from VS Code: the account's webhooks (their URLs and events), and for
 * one of them Send Test Delivery, Rotate Secret, Copy Signing Secret, Change Events or Remove. A
 * webhook removed meanwhile (404) reads as "already removed", never as an error.
 */
import { ApiError } from '../api/errors';
import type { Webhook } from '../api/webhooks';
import { l10n } from '../l10n';
import { failure, info } from '../notice';
import { visibleText } from '../text';
import {
  alreadyRemoved,
  clientTypes,
  eventsText,
  isGone,
  keepAndReveal,
  refused,
  typeLabel,
  webhookName,
  type NotifyDeps,
  type NotifyOutcome,
} from './flowParts';

/** What can be done to one webhook. */
export type ManageAction = 'test' | 'rotate' | 'copy' | 'events' | 'remove';

/** What automation (and tests) may pass instead of picking: the webhook's id, and the action. */
export interface ManageGiven {
  id?: number;
  action?: ManageAction;
}

/** Picks one of the account's webhooks (those whose secret is kept here marked); undefined when dismissed. */
async function pickWebhook(d: NotifyDeps, hooks: readonly Webhook[]): Promise<Webhook | undefined> {
  const kept = new Set((await d.vault.all(d.scope)).map((k) => k.id));
  return d.ask.pick({
    title: l10n.t('GPU Rental: Manage Notifications Away from VS Code'),
    placeholder: l10n.t('Pick a webhook'),
    items: hooks.map((w) => ({
      label: webhookName(w),
      description: visibleText(w.webhook_url ?? '', 120),
      detail: kept.has(w.id) ? l10n.t('{0} · its signing secret is kept in VS Code', eventsText(w.event_types)) : eventsText(w.event_types),
      value: w,
    })),
  });
}

function pickAction(d: NotifyDeps, w: Webhook): Promise<ManageAction | undefined> {
  return d.ask.pick<ManageAction>({
    title: l10n.t('GPU Rental: {0}', webhookName(w)),
    placeholder: visibleText(w.webhook_url ?? '', 120),
    items: [
      { label: l10n.t('Send Test Delivery'), detail: l10n.t('The service sends one test notification to the URL now'), value: 'test' },
      { label: l10n.t('Change Events'), detail: eventsText(w.event_types), value: 'events' },
      { label: l10n.t('Copy Signing Secret'), detail: l10n.t('For a receiver that checks X-Vast-Signature-256'), value: 'copy' },
      { label: l10n.t('Rotate Secret'), detail: l10n.t('A new signing secret replaces the old one at once'), value: 'rotate' },
      { label: l10n.t('Remove'), detail: l10n.t('The service stops sending to this URL'), value: 'remove' },
    ],
  });
}

async function sendTest(d: NotifyDeps, w: Webhook): Promise<NotifyOutcome<boolean>> {
  let said: string | undefined;
  try {
    said = await d.webhooks.test(w.id);
  } catch (e) {
    if (isGone(e)) return alreadyRemoved(d, w);
    const out = refused(
      e,
      l10n.t('send a test delivery to "{0}"', webhookName(w)),
      l10n.t('Check that the URL is a public https:// address that answers a POST.'),
    );
    return { value: false, notice: out.notice };
  }
  const text = said
    ? l10n.t('GPU Rental: the service sent a test delivery to "{0}" and answered: "{1}".', webhookName(w), visibleText(said, 200))
    : l10n.t('GPU Rental: the service sent a test delivery to "{0}" (it answered without a message).', webhookName(w));
  return { value: true, notice: info(text) };
}

/** Rotates the secret (the caller confirmed); the new one is kept and shown once. */
async function rotate(d: NotifyDeps, w: Webhook): Promise<NotifyOutcome<boolean>> {
  let answer;
  try {
    answer = await d.webhooks.rotateSecret(w.id);
  } catch (e) {
    if (isGone(e)) return alreadyRemoved(d, w);
    if (e instanceof ApiError && e.outcomeUnknown)
      return {
        value: false,
        notice: failure(
          l10n.t('GPU Rental: no answer came back, so the secret of "{0}" may have changed. Rotate it again to get one.', webhookName(w)),
        ),
      };
    return { value: false, notice: refused(e, l10n.t('rotate the secret'), l10n.t('Try again later.')).notice };
  }
  if (!answer.secret)
    return { value: false, notice: failure(l10n.t('GPU Rental: the service sent no new secret for "{0}". Try again.', webhookName(w))) };
  const url = answer.webhook.webhook_url ?? w.webhook_url ?? '';
  d.logger.info(`Rotated the signing secret of notification webhook ${w.id}.`);
  await keepAndReveal(d, { id: w.id, url, name: webhookName(w) }, answer.secret, false);
  return { value: true, notice: info(l10n.t('GPU Rental: "{0}" signs with its new secret from now on.', webhookName(w))) };
}

async function confirmedRotate(d: NotifyDeps, w: Webhook): Promise<NotifyOutcome<boolean>> {
  const ok = await d.ask.confirm(
    l10n.t('Rotate the signing secret of "{0}"?', webhookName(w)),
    l10n.t(
      'A new secret replaces the old one at once: a receiver that checks X-Vast-Signature-256 with the old one refuses deliveries until it has the new one. The new secret is shown once.',
    ),
    l10n.t('Rotate Secret'),
  );
  return ok ? rotate(d, w) : { value: false };
}

async function copySecret(d: NotifyDeps, w: Webhook): Promise<NotifyOutcome<boolean>> {
  const secret = await d.vault.secretOf(d.scope, w.id);
  if (secret !== undefined) {
    await d.copy(secret);
    return { value: true, notice: info(l10n.t('GPU Rental: copied the signing secret of "{0}".', webhookName(w))) };
  }
  const rotateLabel = l10n.t('Rotate Secret');
  const choice = await d.ask.choose(
    l10n.t('GPU Rental: the signing secret of "{0}" is not kept in VS Code.', webhookName(w)),
    l10n.t(
      'It was created elsewhere (the console, another machine or another profile): the service shows a secret only when it is made or rotated. Rotate it to get a new one here; a receiver that uses the old one then needs the new one.',
    ),
    [rotateLabel],
  );
  return choice === rotateLabel ? rotate(d, w) : { value: false };
}

async function changeEvents(d: NotifyDeps, w: Webhook): Promise<NotifyOutcome<boolean>> {
  const types = clientTypes(await d.webhooks.types());
  // Events the webhook has that are not a renter's (set elsewhere) stay offered, ticked.
  const others = w.event_types.filter((e) => !types.some((t) => t.key === e));
  const picked = await d.pickMany({
    title: l10n.t('GPU Rental: events of "{0}"', webhookName(w)),
    placeholder: l10n.t('Pick what the service tells you about'),
    items: [
      ...types.map((t) => ({ label: typeLabel(t), description: t.key, picked: w.event_types.includes(t.key), value: t.key })),
      ...others.map((e) => ({ label: visibleText(e, 80), picked: true, value: e })),
    ],
  });
  if (picked === undefined) return { value: false };
  if (picked.length === 0)
    return { value: false, notice: failure(l10n.t('GPU Rental: a webhook needs at least one event. To stop it, use Remove.')) };
  try {
    await d.webhooks.update(w.id, { event_types: picked });
  } catch (e) {
    if (isGone(e)) return alreadyRemoved(d, w);
    return { value: false, notice: refused(e, l10n.t('change the events'), l10n.t('Pick other events and try again.')).notice };
  }
  d.logger.info(`Changed the events of notification webhook ${w.id} (${picked.join(', ')}).`);
  return { value: true, notice: info(l10n.t('GPU Rental: "{0}" now tells you about: {1}.', webhookName(w), eventsText(picked, types))) };
}

async function remove(d: NotifyDeps, w: Webhook): Promise<NotifyOutcome<boolean>> {
  const ok = await d.ask.confirm(
    l10n.t('Remove the webhook "{0}"?', webhookName(w)),
    l10n.t(
      'The service stops sending notifications to {0}, and jobs started from VS Code stop sending their end there. This cannot be undone.',
      visibleText(w.webhook_url ?? '', 120),
    ),
    l10n.t('Remove Webhook'),
  );
  if (!ok) return { value: false };
  try {
    await d.webhooks.delete(w.id);
  } catch (e) {
    if (isGone(e)) return alreadyRemoved(d, w);
    throw e;
  }
  await d.vault.forget(d.scope, w.id);
  d.logger.info(`Removed notification webhook ${w.id}.`);
  return { value: true, notice: info(l10n.t('GPU Rental: removed "{0}".', webhookName(w))) };
}

const ACTIONS: Record<ManageAction, (d: NotifyDeps, w: Webhook) => Promise<NotifyOutcome<boolean>>> = {
  test: sendTest,
  rotate: confirmedRotate,
  copy: copySecret,
  events: changeEvents,
  remove,
};

/** Lists the account's webhooks, picks one (unless given) and does what is picked; resolves true when something was done. */
export async function manageNotify(d: NotifyDeps, given: ManageGiven = {}): Promise<NotifyOutcome<boolean>> {
  const hooks = await d.webhooks.list();
  if (given.id !== undefined && !hooks.some((w) => w.id === given.id)) return alreadyRemoved(d, { id: given.id, name: null });
  if (hooks.length === 0)
    return {
      value: false,
      notice: info(l10n.t('GPU Rental: the account has no webhooks. Set one up with "Notify Me Away from VS Code…".')),
    };
  const w = given.id !== undefined ? hooks.find((h) => h.id === given.id) : await pickWebhook(d, hooks);
  if (!w) return { value: false };
  const action = given.action ?? (await pickAction(d, w));
  if (!action) return { value: false };
  return ACTIONS[action](d, w);
}
