import { API_KEY_ENV } from '../ids';
import type { Logger } from '../log';
import type { StoredAccess } from '../state/storedState';
import { DEFAULT_PROFILE_ID } from './profiles';
import type { KeyStore, Session } from './session';

export interface EnvironmentKeyDeps {
  /** The key in GPU_RENTAL_API_KEY, if any (read when importing, not before). */
  readonly environmentKey: () => string | undefined;
  readonly session: Pick<Session, 'state' | 'profileId' | 'normalizedBaseUrl' | 'baseUrl'>;
  readonly keys: Pick<KeyStore, 'get' | 'store'>;
  /** The base URLs the user signed out of. */
  readonly state: Pick<StoredAccess<{ signedOut: string[] }>, 'get' | 'change'>;
  readonly logger: Logger;
}

/**
 * `npm start` and automation pass a key in GPU_RENTAL_API_KEY. It is copied into SecretStorage
 * once, when no key is stored for the service and the user has not signed out of it.
 */
export class EnvironmentKey {
  constructor(private readonly deps: EnvironmentKeyDeps) {}

  /** Stores the environment's key when there is one to import; never logs it. */
  async importKey(): Promise<void> {
    const { session, keys, state, logger } = this.deps;
    const key = this.deps.environmentKey()?.trim();
    // Only into the default profile: an added profile is another account, the key is not its.
    if (!key || session.state.kind === 'badUrl' || session.profileId !== DEFAULT_PROFILE_ID) return;
    const baseUrl = session.normalizedBaseUrl;
    if (!baseUrl) return;
    if (state.get('signedOut').includes(baseUrl)) return;
    if (await keys.get(baseUrl)) return;
    await keys.store(baseUrl, key);
    logger.info(`Imported the API key from ${API_KEY_ENV} for ${baseUrl}.`);
  }

  /** After an explicit sign-out, the environment's key is not imported again for that service. */
  async rememberSignOut(): Promise<void> {
    const baseUrl = this.deps.session.normalizedBaseUrl ?? this.deps.session.baseUrl;
    await this.deps.state.change('signedOut', (signedOut) => [...new Set([...signedOut, baseUrl])]);
  }
}
