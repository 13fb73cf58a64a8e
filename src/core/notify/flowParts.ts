/**
 * What Set Up and Manage share: what they are handed, how a webhook and its events are named, how
 * a new signing secret is shown once, and what a refusal or a webhook removed meanwhile reads as.
 * The secret is shown only as the detail of the one dialog that offers Copy; it never reaches a
 * notice, a log line or an error.
 */
import { ApiError } from '../api/errors';
import type { NotificationType, SigningSecret, Webhook, WebhooksApi } from '../api/webhooks';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import { failure, info, type Notice } from '../notice';
import type { Ask } from '../prompts';
import { visibleText } from '../text';
import type { NotifyScope, NotifyVault } from './vault';

/** The name Set Up gives its webhook (the product's name, on the service: not translated); Manage shows any name. */
export const WEBHOOK_NAME: WebhookName = 'GPU Rental';
type WebhookName = 'GPU Rental';

/** How many webhooks the service allows an account. */
export const MAX_WEBHOOKS = 4;

/** A pick of several items, the `picked` ones ticked; resolves the values chosen, undefined when dismissed. */
export interface ManyPrompt<T> {
  title: string;
  placeholder?: string;
  items: ReadonlyArray<{ label: string; description?: string; detail?: string; picked?: boolean; value: T }>;
}

export interface NotifyDeps {
  readonly ask: Ask;
  readonly webhooks: Pick<WebhooksApi, 'list' | 'create' | 'update' | 'delete' | 'rotateSecret' | 'test' | 'types'>;
  readonly vault: Pick<NotifyVault, 'all' | 'secretOf' | 'keep' | 'forget'>;
  /** The account the secrets are kept for (the session's service and profile). */
  readonly scope: NotifyScope;
  readonly pickMany: <T>(prompt: ManyPrompt<T>) => Promise<T[] | undefined>;
  /** Puts text on the clipboard: a signing secret, only when the user asks. */
  readonly copy: (text: string) => Promise<void>;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
}

/** A flow's end: what it resolves with (for automation), and what the user is told. */
export interface NotifyOutcome<T> {
  value: T;
  notice?: Notice;
}

/** A webhook as a list names it: its name, else its id. */
export function webhookName(w: Pick<Webhook, 'id' | 'name'>): string {
  return w.name ? visibleText(w.name, 60) : l10n.t('webhook {0}', w.id);
}

/** The events a renter can subscribe to: the `client:` types, in the service's order. */
export function clientTypes(types: readonly NotificationType[]): NotificationType[] {
  return types.filter((t) => t.key.startsWith('client:') && (t.context === undefined || t.context === null || t.context === 'client'));
}

/** A type as a pick shows it: its display name, else its short name, else its key. */
export function typeLabel(t: NotificationType): string {
  return visibleText(t.display_name || t.slug || t.key, 80);
}

/**
 * Whether Set Up ticks this type: an outbid, low credit, an instance that stopped or went offline,
 * a contract about to expire (whichever of them the service lists).
 */
export function preselected(t: NotificationType): boolean {
  if (t.key === 'client:outbid' || t.key === 'client:low_credit') return true;
  const name = `${t.key} ${t.slug ?? ''}`.toLowerCase();
  return /instance.*(stop|offline)|(stop|offline).*instance|machine_offline/.test(name) || /expir/.test(name);
}

/** The events of a webhook as a line: the types' names where known, else the keys. */
export function eventsText(events: readonly string[], types: readonly NotificationType[] = []): string {
  if (events.length === 0) return l10n.t('no events');
  const named = events.map((e) => {
    const t = types.find((x) => x.key === e);
    return t ? typeLabel(t) : visibleText(e, 60);
  });
  return named.join(', ');
}

/**
 * Keeps a new secret in SecretStorage, then shows it once with Copy Secret. A failed keep is
 * logged (without the secret) and said in the dialog, so the user copies it now.
 */
export async function keepAndReveal(
  d: NotifyDeps,
  webhook: { id: number; url: string; name: string },
  secret: SigningSecret,
  createdHere: boolean,
): Promise<void> {
  let kept = true;
  try {
    await d.vault.keep(d.scope, { id: webhook.id, url: webhook.url, secret: secret.reveal(), createdHere });
  } catch (e) {
    kept = false;
    d.logger.warn(
      `The signing secret of webhook ${webhook.id} could not be kept in secret storage: ${e instanceof Error ? e.name : 'error'}.`,
    );
  }
  const copy = l10n.t('Copy Secret');
  const message = kept
    ? l10n.t(
        'GPU Rental: the signing secret of "{0}". Copy it now for your receiver, which checks the X-Vast-Signature-256 header with it: it is not shown again (Copy Signing Secret in Manage copies it from VS Code\'s secret storage).',
        webhook.name,
      )
    : l10n.t(
        'GPU Rental: the signing secret of "{0}". Copy it now for your receiver, which checks the X-Vast-Signature-256 header with it: VS Code could not keep it, and it is not shown again.',
        webhook.name,
      );
  if ((await d.ask.choose(message, secret.reveal(), [copy])) === copy) await d.copy(secret.reveal());
}

/** Whether the service says the webhook is not there (removed meanwhile, here or elsewhere). */
export function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.kind === 'not_found';
}

/** "Already removed": the webhook is forgotten here too, and that is not an error. */
export async function alreadyRemoved(d: NotifyDeps, w: Pick<Webhook, 'id' | 'name'>): Promise<NotifyOutcome<boolean>> {
  await d.vault.forget(d.scope, w.id);
  return {
    value: false,
    notice: info(l10n.t('GPU Rental: "{0}" was already removed from the account (elsewhere, or a moment ago).', webhookName(w))),
  };
}

/**
 * A refusal of the service (400) as a notice with the service's own message and what to do; any
 * other error is thrown on, to the one error guard.
 */
export function refused(error: unknown, what: string, then: string): NotifyOutcome<undefined> {
  if (!(error instanceof ApiError) || error.kind !== 'bad_request') throw error;
  const said = error.serverMessage ?? error.code;
  return {
    value: undefined,
    notice: failure(
      said
        ? l10n.t('GPU Rental: the service refused to {0}: "{1}". {2}', what, visibleText(said, 200), then)
        : l10n.t('GPU Rental: the service refused to {0}. {1}', what, then),
    ),
  };
}
