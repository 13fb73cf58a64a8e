import type { ApiError } from '../api/errors';
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import type { Notice } from '../notice';
import { DEFAULT_PROFILE_ID, keySlot, type Profile } from '../session/profiles';
import type { StoredAccess } from '../state/storedState';
import { countryCode } from './present';
import type { SavedSearch } from './saved';

/*
 * What a watch tells the user and how it finds its key: the notices the search watcher
 * (./watch.ts) fires, their words and buttons, and the key lookup it is built with.
 */

/** A saved search while it is watched. */
export type WatchedSearch = SavedSearch & { watch: NonNullable<SavedSearch['watch']> };

/** What the watcher tells the user; the claim holder is the only window that says it. */
export type WatchNotice =
  /** New offers matched: the first in the search's order, and how many more. */
  | { kind: 'match'; search: WatchedSearch; offer: Offer; more: number }
  /** The watch's profile was removed, or its key is gone: the watch was stopped, the search kept. */
  | { kind: 'paused'; search: WatchedSearch; reason: 'profile' | 'key' }
  /** The service keeps refusing this search (its key, a permission, or the query): said once per watch. */
  | { kind: 'refused'; search: WatchedSearch; error: ApiError };

/** The account of a watch: its key, or why there is none. */
export type WatchKey = { key: string } | { missing: 'profile' | 'key' };

/**
 * How the watcher finds a watch's key: the profile must still exist (the default one always
 * does), and its slot in the secret store must hold a key.
 */
export function watchKeyLookup(keys: { get(slot: string): Promise<string | undefined> }, state: StoredAccess<{ profiles: Profile[] }>) {
  return async (watch: WatchedSearch['watch']): Promise<WatchKey> => {
    if (watch.profileId !== DEFAULT_PROFILE_ID && !state.get('profiles').some((p) => p.id === watch.profileId)) {
      return { missing: 'profile' };
    }
    const key = await keys.get(keySlot(watch.profileId, watch.baseUrl));
    return key ? { key } : { missing: 'key' };
  };
}

/** The buttons a notice offers; the UI runs the command each names. */
export type WatchNoticeButton = 'Rent' | 'Show' | 'Stop Watching' | 'Watch Again';

/** What a notice's button says, in the display language. */
export function watchButtonLabel(button: WatchNoticeButton): string {
  switch (button) {
    case 'Rent':
      return l10n.t('Rent');
    case 'Show':
      return l10n.t('Show');
    case 'Stop Watching':
      return l10n.t('Stop Watching');
    case 'Watch Again':
      return l10n.t('Watch Again');
  }
}

/**
 * What the user is told about a notice: `GPU Rental: "4090s": RTX 4090 ×2 at $0.610/h in NL (+2 more)`
 * with Rent, Show and Stop Watching (information); a stopped or refused watch says why and what to do next (a warning).
 */
export function describeWatchNotice(notice: WatchNotice): Notice<WatchNoticeButton> {
  const name = notice.search.name;
  if (notice.kind === 'match') {
    const o = notice.offer;
    const where = countryCode(o.geolocation);
    const gpus = o.num_gpus > 1 ? l10n.t('{0} ×{1}', o.gpu_name, o.num_gpus) : o.gpu_name;
    const offer = where
      ? l10n.t('{0} at {1}/h in {2}', gpus, formatDollars(o.dph_total), where)
      : l10n.t('{0} at {1}/h', gpus, formatDollars(o.dph_total));
    return {
      severity: 'info',
      text:
        notice.more > 0
          ? l10n.t('GPU Rental: "{0}": {1} (+{2} more)', name, offer, notice.more)
          : l10n.t('GPU Rental: "{0}": {1}', name, offer),
      actions: ['Rent', 'Show', 'Stop Watching'],
    };
  }
  if (notice.kind === 'paused') {
    const why =
      notice.reason === 'profile'
        ? l10n.t('the profile it searched with was removed')
        : l10n.t('the API key of the profile it searched with is gone');
    return {
      severity: 'warning',
      text: l10n.t(
        'GPU Rental: stopped watching "{0}": {1}. The search is still saved; Watch Again watches it with the profile in use now.',
        name,
        why,
      ),
      actions: ['Watch Again'],
    };
  }
  return {
    severity: 'warning',
    text: l10n.t(
      'GPU Rental: the service keeps refusing the watched search "{0}": {1} Fix the key or the search, or stop watching it; it is tried again each interval.',
      name,
      notice.error.message,
    ),
    actions: ['Stop Watching'],
  };
}
