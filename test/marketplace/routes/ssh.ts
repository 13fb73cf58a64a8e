/**
 * SSH keys. Account keys (`/ssh/`) go into instances created afterwards; instance keys
 * (`/instances/{id}/ssh/`) are attached to one existing instance. The instance list comes back
 * as a JSON document inside a string, as the service sends it.
 */
import { addLog } from '../lifecycle';
import type { SshKeyRecord } from '../model';
import { fail, intParam, ok, type Ctx, type RouteDef, saved } from '../router';
import { isPublicKey, keyComment, ownInstance } from './shared';

function accountRow(k: SshKeyRecord) {
  return {
    id: k.id,
    user_id: k.accountId,
    key: k.publicKey,
    created_at: new Date(k.createdAt).toISOString(),
    deleted_at: k.deletedAt === null ? null : new Date(k.deletedAt).toISOString(),
  };
}

/** What creating or replacing an account key answers. */
function keyAnswer(k: SshKeyRecord) {
  const row = accountRow(k);
  return {
    success: true,
    key: { id: row.id, user_id: row.user_id, public_key: row.key, created_at: row.created_at, deleted_at: row.deleted_at },
  };
}

/** The body's `ssh_key`, trimmed, when it is one OpenSSH public key line; otherwise the service's 400. */
function publicKeyOf(ctx: Ctx): string {
  const text = ctx.body.ssh_key;
  if (!isPublicKey(text)) throw fail(400, 'no_ssh_key', 'No ssh key provided, or it is not an OpenSSH public key.');
  return text.trim();
}

function ownSshKey(ctx: Ctx): SshKeyRecord {
  const id = intParam(ctx, 'id');
  const key = ctx.sim.store.data.sshKeys.find((k) => k.id === id && k.accountId === ctx.account.id && k.deletedAt === null);
  if (!key) throw fail(400, 'no_ssh_key', `No SSH key with id ${id}.`);
  return key;
}

export const sshRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/ssh',
    category: 'user_read',
    action: 'api.ssh.list',
    handler: (ctx) => ok(ctx.sim.store.data.sshKeys.filter((k) => k.accountId === ctx.account.id && k.deletedAt === null).map(accountRow)),
  },
  {
    method: 'POST',
    path: '/api/v0/ssh',
    category: 'user_write',
    action: 'api.ssh.create',
    handler: (ctx) => {
      const publicKey = publicKeyOf(ctx);
      const store = ctx.sim.store;
      const record: SshKeyRecord = {
        id: store.nextId('sshkey'),
        accountId: ctx.account.id,
        publicKey,
        createdAt: ctx.now,
        deletedAt: null,
      };
      store.data.sshKeys.push(record);
      return saved(store, keyAnswer(record));
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/ssh/:id',
    category: 'user_write',
    action: 'api.ssh.update',
    handler: (ctx) => {
      const key = ownSshKey(ctx);
      key.publicKey = publicKeyOf(ctx);
      return saved(ctx.sim.store, keyAnswer(key));
    },
  },
  {
    method: 'DELETE',
    path: '/api/v0/ssh/:id',
    category: 'user_write',
    action: 'api.ssh.delete',
    handler: (ctx) => {
      ownSshKey(ctx).deletedAt = ctx.now;
      return saved(ctx.sim.store, { success: true });
    },
  },
  {
    method: 'POST',
    path: '/api/v0/instances/:id/ssh',
    category: 'instance_write',
    action: 'api.instance.attach_ssh',
    handler: (ctx) => {
      const { inst } = ownInstance(ctx, intParam(ctx, 'id'), 'no_such_instance');
      const publicKey = publicKeyOf(ctx);
      if (!inst.sshKeys.some((k) => k.publicKey === publicKey)) {
        const id = ctx.sim.store.nextId('sshkey');
        inst.sshKeys.push({ id, name: keyComment(publicKey) ?? `key-${id}`, publicKey });
        addLog(inst, ctx.now, 'SSH key added to authorized_keys');
        ctx.sim.network.keysChanged(inst);
        ctx.sim.store.changed();
      }
      return ok({ success: true, msg: 'SSH key attached successfully' });
    },
  },
  {
    method: 'GET',
    path: '/api/v0/instances/:id/ssh',
    category: 'instance_read',
    action: 'api.instance.ssh_keys',
    handler: (ctx) => {
      const { inst } = ownInstance(ctx, intParam(ctx, 'id'), 'no_such_instance');
      return ok({
        success: true,
        ssh_keys: JSON.stringify(inst.sshKeys.map((k) => ({ id: k.id, name: k.name, public_key: k.publicKey }))),
      });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v0/instances/:id/ssh/:key_id',
    category: 'instance_write',
    action: 'api.instance.detach_ssh',
    handler: (ctx) => {
      const { inst } = ownInstance(ctx, intParam(ctx, 'id'), 'no_such_instance');
      const keyId = intParam(ctx, 'key_id');
      const index = inst.sshKeys.findIndex((k) => k.id === keyId);
      if (index < 0) throw fail(404, 'no_such_ssh_key', `SSH key ${keyId} is not attached to instance ${inst.id}.`);
      inst.sshKeys.splice(index, 1);
      ctx.sim.network.keysChanged(inst);
      return saved(ctx.sim.store, { success: true, msg: 'SSH key removed from instance.' });
    },
  },
];
