/**
 * Clusters and overlay networks (vast-cli's `show clusters`, `show/create/join/delete overlay`;
 * not in the OpenAPI file). The rules are in overlays.ts; this file reads and checks the bodies.
 * Answers to writes are `{success, msg}`: the CLI prints `msg` and reads nothing else, so a client
 * learns an overlay's id and subnet from the list.
 */
import {
  checkJoin,
  clusterMachines,
  clustersWire,
  createOverlay,
  deleteOverlay,
  overlayHolding,
  overlayNamed,
  overlays,
  overlayWire,
  join,
} from '../overlays';
import { fail, num, ok, saved, str, type Ctx, type RouteDef } from '../router';
import { offerOf, ownInstance } from './shared';

function listClusters(ctx: Ctx) {
  const mine = ctx.sim.store.data.instances.filter((i) => i.accountId === ctx.account.id).map((i) => i.offerId);
  return ok({ success: true, clusters: clustersWire(ctx.sim.offers, mine) });
}

function list(ctx: Ctx) {
  return ok(
    overlays(ctx.sim.store.data)
      .filter((o) => o.accountId === ctx.account.id)
      .map(overlayWire),
  );
}

function create(ctx: Ctx) {
  const clusterId = num(ctx.body.cluster_id);
  const name = str(ctx.body.name);
  if (clusterId === undefined || name === undefined) throw fail(400, 'invalid_args', 'Give cluster_id (a number) and name.');
  if (clusterMachines(ctx.sim.offers, clusterId).length === 0) throw fail(404, 'no_such_cluster', `Cluster ${clusterId} does not exist.`);
  const { store } = ctx.sim;
  createOverlay(store.data, { accountId: ctx.account.id, name, clusterId, id: store.nextId('overlay'), now: ctx.now });
  return saved(store, { success: true, msg: `Overlay network '${name}' created on cluster ${clusterId}.` });
}

function add(ctx: Ctx) {
  const name = str(ctx.body.name);
  const instanceId = num(ctx.body.instance_id);
  if (name === undefined || instanceId === undefined) throw fail(400, 'invalid_args', 'Give name (an overlay network) and instance_id.');
  const data = ctx.sim.store.data;
  const overlay = overlayNamed(data, ctx.account.id, name);
  const { inst } = ownInstance(ctx, instanceId, 'no_such_instance');
  const current = overlayHolding(data, inst.id);
  if (current === overlay) return ok({ success: true, msg: `Instance ${inst.id} is already in overlay network '${name}'.` });
  if (current)
    throw fail(
      400,
      'already_in_overlay',
      `Instance ${inst.id} is already in overlay network '${current.name}'; an instance joins one overlay.`,
    );
  checkJoin(overlay, offerOf(ctx, inst), `Instance ${inst.id}`);
  join(overlay, inst);
  return saved(ctx.sim.store, { success: true, msg: `Instance ${inst.id} added to overlay network '${name}'.` });
}

/**
 * Deletes by `overlay_id` or `overlay_name`. Members keep running and leave the overlay: the CLI
 * says the delete "removes all of its associated instances" and asks nothing first, so the
 * simulator detaches them rather than refusing (a decision; the service's behaviour is not
 * documented further).
 */
function remove(ctx: Ctx) {
  const id = num(ctx.body.overlay_id);
  const name = str(ctx.body.overlay_name);
  if (id === undefined && name === undefined) throw fail(400, 'invalid_args', 'Give overlay_id or overlay_name.');
  const data = ctx.sim.store.data;
  const overlay =
    id !== undefined
      ? overlays(data).find((o) => o.accountId === ctx.account.id && o.id === id)
      : overlayNamed(data, ctx.account.id, name!);
  if (!overlay) throw fail(404, 'no_such_overlay', `No overlay network with id ${id}.`);
  deleteOverlay(data, overlay);
  return saved(ctx.sim.store, { success: true, msg: `Overlay network '${overlay.name}' deleted.` });
}

export const overlayRoutes: RouteDef[] = [
  { method: 'GET', path: '/api/v0/clusters', category: 'user_read', action: 'api.cluster.list', handler: listClusters },
  { method: 'GET', path: '/api/v0/overlay', category: 'user_read', action: 'api.overlay.list', handler: list },
  { method: 'POST', path: '/api/v0/overlay', category: 'user_write', action: 'api.overlay.create', handler: create },
  { method: 'PUT', path: '/api/v0/overlay', category: 'user_write', action: 'api.overlay.join', handler: add },
  { method: 'DELETE', path: '/api/v0/overlay', category: 'user_write', action: 'api.overlay.delete', handler: remove },
];
