import * as z from 'zod';
import { anyOk, jsonInString, listOf, optBool, optInt, optNumber, optString, optTime, type RequestOptions } from './fields';
import type { Permissions } from './permissions';
import type { Transport } from './transport';

// ---- Current user -------------------------------------------------------------------------------

export const UserSchema = z.object({
  id: z.int(),
  credit: z.number(),
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

/** `rights` is the key's permission object, sent as a JSON string; absent or null for a full-access key. */
const RightsSchema = jsonInString(z.object({ api: z.record(z.string(), z.record(z.string(), z.unknown())) }))
  .optional()
  .catch(undefined)
  .transform((v) => (v ? (v as Permissions) : null));

export const ApiKeySchema = z.object({
  id: z.int(),
  name: optString,
  user_id: optInt,
  rights: RightsSchema,
  team_id: optInt,
  team_name: optString,
  created_at: optTime,
});
export type ApiKey = z.output<typeof ApiKeySchema>;

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
  id: z.int(),
  public_key: optString,
  key: optString,
  ssh_key: optString,
  name: optString,
  created_at: optTime,
});
export const SshKeySchema = SshKeyWire.transform((k) => ({
  id: k.id,
  public_key: (k.public_key ?? k.key ?? k.ssh_key ?? '').trim(),
  name: k.name,
  created_at: k.created_at,
}));
export type SshKey = z.output<typeof SshKeySchema>;

const SshKeyListSchema = listOf(SshKeySchema, 'ssh_keys');
const CreatedSshKeySchema = z.object({ key: SshKeySchema });
/** Instance keys arrive as a JSON document inside a string. */
const InstanceSshKeysSchema = z
  .object({ ssh_keys: jsonInString(z.array(SshKeySchema)).nullish() })
  .transform((v) => v.ssh_keys ?? []);

export class AccountApi {
  constructor(private readonly t: Transport) {}

  /** The account behind the key; also the cheapest way to check that a key works. */
  currentUser(o: RequestOptions = {}): Promise<User> {
    return this.t.send({ action: 'read the account', method: 'GET', path: '/api/v0/users/current/', schema: UserSchema, permission: 'user_read', retry: 'read', ...o });
  }
}

export class ApiKeysApi {
  constructor(private readonly t: Transport) {}

  list(o: RequestOptions = {}): Promise<ApiKey[]> {
    return this.t.send({ action: 'list API keys', method: 'GET', path: '/api/v0/auth/apikeys/', schema: listOf(ApiKeySchema, 'apikeys'), permission: 'user_read', retry: 'read', ...o });
  }

  create(request: CreateApiKeyRequest, o: RequestOptions = {}): Promise<CreatedApiKey> {
    return this.t.send({ action: 'create an API key', method: 'POST', path: '/api/v0/auth/apikeys/', body: request, schema: CreatedApiKeySchema, permission: 'user_write', retry: 'write', ...o });
  }

  delete(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `delete API key ${id}`, method: 'DELETE', path: `/api/v0/auth/apikeys/${id}/`, schema: anyOk, permission: 'user_write', retry: 'write', ...o });
  }
}

export class SshKeysApi {
  constructor(private readonly t: Transport) {}

  list(o: RequestOptions = {}): Promise<SshKey[]> {
    return this.t.send({ action: 'list SSH keys', method: 'GET', path: '/api/v0/ssh/', schema: SshKeyListSchema, permission: 'user_read', retry: 'read', ...o });
  }

  /** Registers a public key on the account; instances created afterwards accept it. */
  async create(publicKey: string, o: RequestOptions = {}): Promise<SshKey> {
    const res = await this.t.send({ action: 'add an SSH key', method: 'POST', path: '/api/v0/ssh/', body: { ssh_key: publicKey }, schema: CreatedSshKeySchema, permission: 'user_write', retry: 'write', ...o });
    return res.key;
  }

  delete(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `delete SSH key ${id}`, method: 'DELETE', path: `/api/v0/ssh/${id}/`, schema: anyOk, permission: 'user_write', retry: 'write', ...o });
  }

  /** Adds a key to an instance that already exists (account keys reach only new instances). */
  attach(instanceId: number, publicKey: string, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `attach an SSH key to instance ${instanceId}`, method: 'POST', path: `/api/v0/instances/${instanceId}/ssh/`, body: { ssh_key: publicKey }, schema: anyOk, permission: 'instance_write', retry: 'write', ...o });
  }

  listForInstance(instanceId: number, o: RequestOptions = {}): Promise<SshKey[]> {
    return this.t.send({ action: `list the SSH keys of instance ${instanceId}`, method: 'GET', path: `/api/v0/instances/${instanceId}/ssh/`, schema: InstanceSshKeysSchema, permission: 'instance_read', retry: 'read', ...o });
  }

  detach(instanceId: number, keyId: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({ action: `detach SSH key ${keyId} from instance ${instanceId}`, method: 'DELETE', path: `/api/v0/instances/${instanceId}/ssh/${keyId}/`, schema: anyOk, permission: 'instance_write', retry: 'write', ...o });
  }
}
