import { checkBaseUrl } from '../api/transport';
import { l10n } from '../l10n';

/**
 * A profile is one account on one service: a name, a base URL and (in SecretStorage) its own key.
 * The default profile is the one every install starts with: its base URL is the
 * `gpuRental.apiUrl` setting and its key slot is the base URL alone, as before profiles existed,
 * so existing keys and SSH aliases stay valid.
 */
export interface Profile {
  /** A lowercase slug, unique among profiles; `default` for the default profile. It never changes. */
  id: string;
  name: string;
  /** Undefined for the default profile, which follows the setting. */
  baseUrl?: string;
}

export const DEFAULT_PROFILE_ID = 'default';
export const DEFAULT_PROFILE: Profile = { id: DEFAULT_PROFILE_ID, name: 'Default' };

/** The service as messages name it: the base URL, and the profile's name when there are several. */
export function serviceLabel(baseUrl: string, profileName: string | undefined): string {
  return profileName ? `${baseUrl} (profile "${profileName}")` : baseUrl;
}

/** Where a profile's key is stored: the base URL, plus the profile id for any but the default. */
export function keySlot(profileId: string, normalizedBaseUrl: string): string {
  return profileId === DEFAULT_PROFILE_ID ? normalizedBaseUrl : `${normalizedBaseUrl}#profile=${profileId}`;
}

/**
 * What goes into the SSH aliases of the profile's instances (`gpu-rental-<id>-<instance>`); none
 * for the default profile, whose aliases stay `gpu-rental-<instance>`. Ids are unique slugs, and
 * an instance id is all digits, so aliases of two profiles never collide.
 */
export function sshProfile(profileId: string): string | undefined {
  return profileId === DEFAULT_PROFILE_ID ? undefined : profileId;
}

/** The slug of a name: lowercase letters, digits and single dashes. */
export function profileSlug(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/g, '');
}

/** Why a name cannot be a new profile's, or undefined when it can. */
export function profileNameProblem(name: string, existing: readonly Profile[]): string | undefined {
  const trimmed = name.trim();
  if (!trimmed) return l10n.t('Give the profile a name.');
  const slug = profileSlug(trimmed);
  if (!slug) return l10n.t('Use at least one letter or digit in the name.');
  // An all-digit slug would make `gpu-rental-<slug>-<id>` read like another profile's alias.
  if (/^\d+$/.test(slug)) return l10n.t('Use at least one letter in the name.');
  if (slug === DEFAULT_PROFILE_ID) return l10n.t('"Default" is the name of the first profile. Choose another name.');
  const clash = existing.find((p) => p.id === slug || p.name.trim().toLowerCase() === trimmed.toLowerCase());
  if (clash) return l10n.t('A profile named "{0}" exists already. Choose another name.', clash.name);
  return undefined;
}

/** A new profile, checked: throws with a readable message when the name or the URL is unusable. */
export function newProfile(name: string, baseUrl: string, existing: readonly Profile[]): Profile {
  const problem = profileNameProblem(name, existing);
  if (problem) throw new Error(problem);
  return { id: profileSlug(name.trim()), name: name.trim(), baseUrl: checkBaseUrl(baseUrl.trim()) };
}

/** The stored list as read back from global state, with anything malformed dropped. */
export function readProfiles(raw: unknown): Profile[] {
  if (!Array.isArray(raw)) return [];
  const out: Profile[] = [];
  for (const p of raw as unknown[]) {
    if (typeof p !== 'object' || p === null) continue;
    const { id, name, baseUrl } = p as Record<string, unknown>;
    if (typeof id !== 'string' || typeof name !== 'string' || typeof baseUrl !== 'string') continue;
    if (id === DEFAULT_PROFILE_ID || id !== profileSlug(id) || out.some((o) => o.id === id)) continue;
    out.push({ id, name, baseUrl });
  }
  return out;
}
