import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { ApiError, isApiError } from '../../../src/core/api/errors';
import { PERMISSION_CATEGORIES, permissionsFor, type PermissionCategory } from '../../../src/core/api/permissions';
import { clientFor, DEMO_KEY, PUBLIC_KEY, startSimulator, type Marketplace } from '../../support';

interface Fixture {
  instanceId: number;
  offerId: number;
  templateHash: string;
}

/** Every endpoint the client speaks, with the category the service asks of a scoped key. */
const ENDPOINTS: Array<[string, PermissionCategory, (c: GpuRentalClient, f: Fixture) => Promise<unknown>]> = [
  ['users/current', 'user_read', (c) => c.account.currentUser()],
  ['apikeys list', 'user_read', (c) => c.apiKeys.list()],
  ['apikeys create', 'user_write', (c) => c.apiKeys.create({ name: 'x', permissions: permissionsFor(['misc']) })],
  ['apikeys delete', 'user_write', (c) => c.apiKeys.delete(999_999)],
  ['ssh list', 'user_read', (c) => c.sshKeys.list()],
  ['ssh create', 'user_write', (c) => c.sshKeys.create(PUBLIC_KEY)],
  ['ssh delete', 'user_write', (c) => c.sshKeys.delete(999_999)],
  ['instance ssh attach', 'instance_write', (c, f) => c.sshKeys.attach(f.instanceId, PUBLIC_KEY)],
  ['instance ssh list', 'instance_read', (c, f) => c.sshKeys.listForInstance(f.instanceId)],
  ['instance ssh detach', 'instance_write', (c, f) => c.sshKeys.detach(f.instanceId, 999_999)],
  ['bundles search', 'misc', (c) => c.offers.search({ query: { filters: {}, order: [], type: 'on-demand' }, limit: 1 })],
  ['asks create', 'instance_write', (c, f) => c.instances.create(f.offerId, { image: 'ubuntu:22.04', disk: 8 })],
  ['v1 instances list', 'instance_read', (c) => c.instances.listPage()],
  ['instance show', 'instance_read', (c, f) => c.instances.show(f.instanceId)],
  ['instance stop', 'instance_write', (c, f) => c.instances.stop(f.instanceId)],
  ['instance start', 'instance_write', (c, f) => c.instances.start(f.instanceId)],
  ['instance label', 'instance_write', (c, f) => c.instances.setLabel(f.instanceId, 'x')],
  ['instance reboot', 'instance_write', (c, f) => c.instances.reboot(f.instanceId)],
  ['instance logs', 'instance_read', (c, f) => c.instances.logs(f.instanceId, {}, { intervalMs: 10 })],
  ['instance destroy', 'instance_write', (c) => c.instances.destroy(999_999)],
  ['instance change bid', 'instance_write', (c, f) => c.instances.changeBid(f.instanceId, 0.5)],
  // The reference names no category for the GPU metrics; misc is assumed, as for the offer search they price.
  ['metrics current', 'misc', (c) => c.metrics.current()],
  ['metrics history', 'misc', (c) => c.metrics.history(['RTX 4090'])],
  ['template search', 'user_read', (c) => c.templates.search()],
  ['template create', 'user_write', (c) => c.templates.create({ name: 't', image: 'ubuntu' })],
  ['template edit', 'user_write', (c, f) => c.templates.edit(f.templateHash, { desc: 'x' })],
  ['template delete', 'user_write', (c) => c.templates.delete(999_999)],
  ['volume search', 'misc', (c) => c.volumes.search({ filters: {}, limit: 1 })],
  ['volume create', 'instance_write', (c) => c.volumes.create({ offerId: 999_999, sizeGb: 10 })],
  ['volume list', 'instance_read', (c) => c.volumes.list()],
  ['volume delete', 'instance_write', (c) => c.volumes.delete(999_999)],
  ['endpoints list', 'misc', (c) => c.serverless.listEndpoints()],
  ['endpoints create', 'misc', (c) => c.serverless.createEndpoint({ endpoint_name: 'e' })],
  ['endpoints update', 'misc', (c) => c.serverless.updateEndpoint(999_999, { max_workers: 2 })],
  ['endpoints delete', 'misc', (c) => c.serverless.deleteEndpoint(999_999)],
  ['workergroups list', 'misc', (c) => c.serverless.listWorkerGroups()],
  ['workergroups create', 'misc', (c, f) => c.serverless.createWorkerGroup({ endpoint_name: 'none', template_hash: f.templateHash })],
  ['workergroups update', 'misc', (c) => c.serverless.updateWorkerGroup(999_999, { test_workers: 1 })],
  ['workergroups delete', 'misc', (c) => c.serverless.deleteWorkerGroup(999_999)],
  ['endpoint workers', 'misc', (c) => c.serverless.endpointWorkers(999_999)],
  ['endpoint logs', 'misc', (c) => c.serverless.endpointLogs({ id: 999_999, name: 'none' })],
  ['workergroup workers', 'misc', (c) => c.serverless.workerGroupWorkers(999_999)],
  ['workergroup logs', 'misc', (c) => c.serverless.workerGroupLogs(999_999)],
  ['team members', 'team_read', (c) => c.team.members()],
  ['team invite', 'team_write', (c) => c.team.invite('x@example.com', 'member')],
  ['team remove', 'team_write', (c) => c.team.removeMember(999_999)],
  ['team roles', 'team_read', (c) => c.team.roles()],
  ['team role create', 'team_write', (c) => c.team.createRole('r', permissionsFor(['misc']))],
  ['team role update', 'team_write', (c) => c.team.updateRole(999_999, 'r', permissionsFor(['misc']))],
  ['team role delete', 'team_write', (c) => c.team.deleteRole('no-such-role')],
  ['charges', 'billing_read', (c) => c.billing.charges({ from: 0, to: 2_000_000_000 })],
  ['invoices', 'billing_read', (c) => c.billing.invoices({ from: 0, to: 2_000_000_000 })],
];

