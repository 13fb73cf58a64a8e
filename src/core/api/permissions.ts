import { l10n } from '../l10n';
/**
 * Permission categories of a scoped API key, as the service names them. A scoped key carries
 * `{"api": {"<category>": {}}}`; an empty object means the category is unconstrained.
 */
export const PERMISSION_CATEGORIES = {
  misc: l10n.t('search offers, volume offers and serverless endpoints'),
  user_read: l10n.t('read the account, API keys, SSH keys, templates, clusters and overlay networks'),
  user_write: l10n.t('change the account, API keys, SSH keys, templates and overlay networks'),
  instance_read: l10n.t('see instances, their logs and volumes'),
  instance_write: l10n.t('rent, start, stop, label, reboot and destroy instances, and manage volumes'),
  billing_read: l10n.t('read charges and invoices'),
  billing_write: l10n.t('move credit'),
  machine_read: l10n.t('read hosted machines'),
  machine_write: l10n.t('manage hosted machines'),
  team_read: l10n.t('see team members and roles'),
  team_write: l10n.t('invite and remove team members and edit roles'),
} as const;

export type PermissionCategory = keyof typeof PERMISSION_CATEGORIES;

/** Constraint on one internal action, e.g. `{"api.instance.destroy": {"constraints": {"id": {"eq": 5}}}}`. */
export interface ActionConstraint {
  constraints?: Record<string, Partial<Record<'eq' | 'gte' | 'lte', string | number>>>;
}

export interface Permissions {
  api: Partial<Record<PermissionCategory, Record<string, ActionConstraint>>>;
}

export function isPermissionCategory(value: string): value is PermissionCategory {
  return Object.prototype.hasOwnProperty.call(PERMISSION_CATEGORIES, value);
}

/** Builds an unconstrained permission object from a list of categories. */
export function permissionsFor(categories: readonly PermissionCategory[]): Permissions {
  const api: Permissions['api'] = {};
  for (const category of categories) api[category] = {};
  return { api };
}
