import * as z from 'zod';
import {
  anyOk,
  jsonInString,
  listOf,
  logUnreadable,
  optBool,
  optInt,
  optNumber,
  optString,
  optTime,
  recordId,
  tolerantArray,
  type RequestOptions,
} from './fields';
import type { Permissions } from './permissions';
import type { Transport } from './transport';
import { l10n } from '../l10n';

// ---- Current user -------------------------------------------------------------------------------

/**
 * Only `id` is relied on. The service's own example sends `credit`, its OpenAPI lists `balance`
 * instead: either may be missing or null, and that must never make the key unusable (see
 * accountFunds for which one is shown).
 */
export const UserSchema = z.object({
  id: z.int(),
  credit: optNumber,
  email: optString,
  username: optString,
  fullname: optString,
  balance: optNumber,
  ssh_key: optString,
  key_id: optInt,
  balance_threshold: optNumber,
  balance_threshold_enabled: optBool,
  email_verified: optBool,
});
export type User = z.output<typeof UserSchema>;

// ---- API keys -------------------------------------------------------------------------------------

/**
 * `rights` is the key's permission object, sent as a JSON string; absent or null for a full-access
 * key. Rights that cannot be read make the record unreadable (listed by id, "rights unknown"):
 * taking them as absent would call a scoped key full access.
 */
const RightsSchema = jsonInString(z.object({ api: z.record(z.string(), z.record(z.string(), z.unknown())) }))
  .nullish()
  .transform((v) => (v ? (v as Permissions) : null));

export const ApiKeySchema = z.object({
  id: recordId,
  name: optString,
  user_id: optInt,
  rights: RightsSchema,
  team_id: optInt,
  team_name: optString,
  created_at: optTime,
});
/**
 * `unreadable` marks a stand-in for a key the list could read only the id of: listed so it can
 * still be deleted; its rights are not known (null here does not mean full access).
 */
export type ApiKey = z.output<typeof ApiKeySchema> & { readonly unreadable?: true };

export function unreadableApiKey(id: number): ApiKey {
  return { id, rights: null, unreadable: true };
}

export const CreatedApiKeySchema = z.object({
  id: z.int(),
  /** The secret. Shown to the user once, never logged. */
  key: z.string().min(1),
  permissions: z.unknown().optional(),
});
export type CreatedApiKey = z.output<typeof CreatedApiKeySchema>;

export interface CreateApiKeyRequest {
  name: string;
  permissions: Permissions;
  /** Wildcard parameters for templated keys; passed through as given. */
  key_params?: string;
}

// ---- SSH keys -------------------------------------------------------------------------------------

/** The service spells the key `public_key`, `key` or `ssh_key` depending on the endpoint. */
const SshKeyWire = z.object({
  id: recordId,
  public_key: optString,
  key: optString,
  ssh_key: optString,
  name: optString,
  created_at: optTime,
});
/** A key without its text in any of the three spellings cannot be matched or shown: the record is unreadable. */
export const SshKeySchema = SshKeyWire.transform((k, ctx) => {
  const text = k.public_key ?? k.key ?? k.ssh_key;
  if (typeof text !== 'string') ctx.issues.push({ code: 'custom', message: l10n.t('no public key'), input: k, path: ['public_key'] });
  return { id: k.id, public_key: (text ?? '').trim(), name: k.name, created_at: k.created_at };
});
/** `unreadable` marks a stand-in for a key the list could read only the id of (its public key is empty). */
export type SshKey = z.output<typeof SshKeySchema> & { readonly unreadable?: true };

export function unreadableSshKey(id: number): SshKey {
  return { id, public_key: '', name: undefined, created_at: undefined, unreadable: true };
}