async function outcome(call: Promise<unknown>): Promise<ApiError | 'ok'> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('permission enforcement, every endpoint (simulator)', () => {
  let sim: Marketplace;
  let fixture: Fixture;
  const scopedKeys = new Map<PermissionCategory, string>();
  let otherCategory: (c: PermissionCategory) => string;

  before(async () => {
    sim = await startSimulator();
    const owner = clientFor(sim.url, DEMO_KEY).client;
    const offers = await owner.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 2 });
    const { instanceId } = await owner.instances.create(offers[0]!.id, { image: 'ubuntu:22.04', disk: 8 });
    const template = await owner.templates.create({ name: 'perm', image: 'ubuntu' });
    fixture = { instanceId, offerId: offers[1]!.id, templateHash: template.hash_id };
    for (const category of Object.keys(PERMISSION_CATEGORIES) as PermissionCategory[]) {
      scopedKeys.set(category, (await owner.apiKeys.create({ name: category, permissions: permissionsFor([category]) })).key);
    }
    otherCategory = (c) => scopedKeys.get(c === 'misc' ? 'billing_write' : 'misc')!;
  });
  after(async () => {
    await sim.stop();
  });

  for (const [name, category, call] of ENDPOINTS) {
    describe(name, () => {
      it('without a key: auth, and no request is sent', async () => {
        const result = await outcome(call(clientFor(sim.url, undefined).client, fixture));
        assert.ok(isApiError(result, 'auth'), `got ${String(result)}`);
        assert.equal(result.status, undefined);
      });

      it('with a wrong key: auth (401)', async () => {
        const result = await outcome(call(clientFor(sim.url, 'wrong-key-000000000000').client, fixture));
        assert.ok(isApiError(result, 'auth'), `got ${String(result)}`);
        assert.equal(result.status, 401);
      });

      it(`with a scoped key lacking ${category}: forbidden, naming it`, async () => {
        const result = await outcome(call(clientFor(sim.url, otherCategory(category)).client, fixture));
        assert.ok(isApiError(result, 'forbidden'), `got ${String(result)}`);
        // The simulator answers a missing billing permission with 401, as the service may: the
        // body, not the status, tells it from a bad key.
        assert.equal(result.status, category.startsWith('billing_') ? 401 : 403);
        assert.equal(result.reason, 'permission');
        assert.equal(result.permission, category);
        assert.match(result.message, new RegExp(`"${category}"`));
      });

      it(`with a scoped key holding ${category}: allowed`, async () => {
        const result = await outcome(call(clientFor(sim.url, scopedKeys.get(category)!).client, fixture));
        assert.ok(result === 'ok' || (result.kind !== 'auth' && result.kind !== 'forbidden'), `got ${String(result)}`);
      });
    });
  }
});
