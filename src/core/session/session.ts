import { createHash } from 'node:crypto';
import type { User } from '../api/account';
import type { GpuRentalClient } from '../api/client';
import { ApiError } from '../api/errors';
import { checkBaseUrl } from '../api/transport';
import { Emitter, type Disposable, type Event } from '../events';
import type { Logger } from '../log';
import { DEFAULT_PROFILE_ID, keySlot } from './profiles';
import { l10n } from '../l10n';

/**
 * Where the API keys live. Keys are stored per slot, a base URL plus the profile (see keySlot),
 * so a key set for one service is never sent to another when the base URL setting changes, and
 * two accounts on one service keep their own keys. The extension backs this with SecretStorage.
 */
export interface KeyStore {
  get(slot: string): Promise<string | undefined>;
  store(slot: string, key: string): Promise<void>;
  delete(slot: string): Promise<void>;
  /** Fires with the slot whose key changed, also when another window changed it. */
  readonly onDidChange: Event<string>;
}

export type SessionState =
  | { kind: 'noKey' }
  | { kind: 'checking' }
  /** `user` is undefined when the key is valid but may not read the account (a scoped key). */
  | { kind: 'ready'; user: User | undefined }
  | { kind: 'rejected'; error: ApiError }
  | { kind: 'unreachable'; error: ApiError }
  | { kind: 'badUrl'; message: string };

export type SessionStateKind = SessionState['kind'];

export type ClientFactory = (baseUrl: string, getApiKey: () => string | undefined) => GpuRentalClient;

export interface SessionOptions {
  keys: KeyStore;
  createClient: ClientFactory;
  logger: Logger;
  /** The profile whose key is used; the default profile when not given. */
  profileId?: string;
  /**
   * Why the key, profile or base URL must not change now (a rent is unsettled), or undefined. A
   * change then is refused with AccountFrozen, naming the reason.
   */
  frozen?: () => string | undefined;
}

/** A short one-way fingerprint of a secret, to recognise a key without keeping it. */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(secret.trim()).digest('hex').slice(0, 32);
}

/** A key, profile or base URL change refused while a rent is unsettled. */
export class AccountFrozen extends Error {
  constructor(reason: string) {
    super(l10n.t('Not now: {0}', reason));
    this.name = 'AccountFrozen';
  }
}

/**
 * The signed-in state of one window: base URL, key, the client that uses them, and whether the
 * service accepts the key. Views and commands read `state` and `client`; nothing else holds a key.
 */
export class Session implements Disposable {
  private readonly changed = new Emitter<SessionState>();
  readonly onDidChangeState = this.changed.event;

  private current: SessionState = { kind: 'checking' };
  private key: string | undefined;
  private baseUrlValue: string;
  private profileValue: string;
  /** The base URL as the client will use it; undefined when the setting is unusable. */
  private normalized: string | undefined;
  /** Made on first use, so that nothing about the client is loaded before a request is made. */
  private clientValue: GpuRentalClient | undefined;
  /** Bumped by every check so that an older, slower answer never overwrites a newer one. */
  private generation = 0;
  private readonly subscription: Disposable;

  constructor(
    baseUrl: string,
    private readonly options: SessionOptions,
  ) {
    this.baseUrlValue = baseUrl;
    this.profileValue = options.profileId ?? DEFAULT_PROFILE_ID;
    this.normalized = this.checkUrl(baseUrl);
    this.subscription = options.keys.onDidChange((changedSlot) => {
      // While this window writes the key itself, a late event of an earlier write would read the
      // old value and switch back to it for a moment; this window already knows the new key.
      if (changedSlot === this.slot() && this.writing === 0) void this.reloadKey();
    });
  }

  get state(): SessionState {
    return this.current;
  }

  get baseUrl(): string {
    return this.baseUrlValue;
  }

  /** The profile signed in (or not) in this window. */
  get profileId(): string {
    return this.profileValue;
  }

  get hasKey(): boolean {
    return this.key !== undefined;
  }

