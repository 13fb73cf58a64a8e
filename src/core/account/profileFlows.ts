/**
 * Switch Profile, Add Profile and Remove Profile as core flows: what is asked, in what order,
 * and what a removal's confirmation says the profile's account still runs.
 */
import type { Instance } from '../api/instances';
import { checkBaseUrl } from '../api/transport';
import { formatDollars } from '../format';
import { burnRate } from '../instances/rates';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Ask } from '../prompts';
import { DEFAULT_PROFILE_ID, profileNameProblem, type Profile } from '../session/profiles';
import { info, type Outcome } from './notice';

/** What automation (and the tests) may pass instead of answering the inputs. */
export interface NewProfileSpec {
  name: string;
  baseUrl?: string;
  /** Signs the new profile in with this key (checked first, as Set API Key does). */
  apiKey?: string;
}

/** What the profile flows use. */
export interface ProfileFlowDeps {
  readonly ask: Ask;
  readonly profiles: {
    list(): Profile[];
    /** The base URL a profile uses now (the default one follows the setting). */
    baseUrl(profile: Profile): string;
    add(name: string, baseUrl: string): Promise<Profile>;
    remove(id: string): Promise<void>;
  };
  readonly session: { readonly profileId: string; signIn(key: string): Promise<unknown> };
  readonly switcher: {
    readonly profile: Profile;
    switchProfile(id: string): Promise<void>;
    keyOf(profile: Profile, baseUrl: string): Promise<string | undefined>;
    deleteKeyOf(profile: Profile, baseUrl: string): Promise<void>;
  };
  /** Lists another profile's instances with its own key, in one request (never retried). */
  readonly instancesOf: (baseUrl: string, key: string) => Promise<Instance[]>;
  /** The gpuRental.apiUrl setting: a new profile's proposed address. */
  readonly apiUrl: () => string;
  readonly logger: Logger;
}

const ADD = '';

/** Asks which profile to use (or Add Profile…) unless given, and switches; resolves with the profile in use, or undefined when dismissed. */
export async function switchProfileFlow(d: ProfileFlowDeps, id?: string): Promise<{ id: string; askKey?: boolean } | undefined> {
  if (id === undefined) {
    const current = d.session.profileId;
    const picked = await d.ask.pick({
      title: l10n.t('GPU Rental: Switch Profile'),
      placeholder: l10n.t('Each profile has its own API key; its instances, offers and SSH entries are its own.'),
      items: [
        ...d.profiles.list().map((p) => ({
          label: `${p.id === current ? '$(check) ' : ''}${p.name}`,
          description: d.profiles.baseUrl(p),
          detail: p.id === DEFAULT_PROFILE_ID ? l10n.t('Its service is the gpuRental.apiUrl setting.') : undefined,
          value: p.id,
        })),
        { label: l10n.t('$(add) Add Profile…'), description: l10n.t('another account, or another service'), value: ADD },
      ],
    });
    if (picked === undefined) return undefined;
    if (picked === ADD) return addProfileFlow(d);
    id = picked;
  }
  await d.switcher.switchProfile(id);
  return { id };
}

/** Why a typed base URL is unusable, or undefined. */
function urlProblem(value: string): string | undefined {
  try {
    checkBaseUrl(value.trim());
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Adds a profile (name, then service, unless given) and switches to it; signs it in with the
 * spec's key. `askKey`: the user should be asked for its key next (Set API Key).
 */
export async function addProfileFlow(d: ProfileFlowDeps, spec?: NewProfileSpec): Promise<{ id: string; askKey?: boolean } | undefined> {
  const name =
    spec?.name ??
    (await d.ask.input({
      title: l10n.t('GPU Rental: Add Profile (1/2)'),
      prompt: l10n.t('A name for the account, such as "Work" or "Team A". It also goes into the SSH aliases of its instances.'),
      validate: (v) => profileNameProblem(v, d.profiles.list()),
    }));
  if (name === undefined) return undefined;
  const baseUrl =
    spec?.baseUrl ??
    (await d.ask.input({
      title: l10n.t('GPU Rental: Add Profile (2/2)'),
      prompt: l10n.t('The service this account is on. Keep the address for another account on the same service.'),
      value: d.profiles.baseUrl(d.switcher.profile) || d.apiUrl(),
      validate: urlProblem,
    }));
  if (baseUrl === undefined) return undefined;
  const profile = await d.profiles.add(name, baseUrl);
  d.logger.info(`Added the profile "${profile.name}" (${profile.baseUrl ?? ''}).`);
  await d.switcher.switchProfile(profile.id);
  if (spec?.apiKey !== undefined) await d.session.signIn(spec.apiKey);
  return { id: profile.id, askKey: spec === undefined };
}

/**
 * Removes a profile and its key from this machine, after a confirmation that says what its
 * account still runs: those instances keep billing and will not be visible here any more.
 */
export async function removeProfileFlow(d: ProfileFlowDeps, id?: string): Promise<Outcome<boolean>> {
  const removable = d.profiles.list().filter((p) => p.id !== DEFAULT_PROFILE_ID);
  if (removable.length === 0)
    return {
      value: false,
      notice: info(l10n.t('GPU Rental: there is only the default profile, which cannot be removed. Add Profile adds another account.')),
    };
  const profile =
    removable.find((p) => p.id === id) ??
    (await d.ask.pick({
      title: l10n.t('GPU Rental: Remove Profile'),
      placeholder: l10n.t('The default profile stays; it follows the gpuRental.apiUrl setting.'),
      items: removable.map((p) => ({ label: p.name, description: d.profiles.baseUrl(p), value: p })),
    }));
  if (!profile) return { value: false };
  const baseUrl = checkBaseUrl(d.profiles.baseUrl(profile));
  const current = d.session.profileId === profile.id;
  const detail = [
    l10n.t('Its API key is deleted from this machine (the key itself stays valid on the service; revoke it there if it should not).'),
    await stillBilling(d, profile, baseUrl),
    current ? l10n.t('This window switches to the default profile.') : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  if (!(await d.ask.confirm(l10n.t('Remove the profile "{0}"?', profile.name), detail, l10n.t('Remove Profile')))) return { value: false };
  if (current) await d.switcher.switchProfile(DEFAULT_PROFILE_ID);
  await d.switcher.deleteKeyOf(profile, baseUrl);
  await d.profiles.remove(profile.id);
  d.logger.info(`Removed the profile "${profile.name}" and its key.`);
  return { value: true };
}

/** What the profile's account still has that bills, read with its own key; a sentence, or ''. */
async function stillBilling(d: ProfileFlowDeps, profile: Profile, baseUrl: string): Promise<string> {
  const key = await d.switcher.keyOf(profile, baseUrl);
  if (!key) return '';
  try {
    const instances = await d.instancesOf(baseUrl, key);
    if (instances.length === 0) return l10n.t('Its account has no instances.');
    const perHour = formatDollars(burnRate(instances).perHour);
    return instances.length === 1
      ? l10n.t(
          'Its account has 1 instance ({0}/h now). It keeps running and billing on the service, and will no longer be shown here. Destroy it first if you do not need it.',
          perHour,
        )
      : l10n.t(
          'Its account has {0} instances ({1}/h now). They keep running and billing on the service, and will no longer be shown here. Destroy them first if you do not need them.',
          instances.length,
          perHour,
        );
  } catch (error) {
    d.logger.warn(`Could not list the instances of the profile "${profile.name}": ${String(error)}`);
    return l10n.t(
      'Its instances could not be listed. Any it has keep running and billing on the service, and will no longer be shown here.',
    );
  }
}
