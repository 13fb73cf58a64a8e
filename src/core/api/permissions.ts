/**
 * Permission categories of a scoped API key, as the service names them. A scoped key carries
 * `{"api": {"<category>": {}}}`; an empty object means the category is unconstrained.
 */
export const PERMISSION_CATEGORIES = {
  misc: 'search offers, volume offers and serverless endpoints',
  user_read: 'read the account, API keys, SSH keys and templates',
  user_write: 'change the account, API keys, SSH keys and templates',
  instance_read: 'see instances, their logs and volumes',
  instance_write: 'rent, start, stop, label, reboot and destroy instances, and manage volumes',
  billing_read: 'read charges and invoices',
  billing_write: 'move credit',
  machine_read: 'read hosted machines',
  machine_write: 'manage hosted machines',
  team_read: 'see team members and roles',
  team_write: 'invite and remove team members and edit roles',
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