  /** A one-way fingerprint of the key in use, to recognise it in the account's key list. */
  get keyFingerprint(): string | undefined {
    return this.key === undefined ? undefined : secretFingerprint(this.key);
  }

  /** The client for the current base URL; throws a readable error when that URL is unusable. */
  get client(): GpuRentalClient {
    if (this.normalized === undefined)
      throw new Error(this.current.kind === 'badUrl' ? this.current.message : l10n.t('The base URL is not usable.'));
    if (!this.clientValue) {
      // The client's key is the key of the base URL and profile it was made for: once the window
      // switches, a request still made through it gets no key, so one service's key never goes to
      // another.
      const url = this.normalized;
      const profile = this.profileValue;
      this.clientValue = this.options.createClient(url, () => {
        if (this.normalized !== url || this.profileValue !== profile)
          throw new Error(
            l10n.t(
              'Nothing was sent: GPU Rental switched from {0} to another service or profile while this was being done. Try again.',
              url,
            ),
          );
        return this.key;
      });
    }
    return this.clientValue;
  }

  /** The base URL in the form keys are stored under (no trailing slash). */
  get normalizedBaseUrl(): string | undefined {
    return this.normalized;
  }

  /**
   * The base URL and key as they are now, bound together: a rent keeps them to the end, whatever
   * changes meanwhile, so one service's key never goes to another and the lookup after a lost
   * answer reads the account the rent was sent to. Undefined without a usable URL or key.
   */
  bound(): { baseUrl: string; profileId: string; key: string; account?: string } | undefined {
    if (this.normalized === undefined || this.key === undefined) return undefined;
    const user = this.current.kind === 'ready' ? this.current.user : undefined;
    return { baseUrl: this.normalized, profileId: this.profileValue, key: this.key, account: user?.email ?? undefined };
  }

  /** Throws AccountFrozen while the account must stay as it is. */
  assertNotFrozen(): void {
    const reason = this.options.frozen?.();
    if (reason) throw new AccountFrozen(reason);
  }

  /** Reads the stored key and checks it. Cheap to call again. */
  async start(): Promise<void> {
    await this.reloadKey(true);
  }

  async setBaseUrl(baseUrl: string): Promise<void> {
    if (baseUrl === this.baseUrlValue) return;
    this.assertNotFrozen();
    await this.switchTo(this.profileValue, baseUrl);
  }

  /** Uses another profile's base URL and key. Another account: the state passes through checking. */
  async setProfile(profileId: string, baseUrl: string): Promise<void> {
    if (profileId === this.profileValue && baseUrl === this.baseUrlValue) return;
    this.assertNotFrozen();
    await this.switchTo(profileId, baseUrl);
  }

  private async switchTo(profileId: string, baseUrl: string): Promise<void> {
    this.generation++;
    this.profileValue = profileId;
    this.baseUrlValue = baseUrl;
    this.clientValue = undefined;
    this.key = undefined;
    // Listeners must see the old account end before the new one begins (the instance list, the
    // SSH entries of instances that vanish from it), even when both are signed in.
    this.normalized = this.checkUrl(baseUrl);
    if (this.normalized !== undefined) this.setState({ kind: 'checking' });
    await this.reloadKey(true);
  }

