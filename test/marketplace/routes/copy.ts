/**
 * Copy between two instances, `/api/v0/commands/copy_direct/` (instance_write): PUT starts one,
 * DELETE `{dst_id}` cancels the copy to that instance. Ids come as numbers, strings or "C.123";
 * both instances must be the caller's (404 otherwise), the destination running and the source
 * running or stopped (400): a stopped instance's disk stays readable and copyable, as the service
 * documents (an outbid instance is stopped too). The paths must be in the container's /root,
 * /workspace or /tmp (400). The files really move (transfers.ts), after a short delay; progress
 * shows in the destination's `status_msg` and log.
 */
import { containerPathOf } from '../transfers';
import { fail, ok, type Ctx, type RouteDef } from '../router';
import { ownInstance } from './shared';

/** An instance id as clients send it: 123, "123" or "C.123"; undefined for anything else. */
export function instanceIdOf(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim().replace(/^C\./i, '') : '';
  return /^\d{1,12}$/.test(text) ? Number(text) : undefined;
}

/**
 * The caller's instance named by `field` of the body, running; with `stoppedToo`, stopped (by its
 * renter, the credit or an outbid) is enough, as a source whose disk is only read.
 */
export function runningInstance(ctx: Ctx, field: string, value: unknown, stoppedToo = false) {
  if (typeof value === 'string' && /^(V|s3|gds|dropbox|azure|b2)\./i.test(value.trim())) {
    throw fail(
      400,
      'invalid_args',
      `${field} ${value}: volumes and cloud connections are not copied here; use cloud copy (POST /api/v0/commands/rclone/).`,
    );
  }
  const id = instanceIdOf(value);
  if (id === undefined) throw fail(400, 'invalid_args', `Invalid ${field}.`);
  const { inst } = ownInstance(ctx, id, 'no_such_instance');
  if (inst.phase === 'running' || (stoppedToo && inst.phase === 'stopped')) return inst;
  throw fail(
    400,
    'invalid_args',
    stoppedToo
      ? `Instance C.${id} is neither running nor stopped; wait until it runs or stops, then copy.`
      : `Instance C.${id} is not running; start it, then copy.`,
  );
}

/** The simulator's file transfers; a 400 when it runs no containers, so instances have no files. */
export function transfersOf(ctx: Ctx) {
  const transfers = ctx.sim.transfers;
  if (!transfers.available)
    throw fail(
      400,
      'invalid_args',
      'This simulator runs no containers (start it with ssh or onstart), so instances have no files to copy.',
    );
  return transfers;
}

function copy(ctx: Ctx) {
  const b = ctx.body;
  const src = runningInstance(ctx, 'src_id', b.src_id, true);
  const dst = runningInstance(ctx, 'dst_id', b.dst_id);
  const srcPath = containerPathOf(b.src_path);
  if (!srcPath) throw fail(400, 'invalid_args', 'Invalid src_path.');
  const dstPath = containerPathOf(b.dst_path);
  if (!dstPath) throw fail(400, 'invalid_args', 'Invalid dst_path.');
  const transfers = transfersOf(ctx);
  const slash = (given: unknown, path: string) => (String(given).trim().endsWith('/') && path !== '/' ? `${path}/` : path);
  transfers.start({
    kind: 'copy',
    instanceId: dst.id,
    from: transfers.containerEnd(src.id, srcPath, `C.${src.id}:${slash(b.src_path, srcPath)}`),
    to: transfers.containerEnd(dst.id, dstPath, `C.${dst.id}:${slash(b.dst_path, dstPath)}`),
    contentsOnly: String(b.src_path).trim().endsWith('/'),
  });
  return ok({
    success: true,
    msg: 'Remote to Remote copy initiated - check instance status bar for progress updates (~30 seconds delayed).',
  });
}

function cancelCopy(ctx: Ctx) {
  const id = instanceIdOf(ctx.body.dst_id);
  if (id === undefined) throw fail(400, 'invalid_args', 'Invalid dst_id.');
  ownInstance(ctx, id, 'no_such_instance');
  const cancelled = ctx.sim.transfers.cancel(id);
  return ok({ success: true, msg: cancelled ? `Copy to C.${id} canceled.` : `No copy to C.${id} was in progress.` });
}

export const copyRoutes: RouteDef[] = [
  { method: 'PUT', path: '/api/v0/commands/copy_direct', category: 'instance_write', action: 'api.instance.copy', handler: copy },
  {
    method: 'DELETE',
    path: '/api/v0/commands/copy_direct',
    category: 'instance_write',
    action: 'api.instance.copy_cancel',
    handler: cancelCopy,
  },
];
