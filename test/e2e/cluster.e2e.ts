import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { overlayNetAvailable } from '../marketplace/overlayNet';
import { eventually } from '../support/eventually';
import { call, obj } from '../support/http';
import { expect } from './expect';
import { workbenchForSuite, type Workbench } from './workbench';

/**
 * A DDP script: a tiny model wrapped in DistributedDataParallel (gloo, on the CPU), a few training
 * steps, then an all-reduce of rank + 1 each second, printed with the world size on every rank.
 * Long enough to watch rank 0 and switch to rank 1, short enough for the test.
 */
const DDP_PY = [
  'import time',
  'import torch',
  'import torch.distributed as dist',
  'from torch.nn.parallel import DistributedDataParallel as DDP',
  '',
  "dist.init_process_group('gloo')",
  'rank, world = dist.get_rank(), dist.get_world_size()',
  'torch.manual_seed(0)',
  'model = DDP(torch.nn.Linear(4, 1))',
  'opt = torch.optim.SGD(model.parameters(), lr=0.1)',
  'for step in range(1, 21):',
  '    opt.zero_grad()',
  '    model(torch.ones(8, 4)).sum().backward()',
  '    opt.step()',
  '    t = torch.tensor([float(rank + 1)])',
  '    dist.all_reduce(t)',
  "    print(f'step {step}/20 rank={rank} world_size={world} sum={t.item():.0f}', flush=True)",
  '    time.sleep(1)',
  'dist.destroy_process_group()',
  "print(f'training done rank={rank}', flush=True)",
  '',
].join('\n');

interface ClusterOffer {
  id: number;
  cluster_id: number | null;
  gpu_name: string;
  num_gpus: number;
}

/** The seeded cluster of small machines (1 or 2 GPUs each): its id, and the GPUs of each machine. */
async function smallCluster(wb: Workbench): Promise<{ clusterId: number; gpus: number }> {
  const answer = await call(wb.sim, 'POST', '/api/v0/bundles/', {
    cluster_id: { neq: 'None' },
    rentable: { eq: true },
    type: 'on-demand',
    limit: 1000,
  });
  const offers = obj(answer).offers as ClusterOffer[];
  const groups = new Map<string, ClusterOffer[]>();
  for (const o of offers) {
    if (o.cluster_id === null || o.num_gpus > 2) continue;
    const key = `${o.cluster_id}/${o.gpu_name}/${o.num_gpus}`;
    groups.set(key, [...(groups.get(key) ?? []), o]);
  }
  const run = [...groups.values()].find((g) => g.length >= 4);
  assert.ok(run, 'the catalogue has a cluster of small machines');
  return { clusterId: run[0]!.cluster_id!, gpus: run[0]!.num_gpus };
}