  /**
   * Asks the service whether `key` works, without storing it. Resolves with the account, or with
   * undefined when the key is valid but may not read the account; rejects with an ApiError.
   */
  async verifyKey(key: string): Promise<User | undefined> {
    const client = this.options.createClient(this.client.baseUrl, () => key);
    try {
      return await client.account.currentUser();
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'forbidden') return undefined;
      throw error;
    }
  }

  /** Verifies the key, then stores it. A key the service refuses is never stored. */
  async signIn(key: string): Promise<User | undefined> {
    const trimmed = key.trim();
    this.assertNotFrozen();
    const user = await this.verifyKey(trimmed);
    this.assertNotFrozen();
    this.generation++;
    this.key = trimmed;
    await this.writingKey(() => this.options.keys.store(this.slot(), trimmed));
    this.setState({ kind: 'ready', user });
    this.options.logger.info(`Signed in to ${this.baseUrlValue}${user?.email ? ` as ${user.email}` : ''}.`);
    return user;
  }

  async signOut(): Promise<void> {
    this.assertNotFrozen();
    this.generation++;
    this.key = undefined;
    await this.writingKey(() => this.options.keys.delete(this.slot()));
    this.setState({ kind: 'noKey' });
    this.options.logger.info(`Signed out of ${this.baseUrlValue}.`);
  }

  /**
   * Re-reads the account (the credit) in the background. Unlike refresh(), a failure keeps the
   * current state: a blip in a periodic credit check must not turn the views to "unreachable".
   */
  async refreshAccount(): Promise<void> {
    if (this.current.kind !== 'ready' || this.key === undefined) return;
    const generation = this.generation;
    try {
      const user = await this.client.account.currentUser();
      if (generation === this.generation && this.current.kind === 'ready') this.setState({ kind: 'ready', user });
    } catch (error) {
      this.options.logger.debug(`Background account refresh failed: ${error instanceof ApiError ? error.toLogString() : String(error)}`);
    }
  }

  private writing = 0;

  private async writingKey(write: () => Promise<void>): Promise<void> {
    this.writing++;
    try {
      await write();
    } finally {
      this.writing--;
    }
  }

  /** Checks the key against the service again (the Retry of the unreachable state). */
  async refresh(): Promise<void> {
    if (this.normalized === undefined) return;
    if (this.key === undefined) {
      this.setState({ kind: 'noKey' });
      return;
    }
    const generation = ++this.generation;
    if (this.current.kind !== 'ready' && this.current.kind !== 'checking') this.setState({ kind: 'checking' });
    let next: SessionState;
    try {
      next = { kind: 'ready', user: await this.client.account.currentUser() };
    } catch (error) {
      next = this.stateForError(error);
    }
    if (generation === this.generation) this.setState(next);
  }

  /**
   * Views report failed calls here, so that a revoked key or a lost connection shows as the
   * session's state (and its welcome content) rather than as a silently empty tree. Only `auth`
   * (the key check failed, or the service said the key is invalid) signs the window out: a
   * `forbidden` (a missing permission or a two-factor login needed, also when answered with 401)
   * refuses one action of a good key and leaves the session as it is.
   */
  reportError(error: unknown): void {
    if (!(error instanceof ApiError)) return;
    if (error.kind === 'auth' || error.kind === 'network' || error.kind === 'timeout') {
      this.generation++;
      this.setState(this.stateForError(error));
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private async reloadKey(force = false): Promise<void> {
    if (this.normalized === undefined) return;
    const slot = this.slot();
    const key = await this.options.keys.get(slot);
    if (slot !== this.slot()) return; // the base URL or the profile changed meanwhile
    if (!force && key === this.key) return;
    this.key = key;
    if (key === undefined) {
      this.generation++;
      this.setState({ kind: 'noKey' });
      return;
    }
    await this.refresh();
  }

  private stateForError(error: unknown): SessionState {
    if (error instanceof ApiError) {
      if (error.kind === 'auth') return { kind: 'rejected', error };
      if (error.kind === 'forbidden') return { kind: 'ready', user: undefined };
      return { kind: 'unreachable', error };
    }
    throw error;
  }

  private checkUrl(baseUrl: string): string | undefined {
    try {
      return checkBaseUrl(baseUrl);
    } catch (error) {
      this.setState({ kind: 'badUrl', message: (error as Error).message });
      return undefined;
    }
  }

  private normalizedUrl(): string {
    return this.normalized ?? this.baseUrlValue;
  }

  /** Where this profile's key for this base URL is stored. */
  private slot(): string {
    return keySlot(this.profileValue, this.normalizedUrl());
  }

  private setState(state: SessionState): void {
    this.current = state;
    this.changed.fire(state);
  }
}
