import type { ApiKey } from '../api/account';
import { PERMISSION_CATEGORIES, isPermissionCategory, type Permissions, type PermissionCategory } from '../api/permissions';
import { l10n } from '../l10n';

/** The instance actions a key can be held to one instance for (the service's action names). */
export const INSTANCE_ACTIONS: Readonly<Record<'instance_read' | 'instance_write', readonly string[]>> = {
  instance_read: ['api.instance.show', 'api.instance.request_logs', 'api.instance.ssh_keys'],
  instance_write: ['api.instance.destroy', 'api.instance.reboot', 'api.instance.attach_ssh', 'api.instance.detach_ssh'],
};

/**
 * A scoped key's permission object: each chosen category unconstrained, except the instance
 * categories when `instanceId` is given, which then allow only the listed actions on that one
 * instance (`{"constraints": {"id": {"eq": <id>}}}`).
 */
export function scopedPermissions(categories: readonly PermissionCategory[], instanceId?: number): Permissions {
  const api: Permissions['api'] = {};
  for (const c of categories) {
    if (instanceId !== undefined && (c === 'instance_read' || c === 'instance_write')) {
      api[c] = Object.fromEntries(INSTANCE_ACTIONS[c].map((a) => [a, { constraints: { id: { eq: instanceId } } }]));
    } else api[c] = {};
  }
  return { api };
}

/** The categories a listed key carries; undefined for a full-access key. */
export function keyCategories(key: Pick<ApiKey, 'rights'>): string[] | undefined {
  return key.rights ? Object.keys(key.rights.api ?? {}) : undefined;
}

/** "full access", or the categories in words: "read-only: instance_read, user_read". */
export function scopeSummary(key: Pick<ApiKey, 'rights' | 'unreadable'>): string {
  // A key listed by id only: its rights are not known, and must never read as full access.
  if (key.unreadable) return l10n.t('rights unknown');
  const categories = keyCategories(key);
  if (categories === undefined) return l10n.t('full access');
  if (categories.length === 0) return l10n.t('no permissions');
  const readOnly = categories.every((c) => c.endsWith('_read') || c === 'misc');
  return `${readOnly ? 'read-only: ' : ''}${categories.join(', ')}`;
}

/** What a category allows, for pickers and messages. */
export function describeCategory(category: string): string {
  return isPermissionCategory(category) ? PERMISSION_CATEGORIES[category] : category;
}
