/**
 * Cloud connections and cloud copy: `GET /api/v0/users/cloud_integrations/` (user_read) lists
 * the account's connections `[{id, cloud_type, name}]` (one seeded "sim-bucket" each, backed by a
 * folder on this machine); `POST /api/v0/commands/rclone/` (instance_write) copies real files
 * between the instance's container and a connection, "Instance To Cloud" or "Cloud To Instance";
 * `DELETE` `{dst_id}` cancels the one running on that instance. "Instance To Cloud" reads a
 * stopped instance's disk too (the service documents it as copyable while stopped); its progress
 * then goes to the instance's log, while its `status_msg` keeps saying why it stopped.
 */
import { bucketPathOf, containerPathOf, type CopyEnd } from '../transfers';
import { fail, ok, type Ctx, type RouteDef } from '../router';
import { instanceIdOf, runningInstance, transfersOf } from './copy';
import { ownInstance } from './shared';
import { join } from 'node:path';

const TRANSFERS = ['Instance To Cloud', 'Cloud To Instance'] as const;

function connections(ctx: Ctx) {
  return ok(ctx.sim.transfers.connectionsOf(ctx.account.id).map((c) => ({ id: c.id, cloud_type: c.cloud_type, name: c.name })));
}

function cloudCopy(ctx: Ctx) {
  const b = ctx.body;
  const transfer = TRANSFERS.find((t) => t === b.transfer);
  if (!transfer) throw fail(400, 'invalid_args', `transfer must be "${TRANSFERS.join('" or "')}".`);
  const inst = runningInstance(ctx, 'instance_id', b.instance_id, transfer === 'Instance To Cloud');
  const transfers = transfersOf(ctx);
  const connection = transfers.connectionsOf(ctx.account.id).find((c) => String(c.id) === String(b.selected ?? '').trim());
  if (!connection) throw fail(400, 'invalid_args', 'Invalid selected: not one of your cloud connections.');
  if (b.flags !== undefined && !(Array.isArray(b.flags) && b.flags.every((f) => typeof f === 'string'))) {
    throw fail(400, 'invalid_args', 'flags must be a list of strings.');
  }
  const toCloud = transfer === 'Instance To Cloud';
  const [instancePath, bucketPath] = toCloud
    ? [containerPathOf(b.src), bucketPathOf(b.dst)]
    : [containerPathOf(b.dst), bucketPathOf(b.src)];
  if (!instancePath) throw fail(400, 'invalid_args', `Invalid ${toCloud ? 'src' : 'dst'}.`);
  if (!bucketPath) throw fail(400, 'invalid_args', `Invalid ${toCloud ? 'dst' : 'src'}.`);
  const given = (v: unknown) => String(v).trim();
  const slash = (field: unknown, path: string) => (given(field).endsWith('/') && path !== '/' ? `${path}/` : path);
  const instanceEnd = transfers.containerEnd(inst.id, instancePath, `C.${inst.id}:${slash(toCloud ? b.src : b.dst, instancePath)}`);
  const cloudEnd: CopyEnd = {
    host: join(connection.folder, bucketPath),
    root: connection.folder,
    label: `${connection.name}:${slash(toCloud ? b.dst : b.src, bucketPath)}`,
  };
  transfers.start({
    kind: 'cloud',
    instanceId: inst.id,
    from: toCloud ? instanceEnd : cloudEnd,
    to: toCloud ? cloudEnd : instanceEnd,
    contentsOnly: given(b.src).endsWith('/'),
  });
  return ok({ success: true, msg: 'Cloud copy initiated - check instance status bar for progress updates (~30 seconds delayed).' });
}

function cancelCloudCopy(ctx: Ctx) {
  const id = instanceIdOf(ctx.body.dst_id);
  if (id === undefined) throw fail(400, 'invalid_args', 'Invalid dst_id.');
  ownInstance(ctx, id, 'no_such_instance');
  const cancelled = ctx.sim.transfers.cancel(id);
  return ok({
    success: true,
    msg: cancelled
      ? 'Remote copy canceled - check instance status bar for progress updates (~30 seconds delayed).'
      : `No copy on C.${id} was in progress.`,
  });
}

export const cloudRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/users/cloud_integrations',
    category: 'user_read',
    action: 'api.user.cloud_integrations',
    handler: connections,
  },
  { method: 'POST', path: '/api/v0/commands/rclone', category: 'instance_write', action: 'api.instance.cloud_copy', handler: cloudCopy },
  {
    method: 'DELETE',
    path: '/api/v0/commands/rclone',
    category: 'instance_write',
    action: 'api.instance.cloud_copy_cancel',
    handler: cancelCloudCopy,
  },
];