/** The explorer's page: code-server puts a webview in an iframe, and its content in a frame inside that. */
function explorer(wb: Workbench): FrameLocator {
  return wb.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/** The text the terminal panel shows (the DOM renderer: gpuAcceleration is off in the e2e settings). */
function terminalText(wb: Workbench) {
  return wb.page.locator('.terminal-wrapper.active .xterm-rows');
}

/** The notification center's entries that show `text` (open it first with notificationInCenter). */
function centerItems(wb: Workbench, text: RegExp) {
  return wb.page.locator('.notifications-center .notification-list-item').filter({ hasText: text });
}

async function unfold(row: ReturnType<Workbench['rows']>): Promise<void> {
  const twistie = row.first().locator('.monaco-tl-twistie.collapsed');
  if (await twistie.count()) await twistie.click();
}

/** Real overlay networks need root and network namespaces; torchrun needs Debian's python3-torch. */
function clusterCapable(): boolean {
  if (!overlayNetAvailable()) return false;
  // The nodes run Debian's python3 (sshd's PATH), not a python3 a version manager puts first here.
  return spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore', timeout: 60_000 }).status === 0;
}

describe('clusters: find one, rent 2 nodes with one confirmation, train across them with torchrun, it stops itself, destroy', function () {
  this.timeout(600_000);
  before(function () {
    if (!clusterCapable()) this.skip();
  });
  const workbench = workbenchForSuite({
    settings: { 'gpuRental.remoteFolder': '/workspace' },
    prepare: (wb) => {
      writeFileSync(join(wb.folder, 'ddp.py'), DDP_PY);
      return Promise.resolve();
    },
  });
  let cluster: { clusterId: number; gpus: number };
  const label = 'e2e-train';

  it('finds the offers of one cluster in the Offer Explorer, grouped under one row', async () => {
    const wb = workbench();
    cluster = await smallCluster(wb);
    await expect(wb.rows('Offers').first(), 60_000).toBeVisible();
    await wb.titleAction('Offers', 'Open Offer Explorer');
    const ex = explorer(wb);
    await expect(ex.locator('.spacer .row[data-offer-id]').first(), 60_000).toBeVisible();
    const query = ex.locator('.raw-query input');
    await query.fill(`cluster_id=${cluster.clusterId}`);
    await query.press('Enter');
    await expect(wb.rows('Offers', `cluster_id=${cluster.clusterId}`), 30_000).toBeVisible();
    // The toggle is a web component that takes Space as a person's keyboard gives it.
    const toggle = ex.locator('vscode-checkbox[data-action=group-by-cluster]');
    const group = ex.locator(`#cluster-row-${cluster.clusterId}`);
    await eventually(
      async () => {
        if (await group.isVisible()) return true;
        if (!(await toggle.evaluate((el) => (el as HTMLElement & { checked: boolean }).checked))) {
          await toggle.focus();
          await toggle.press('Space');
        }
        return false;
      },
      'the explorer grouped by cluster',
      30_000,
    );
    await expect(group).toContainText(new RegExp(`cluster ${cluster.clusterId}: \\d+ machines × .*/h for all`));
    await wb.shot('e2e-cluster-search', true);
  });

  it('rents 2 nodes of it with one confirmation that lists every node and the total', async () => {
    const wb = workbench();
    const group = explorer(wb).locator(`#cluster-row-${cluster.clusterId}`);
    await group.locator('[data-action=rent-cluster]').click();
    await expect(wb.quickInput().getByText(/Between 2 and \d+/)).toBeVisible();
    await wb.quickInput().locator('input').fill('2');
    await wb.page.keyboard.press('Enter');
    await wb.pick('ubuntu:22.04');
    await expect(wb.quickInput().getByText(/Disk size in GB/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await wb.pick(/SSH/);
    await expect(wb.quickInput().getByText(/A label to recognise/)).toBeVisible();
    await wb.quickInput().locator('input').fill(label);
    await wb.page.keyboard.press('Enter');
    await wb.pick('No start-up script');
    await wb.pick(/Next: confirm all 2 nodes/);
    const dialog = wb.dialog();
    await expect(dialog.getByText(/Rent a cluster of 2 nodes for \$\d+\.\d+\/h in all\?/)).toBeVisible();
    await expect(dialog).toContainText(/Node 0: .*Node 1: /s);
    await expect(dialog).toContainText(/Total: \$\d+\.\d+\/h, about \$[\d,]+\.\d+ per day/);
    await wb.shot('e2e-cluster-confirm', true);
    await dialog.getByRole('button', { name: 'Rent Cluster' }).click();
    await expect(dialog).toBeHidden();
  });

  it('boots both nodes: one cluster row with its nodes under it, "2 of 2 running"', async () => {
    const wb = workbench();
    // The explorer closes, so the Instances view and the terminal have the room.
    await wb.runCommand('View: Close All Editors');
    const row = wb.rows('Instances', /2 of 2 running/).first();
    await expect(row, 120_000).toBeVisible();
    await unfold(row);
    await eventually(async () => (await wb.rows('Instances', /running/).count()) === 3, 'the cluster row and its 2 nodes running', 30_000);
    await wb.shot('e2e-cluster-running', true);
    // One notice for the cluster, none per node.
    await expect(
      await wb.notificationInCenter(/the cluster "e2e-train" is ready: 2 nodes run on its private network/),
      30_000,
    ).toBeVisible();
    assert.equal(await centerItems(wb, /e2e-train-node\d is running/).count(), 0, 'no notice per node');
    await wb.runCommand('Notifications: Hide Notifications');
  });

  it('runs ddp.py on the cluster with the torchrun preset: every rank all-reduces, rank 0 live', async () => {
    const wb = workbench();
    await wb.page.keyboard.press('Control+P');
    await wb.quickInput().locator('input').fill('ddp.py');
    await wb.pick('ddp.py');
    await wb.contextMenu(wb.rows('Instances', /2 of 2 running/).first(), 'Run on Cluster…');
    await wb.pick(/torchrun/);
    await expect(wb.quickInput().getByText(/The Python script every node runs/)).toBeVisible();
    assert.equal(await wb.quickInput().locator('input').inputValue(), 'ddp.py');
    await wb.page.keyboard.press('Enter');
    await wb.pick('Upload the workspace first');
    await wb.pick('Stop the cluster when the job ends');
    const world = 2 * cluster.gpus;
    const sum = (world * (world + 1)) / 2;
    const rank0 = terminalText(wb).getByText(new RegExp(`step 3/20 rank=0 world_size=${world} sum=${sum}`));
    // A fresh home has no SSH key: GPU Rental offers to make one (once for both nodes), as on a new
    // machine. Then the network check runs first; all simulated nodes share this machine's CPUs, so
    // its gloo all-reduce may come out below what nodes with data-centre GPUs need, and it says so
    // before anything starts: the person runs anyway.
    const createKey = wb.dialog().getByRole('button', { name: 'Create Key' });
    const runAnyway = wb.dialog().getByRole('button', { name: 'Run Anyway' });
    let keys = 0;
    await eventually(
      async () => {
        if (await rank0.isVisible()) return true;
        if (await createKey.isVisible()) {
          keys++;
          await createKey.click();
        } else if (await runAnyway.isVisible()) {
          await expect(wb.dialog()).toContainText(/node 0 ↔ node 1: [\d.]+ Gbit\/s; all-reduce across 2 nodes \(gloo\): [\d.]+ Gbit\/s/);
          await wb.shot('e2e-cluster-preflight', true);
          await runAnyway.click();
        }
        return false;
      },
      "rank 0's output",
      180_000,
    );
    assert.equal(keys, 1, 'one SSH key question for both nodes');
    await wb.shot('e2e-cluster-rank0', true);
  });

  it('switches to rank 1, whose output shows the same world size and sum', async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Switch Rank…');
    await wb.pick('Rank 1');
    const world = 2 * cluster.gpus;
    const sum = (world * (world + 1)) / 2;
    await expect(
      terminalText(wb)
        .getByText(new RegExp(`rank=${world - cluster.gpus} world_size=${world} sum=${sum}`))
        .first(),
      60_000,
    ).toBeVisible();
    await wb.shot('e2e-cluster-rank1', true);
  });

  it('sees the job end on every rank and the whole cluster stop by itself', async () => {
    const wb = workbench();
    await expect(
      terminalText(wb)
        .getByText(/training done/)
        .first(),
      120_000,
    ).toBeVisible();
    await expect(wb.rows('Instances', /0 of 2 running/).first(), 180_000).toBeVisible();
    await eventually(async () => (await wb.rows('Instances', /stopped/).count()) >= 2, 'both nodes stopped', 60_000);
    // One notice for the job's end and the cluster's stop, with what the disks still bill; none per node.
    const end = await wb.notificationInCenter(
      /finished on all 2 nodes of e2e-train, and the cluster stopped itself; its disks still bill \$\d+\.\d+\/h together/,
    );
    await expect(end, 60_000).toBeVisible();
    assert.equal(await centerItems(wb, /finished \(exit 0\) on #|was stopped by the job's end/).count(), 0, 'no notice per node');
    await wb.shot('e2e-cluster-stopped', true);
    await wb.runCommand('Notifications: Hide Notifications');
  });

  it('destroys the cluster with one confirmation: its nodes and its private network are gone, nothing bills', async () => {
    const wb = workbench();
    await wb.contextMenu(wb.rows('Instances', /0 of 2 running/).first(), 'Destroy Cluster…');
    await expect(wb.dialog()).toContainText(/Destroy the cluster/);
    await wb
      .dialog()
      .getByRole('button', { name: /Destroy/ })
      .first()
      .click();
    await expect(wb.rows('Instances', /running|stopped/), 90_000).toBeHidden();
    const overlays = (await call(wb.sim, 'GET', '/api/v0/overlay/')).json as unknown[];
    assert.deepEqual(overlays, [], 'no overlay network is left');
    const instances = obj(await call(wb.sim, 'GET', '/api/v0/instances/')).instances as unknown[];
    assert.deepEqual(instances, [], 'no instance is left');
    await expect(await wb.notificationInCenter(/destroyed/i), 30_000).toBeVisible();
    await wb.shot('e2e-cluster-destroyed', true);
    await wb.runCommand('Notifications: Hide Notifications');
  });
});
