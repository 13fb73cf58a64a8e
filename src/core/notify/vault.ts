/**
 * Where the signing secrets of the webhooks set up here are kept: in SecretStorage only, one
 * entry per service and profile (the API key's slot, see keySlot), so two profiles never share
 * one and one account's secret never shows in another's. Each webhook's URL is kept beside its
 * secret: a job started from this window sends its end to the newest one (its URL only, never the
 * secret). Nothing of it goes to a setting, a log line or an error.
 */
import { keySlot } from '../session/profiles';
import type { Session } from '../session/session';
import { checkNotifyUrl } from './url';

/** The part of VS Code's SecretStorage the vault uses (a Map-backed fake in tests). */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** Which account's entry: the service's base URL (normalized) and the GPU Rental profile. */
export interface NotifyScope {
  readonly baseUrl: string;
  readonly profileId: string;
}

/**
 * One webhook whose secret is kept here: its id on the service, the URL it delivers to, its
 * secret, when it was first kept, and whether Set Up created it (a webhook made elsewhere whose
 * secret was rotated here is kept too, but never gets a job's end).
 */
export interface KeptWebhook {
  readonly id: number;
  readonly url: string;
  readonly secret: string;
  readonly keptAtMs: number;
  readonly createdHere: boolean;
}

const PREFIX = 'gpuRental.notify:';

/** The session's scope, or undefined while its base URL is unusable. */
export function scopeOf(session: Pick<Session, 'normalizedBaseUrl' | 'profileId'>): NotifyScope | undefined {
  const baseUrl = session.normalizedBaseUrl;
  return baseUrl === undefined ? undefined : { baseUrl, profileId: session.profileId };
}

/** The entries of a stored document; anything unreadable in it is left out (never thrown). */
function readEntries(text: string | undefined): KeptWebhook[] {
  if (!text) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const list = typeof doc === 'object' && doc !== null ? (doc as { webhooks?: unknown }).webhooks : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((e: unknown): KeptWebhook[] => {
    if (typeof e !== 'object' || e === null) return [];
    const { id, url, secret, keptAtMs, createdHere } = e as Record<string, unknown>;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || typeof url !== 'string' || typeof secret !== 'string' || secret === '')
      return [];
    return [{ id, url, secret, keptAtMs: typeof keptAtMs === 'number' ? keptAtMs : 0, createdHere: createdHere === true }];
  });
}

export class NotifyVault {
  /** Writes of this window, one at a time: each reads what the one before wrote. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: SecretStore,
    private readonly now: () => number = Date.now,
  ) {}

  private key(scope: NotifyScope): string {
    return PREFIX + keySlot(scope.profileId, scope.baseUrl);
  }

  /** Every webhook set up here for the scope's account, the newest first. */
  async all(scope: NotifyScope): Promise<KeptWebhook[]> {
    const entries = readEntries(await this.store.get(this.key(scope)));
    return entries.sort((a, b) => b.keptAtMs - a.keptAtMs);
  }

  /** The signing secret of a webhook set up here, or undefined (set up elsewhere, or its secret never came back). */
  async secretOf(scope: NotifyScope, id: number): Promise<string | undefined> {
    return (await this.all(scope)).find((e) => e.id === id)?.secret;
  }

  /**
   * Keeps a webhook's URL and secret; a webhook kept already gets the new ones and keeps when it
   * was first kept and whether Set Up created it.
   */
  keep(scope: NotifyScope, webhook: { id: number; url: string; secret: string; createdHere: boolean }): Promise<void> {
    return this.change(scope, (entries) => {
      const before = entries.find((e) => e.id === webhook.id);
      const kept: KeptWebhook = {
        ...webhook,
        keptAtMs: before?.keptAtMs ?? this.now(),
        createdHere: before?.createdHere === true || webhook.createdHere,
      };
      return [kept, ...entries.filter((e) => e.id !== webhook.id)];
    });
  }

  /** Forgets a webhook (removed, here or elsewhere). */
  forget(scope: NotifyScope, id: number): Promise<void> {
    return this.change(scope, (entries) => entries.filter((e) => e.id !== id));
  }

  /**
   * The URL a job's end is sent to: the newest webhook Set Up created for the account, when its
   * URL still passes the checks; undefined otherwise, and when the store cannot be read (a job
   * never fails for it).
   */
  async jobEndUrl(scope: NotifyScope | undefined): Promise<string | undefined> {
    if (!scope) return undefined;
    try {
      const newest = (await this.all(scope)).find((e) => e.createdHere);
      return newest && checkNotifyUrl(newest.url, scope.baseUrl) === undefined ? newest.url : undefined;
    } catch {
      return undefined;
    }
  }

  private change(scope: NotifyScope, edit: (entries: KeptWebhook[]) => KeptWebhook[]): Promise<void> {
    const run = async () => {
      const key = this.key(scope);
      const next = edit(readEntries(await this.store.get(key)));
      if (next.length === 0) await this.store.delete(key);
      else await this.store.store(key, JSON.stringify({ webhooks: next }));
    };
    const done = this.queue.then(run, run);
    this.queue = done.catch(() => undefined);
    return done;
  }
}
