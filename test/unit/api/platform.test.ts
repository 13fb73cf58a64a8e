import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { permissionsFor } from '../../../src/core/api/permissions';
import { clientFor, DEMO_KEY, startSimulator, type Marketplace } from '../../support';

describe('client: templates, volumes, serverless, team and billing (simulator)', () => {
  let sim: Marketplace;
  let client: GpuRentalClient;
  beforeEach(async () => {
    sim = await startSimulator();
    client = clientFor(sim.url, DEMO_KEY).client;
  });
  afterEach(async () => {
    await sim.stop();
  });

  describe('templates', () => {
    it('finds public templates', async () => {
      const templates = await client.templates.search();
      assert.ok(
        templates.some((t) => /pytorch/i.test(t.image ?? '')),
        'a PyTorch template is offered',
      );
      assert.ok(templates.every((t) => t.hash_id.length > 0));
    });

    it('creates, finds, edits (new hash, same id) and deletes a template', async () => {
      const created = await client.templates.create({
        name: 'my-train',
        image: 'nvcr.io/nvidia/pytorch',
        tag: '24.05-py3',
        env: '-e WANDB_MODE=offline -p 8888:8888',
        onstart: 'nvidia-smi',
        runtype: 'ssh',
        recommended_disk_space: 40,
      });
      assert.equal(created.name, 'my-train');
      const found = await client.templates.search({ selectFilters: { name: { eq: 'my-train' } } });
      assert.deepEqual(
        found.map((t) => t.id),
        [created.id],
      );
      const edited = await client.templates.edit(created.hash_id, { onstart: 'nvidia-smi && echo ready' });
      assert.equal(edited.id, created.id);
      assert.notEqual(edited.hash_id, created.hash_id);
      const after = (await client.templates.search()).find((t) => t.id === created.id);
      assert.equal(after?.onstart, 'nvidia-smi && echo ready');
      assert.equal(after?.hash_id, edited.hash_id);
      await client.templates.delete(created.id);
      assert.ok(!(await client.templates.search()).some((t) => t.id === created.id));
    });
  });

  describe('volumes', () => {
    it('searches volume offers, creates, lists and deletes a volume', async () => {
      const offers = await client.volumes.search({ filters: { disk_space: { gte: 50 } }, order: [['storage_cost', 'asc']], limit: 5 });
      assert.ok(offers.length > 0);
      assert.ok(offers.every((o) => o.disk_space >= 50));
      const created = await client.volumes.create({ offerId: offers[0]!.id, sizeGb: 50, name: 'datasets' });
      assert.match(created.volumeName ?? '', /^V\.\d+$/);
      const volumes = await client.volumes.list();
      assert.equal(volumes.length, 1);
      assert.equal(volumes[0]?.disk_space, 50);
      await client.volumes.delete(volumes[0]!.id);
      assert.deepEqual(await client.volumes.list(), []);
    });

    it('reports deleting an unknown volume as not found', async () => {
      await assert.rejects(client.volumes.delete(424242), (e) => isApiError(e, 'not_found'));
    });
  });

  describe('serverless', () => {
    it('creates, lists, updates and deletes an endpoint with its worker groups', async () => {
      const id = await client.serverless.createEndpoint({
        endpoint_name: 'llm',
        min_load: 10,
        target_util: 0.9,
        cold_mult: 2.5,
        max_workers: 4,
      });
      let endpoints = await client.serverless.listEndpoints();
      assert.equal(endpoints.find((e) => e.id === id)?.endpoint_name, 'llm');
      await client.serverless.updateEndpoint(id, { max_workers: 8, target_util: 0.8 });
      endpoints = await client.serverless.listEndpoints();
      const updated = endpoints.find((e) => e.id === id);
      assert.equal(updated?.max_workers, 8);
      assert.equal(updated?.target_util, 0.8);
      const [template] = await client.templates.search();
      const group = await client.serverless.createWorkerGroup({
        endpoint_id: id,
        template_hash: template!.hash_id,
        search_params: 'gpu_ram>=24 num_gpus=1',
        test_workers: 2,
      });
      assert.ok((await client.serverless.listWorkerGroups()).some((g) => g.id === group && g.endpoint_id === id));
      await client.serverless.updateWorkerGroup(group, { test_workers: 3 });
      assert.equal((await client.serverless.listWorkerGroups()).find((g) => g.id === group)?.test_workers, 3);
      await client.serverless.deleteEndpoint(id);
      assert.ok(!(await client.serverless.listEndpoints()).some((e) => e.id === id));
      assert.ok(!(await client.serverless.listWorkerGroups()).some((g) => g.id === group), 'its worker groups went with it');
    });

    it('deletes a worker group on its own', async () => {
      const id = await client.serverless.createEndpoint({ endpoint_name: 'img' });
      const [template] = await client.templates.search();
      const group = await client.serverless.createWorkerGroup({ endpoint_id: id, template_hash: template!.hash_id });
      await client.serverless.deleteWorkerGroup(group);
      assert.ok(!(await client.serverless.listWorkerGroups()).some((g) => g.id === group));
    });
  });

  describe('team', () => {
    it('lists members and roles, invites and removes a member', async () => {
      const roles = await client.team.roles();
      assert.ok(roles.some((r) => r.name === 'member'));
      await client.team.invite('ada@example.com', 'member');
      const members = await client.team.members();
      const ada = members.find((m) => m.email === 'ada@example.com');
      assert.ok(ada, 'the invited member is listed');
      assert.deepEqual(ada.roles, ['member']);
      await client.team.removeMember(ada.id);
      assert.ok(!(await client.team.members()).some((m) => m.email === 'ada@example.com'));
    });

    it('creates, updates and deletes a role', async () => {
      await client.team.createRole('auditor', permissionsFor(['billing_read']));
      const role = (await client.team.roles()).find((r) => r.name === 'auditor');
      assert.ok(role?.id !== undefined && role.id !== null);
      await client.team.updateRole(role.id, 'auditor', permissionsFor(['billing_read', 'instance_read']));
      const updated = (await client.team.roles()).find((r) => r.name === 'auditor');
      assert.deepEqual(Object.keys((updated?.permissions as { api?: object } | undefined)?.api ?? {}).sort(), [
        'billing_read',
        'instance_read',
      ]);
      await client.team.deleteRole('auditor');
      assert.ok(!(await client.team.roles()).some((r) => r.name === 'auditor'));
    });
  });

  describe('billing', () => {
    it('lists the initial credit as an invoice and charges for an instance', async () => {
      const now = Math.floor(Date.now() / 1000);
      const invoices = await client.billing.invoices({ from: now - 86_400, to: now + 60 });
      assert.ok(invoices.results.length >= 1);
      // Credits are listed with a negative amount, as on the real service.
      assert.ok(invoices.results.some((r) => r.amount !== 0));
      const [offer] = await client.offers.search({
        query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
        limit: 1,
      });
      const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, label: 'billed' });
      await new Promise((r) => setTimeout(r, 400));
      const charges = await client.billing.charges({ from: now - 86_400, to: now + 86_400 });
      const mine = charges.results.find((c) => c.source === `instance-${instanceId}`);
      assert.ok(mine, 'the instance is charged');
      assert.ok(mine.amount >= 0);
    });

    it('reports a missing date range as a refusal', async () => {
      // The service requires both bounds; a reversed range is what a user can still send.
      await assert.rejects(client.billing.charges({ from: 200, to: 100 }), (e) => isApiError(e, 'bad_request'));
    });
  });
});
