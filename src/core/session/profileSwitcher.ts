import type { Logger } from '../log';
import { DEFAULT_PROFILE, keySlot, serviceLabel, type Profile } from './profiles';
import type { KeyStore, Session } from './session';
import { l10n } from '../l10n';

/** The profiles GPU Rental knows (src/ui/host/profiles.ts keeps them in global state). */
export interface ProfileStore {
  list(): Profile[];
  get(id: string | undefined): Profile | undefined;
  /** The base URL a profile uses now. */
  baseUrl(profile: Profile): string;
  /** Remembers the profile chosen last, for new windows. */
  setLast(id: string): Promise<void>;
}

export interface ProfileSwitcherDeps {
  readonly profiles: ProfileStore;
  readonly session: Pick<Session, 'profileId' | 'baseUrl' | 'assertNotFrozen' | 'setProfile'>;
  /** True while a rent is being sent or checked. */
  readonly renter: { readonly busy: boolean };
  readonly keys: Pick<KeyStore, 'get' | 'delete'>;
  readonly logger: Logger;
}

/** Which profile (account) this window uses, how messages name it, and switching to another. */
export class ProfileSwitcher {
  constructor(private readonly deps: ProfileSwitcherDeps) {}

  /** The profile this window uses. */
  get profile(): Profile {
    return this.deps.profiles.get(this.deps.session.profileId) ?? DEFAULT_PROFILE;
  }

  /** The profile's name while there are several (one account needs no label). */
  profileLabel(): string | undefined {
    return this.deps.profiles.list().length > 1 ? this.profile.name : undefined;
  }

  /** The service, and the profile when there are several: for messages. */
  get where(): string {
    return serviceLabel(this.deps.session.baseUrl, this.profileLabel());
  }

  /** Switches this window to another profile; new windows start with it too. */
  async switchProfile(id: string): Promise<void> {
    const { profiles, session, renter, logger } = this.deps;
    const profile = profiles.get(id);
    if (!profile) throw new Error(l10n.t('There is no GPU Rental profile "{0}".', id));
    // While a rent is being sent or checked, the window keeps showing the account it went to, or
    // a paid instance could go unseen.
    if (id !== session.profileId) {
      if (renter.busy)
        throw new Error(
          l10n.t(
            'A rent is in progress. Switch profiles once it has finished, so that the new instance is shown in the account it was rented on.',
          ),
        );
      session.assertNotFrozen();
    }
    await profiles.setLast(id);
    logger.info(`Switched to the profile "${profile.name}" (${profiles.baseUrl(profile)}).`);
    await session.setProfile(id, profiles.baseUrl(profile));
  }

  /** The stored key of any profile, for a look at its account before it is removed. */
  keyOf(profile: Profile, normalizedBaseUrl: string): Promise<string | undefined> {
    return this.deps.keys.get(keySlot(profile.id, normalizedBaseUrl));
  }

  /** Deletes a profile's key from this machine; refused while a rent is unsettled. */
  deleteKeyOf(profile: Profile, normalizedBaseUrl: string): Promise<void> {
    this.deps.session.assertNotFrozen();
    return this.deps.keys.delete(keySlot(profile.id, normalizedBaseUrl));
  }
}
