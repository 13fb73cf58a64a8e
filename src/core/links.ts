import { l10n } from './l10n';
import { visibleText } from './text';
/**
 * Links that open GPU Rental from outside the editor (the service's console, a chat message, a
 * CLI): `<scheme>://<publisher>.<name>/connect?instance=ID&profile=NAME`. A link is untrusted
 * text, so it is checked strictly here before anything acts on it; acting never rents, and never
 * starts anything without the user's confirmation (that is the connect flow's job).
 */

/** What a valid link asks for. */
export interface ConnectLink {
  readonly kind: 'connect';
  readonly instanceId: number;
  /** The profile the instance belongs to; absent when the link leaves it to the current one. */
  readonly profileId?: string;
}

/** A link that is refused, with why, in a sentence that follows "GPU Rental: ". */
export interface RefusedLink {
  readonly kind: 'refused';
  readonly reason: string;
}

/** The largest instance id accepted: ids are integers the service counts up, far below this. */
const MAX_INSTANCE_ID = Number.MAX_SAFE_INTEGER;

/**
 * Reads a link's path and query (as `vscode.Uri` gives them: the path with its slash, the query
 * without its question mark). `profileIds` are the profiles that exist. Parameters other than
 * `instance` and `profile` are ignored, so a newer console may add some; a parameter given twice
 * is refused, as it is ambiguous.
 */
export function parseLink(path: string, query: string, profileIds: readonly string[]): ConnectLink | RefusedLink {
  const action = path.replace(/^\/+|\/+$/g, '');
  if (action !== 'connect') {
    return {
      kind: 'refused',
      reason: l10n.t('the link asks for "{0}", which GPU Rental does not do (it opens /connect links).', printable(action)),
    };
  }
  const params = new URLSearchParams(query);
  for (const name of ['instance', 'profile']) {
    if (params.getAll(name).length > 1) return { kind: 'refused', reason: l10n.t('the link gives "{0}" more than once.', name) };
  }
  const instance = params.get('instance');
  if (instance === null || instance === '') return { kind: 'refused', reason: l10n.t('the link names no instance (instance=ID).') };
  if (!/^[1-9][0-9]{0,15}$/.test(instance) || Number(instance) > MAX_INSTANCE_ID) {
    return { kind: 'refused', reason: l10n.t('"{0}" is not an instance id (a positive whole number).', printable(instance)) };
  }
  const profile = params.get('profile');
  if (profile === null) return { kind: 'connect', instanceId: Number(instance) };
  if (!profileIds.includes(profile)) {
    return { kind: 'refused', reason: l10n.t('the link names the profile "{0}", which does not exist here.', printable(profile)) };
  }
  return { kind: 'connect', instanceId: Number(instance), profileId: profile };
}

/** A link that opens an instance, for a profile or the current one. `base` is `<scheme>://<extension id>`. */
export function connectLink(base: string, instanceId: number, profileId?: string): string {
  const query = new URLSearchParams({ instance: String(instanceId) });
  if (profileId !== undefined) query.set('profile', profileId);
  return `${base}/connect?${query.toString()}`;
}

/**
 * At most 60 characters of a link's text for a message, its hidden characters (bidi controls,
 * zero-width and control characters) shown as escapes: a crafted link reads as crafted.
 */
function printable(value: string): string {
  return visibleText(value, 60);
}