const ApiKeyListSchema = listOf(ApiKeySchema, 'apikeys', { byId: unreadableApiKey });
const SshKeyListSchema = listOf(SshKeySchema, 'ssh_keys', { byId: unreadableSshKey });
const CreatedSshKeySchema = z.object({ key: SshKeySchema });
/** Instance keys arrive as a JSON document inside a string. */
const InstanceSshKeysSchema = z
  .object({ ssh_keys: jsonInString(tolerantArray(SshKeySchema, { byId: unreadableSshKey })) })
  .transform((v) => v.ssh_keys);

export class AccountApi {
  constructor(private readonly t: Transport) {}

  /** The account behind the key; also the cheapest way to check that a key works. */
  currentUser(o: RequestOptions = {}): Promise<User> {
    return this.t.send({
      action: l10n.t('read the account'),
      method: 'GET',
      path: '/api/v0/users/current/',
      schema: UserSchema,
      permission: 'user_read',
      keyCheck: true,
      retry: 'read',
      ...o,
    });
  }
}

export class ApiKeysApi {
  constructor(private readonly t: Transport) {}

  /** Keys read only as far as their id are listed flagged `unreadable`; see `unreadableOf(result)`. */
  async list(o: RequestOptions = {}): Promise<ApiKey[]> {
    const keys = await this.t.send({
      action: l10n.t('list API keys'),
      method: 'GET',
      path: '/api/v0/auth/apikeys/',
      schema: ApiKeyListSchema,
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('list API keys'), keys);
    return keys;
  }

  create(request: CreateApiKeyRequest, o: RequestOptions = {}): Promise<CreatedApiKey> {
    return this.t.send({
      action: l10n.t('create an API key'),
      method: 'POST',
      path: '/api/v0/auth/apikeys/',
      body: request,
      schema: CreatedApiKeySchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  delete(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('delete API key {0}', id),
      method: 'DELETE',
      path: `/api/v0/auth/apikeys/${id}/`,
      schema: anyOk,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }
}

export class SshKeysApi {
  constructor(private readonly t: Transport) {}

  /** Keys read only as far as their id are listed flagged `unreadable`; see `unreadableOf(result)`. */
  async list(o: RequestOptions = {}): Promise<SshKey[]> {
    const keys = await this.t.send({
      action: l10n.t('list SSH keys'),
      method: 'GET',
      path: '/api/v0/ssh/',
      schema: SshKeyListSchema,
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('list SSH keys'), keys);
    return keys;
  }

  /** Registers a public key on the account; instances created afterwards accept it. */
  async create(publicKey: string, o: RequestOptions = {}): Promise<SshKey> {
    const res = await this.t.send({
      action: l10n.t('add an SSH key'),
      method: 'POST',
      path: '/api/v0/ssh/',
      body: { ssh_key: publicKey },
      schema: CreatedSshKeySchema,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
    return res.key;
  }

  delete(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('delete SSH key {0}', id),
      method: 'DELETE',
      path: `/api/v0/ssh/${id}/`,
      schema: anyOk,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }

  /** Adds a key to an instance that already exists (account keys reach only new instances). */
  attach(instanceId: number, publicKey: string, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('attach an SSH key to instance {0}', instanceId),
      method: 'POST',
      path: `/api/v0/instances/${instanceId}/ssh/`,
      body: { ssh_key: publicKey },
      schema: anyOk,
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
  }

  async listForInstance(instanceId: number, o: RequestOptions = {}): Promise<SshKey[]> {
    const keys = await this.t.send({
      action: l10n.t('list the SSH keys of instance {0}', instanceId),
      method: 'GET',
      path: `/api/v0/instances/${instanceId}/ssh/`,
      schema: InstanceSshKeysSchema,
      permission: 'instance_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('list the SSH keys of an instance'), keys);
    return keys;
  }

  detach(instanceId: number, keyId: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('detach SSH key {0} from instance {1}', keyId, instanceId),
      method: 'DELETE',
      path: `/api/v0/instances/${instanceId}/ssh/${keyId}/`,
      schema: anyOk,
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
  }
}
