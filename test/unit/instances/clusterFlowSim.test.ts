import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { groupClusters, type ClusterGroup } from '../../../src/core/instances/cluster';
import { clusterFlow, type ClusterEnd, type ClusterFlowDeps } from '../../../src/core/instances/clusterFlow';
import { nodeCandidates, nodeGroups } from '../../../src/core/rent/clusterPick';
import { clusterOffers } from '../../../src/core/rent/clusterService';
import type { FaultRuleInput } from '../../../test/marketplace/faults';
import { clientFor, DEMO_KEY, instanceIn, MemoryLogger, startSimulator, type Marketplace } from '../../support';
import { scriptedAsk } from '../../support/scriptedAsk';

/**
 * Stop and Destroy on a cluster row against the simulator: 3 nodes in one overlay network, a fault
 * on one node's request, and each node's truth in the notice, checked against what the simulator
 * holds afterwards. The flow runs over the real client (one attempt per request, as the fault is
 * meant to be met).
 */
describe('Stop and Destroy on a cluster row against the simulator: each node’s truth', function () {
  this.timeout(15_000);
  let sim: Marketplace;
  /** The 3 nodes' instance ids, in rank order. */
  let ids: number[];
  const client = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { maxAttempts: 1, timeoutMs: 2_000 }).client;
  const truth = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { maxAttempts: 4 }).client;

  /** Rents 3 machines of one seeded cluster into the overlay "train", as Rent Cluster would, and waits until they run. */
  beforeEach(async () => {
    sim = await startSimulator({ bootSeconds: 0.2 });
    const offers = await clusterOffers(() => truth());
    const group = [...new Set(offers.map((o) => o.cluster_id))]
      .flatMap((id) => (id == null ? [] : nodeGroups(offers.filter((o) => o.cluster_id === id))))
      .find((g) => g.offers.length >= 3);
    assert.ok(group, 'the seeded catalogue has a cluster with 3 machines of one model');
    const nodes = nodeCandidates(group.offers, { image: 'ubuntu:22.04', disk: 20, label: 'train', runtype: 'ssh_proxy' }).slice(0, 3);
    await truth().clusters.createOverlay({ clusterId: nodes[0]!.cluster_id!, name: 'train' });
    ids = [];
    for (const [rank, offer] of nodes.entries()) {
      const made = await truth().instances.create(offer.id, {
        image: 'ubuntu:22.04',
        disk: 20,
        label: `train-node${rank}`,
        env: { '-n train': '1' },
      });
      ids.push(made.instanceId);
    }
    for (const id of ids) await instanceIn(truth(), id, 'running');
  });

  afterEach(() => sim.stop());

  /** The cluster row as the Instances view groups it now. */
  async function row(): Promise<ClusterGroup> {
    const grouping = groupClusters(await truth().instances.list(), await truth().clusters.overlays());
    assert.equal(grouping.clusters.length, 1);
    const cluster = grouping.clusters[0]!;
    assert.deepEqual(
      cluster.nodes.map((i) => i.id),
      ids,
      'the 3 nodes, in rank order',
    );
    return cluster;
  }

  function deps() {
    const ask = scriptedAsk([{ confirm: true }]);
    const after: string[] = [];
    const flow: ClusterFlowDeps = {
      ask,
      instances: client().instances,
      spend: async () => true,
      after: {
        track: (id) => void after.push(`track ${id}`),
        watch: (id) => void after.push(`watch ${id}`),
        refresh: async () => void after.push('refresh'),
        forget: async (id) => void after.push(`forget ${id}`),
      },
      logger: new MemoryLogger(),
      overlays: client().clusters,
    };
    return { flow, ask, after };
  }

  const fault = (rule: FaultRuleInput) => sim.control.addFault(rule);
  const nodePath = (rank: number) => `/api/v0/instances/${ids[rank]}/`;
  /** What the end says of each node, in rank order: done, notDone, unknown or refused. */
  const truths = (end: ClusterEnd) => {
    if (end.kind !== 'acted') return assert.fail(`the flow ended ${end.kind}`);
    return ids.map((id) => {
      const o = end.outcomes.find((x) => x.instance.id === id);
      return o === undefined ? 'untouched' : 'refused' in o ? 'refused' : o.result.kind;
    });
  };
  /** Each node's phase as the simulator holds it; "gone" when the account no longer has it. */
  const held = () => ids.map((id) => sim.control.state().instances.find((i) => i.id === id)?.phase ?? 'gone');
  const notice = (end: ClusterEnd) => (end.kind === 'acted' ? end.notice : assert.fail(end.kind));

  it('Stop with one node refused: the others stop, the refused one is named and still runs', async () => {
    const d = deps();
    fault({ kind: 'refused', method: 'PUT', path: nodePath(1), msg: 'the host is busy' });
    const end = await clusterFlow(d.flow, 'stop', await row());
    assert.equal(d.ask.asked[0]!.text, 'Stop the cluster "train"?');
    assert.deepEqual(truths(end), ['done', 'refused', 'done']);
    assert.deepEqual(held(), ['stopped', 'running', 'stopped'], 'the simulator agrees, node by node');
    const { text, severity, actions } = notice(end);
    assert.equal(severity, 'warning');
    assert.deepEqual(actions, ['refresh']);
    assert.match(text, /^GPU Rental: 2 stopping; 1 failed \("train-node1" \([^)]*#\d+\): .*the host is busy/);
    assert.doesNotMatch(text, /train-node[02]/, 'only the node that did not stop is named');
    assert.deepEqual(d.after.sort(), [`watch ${ids[0]}`, `watch ${ids[2]}`, 'refresh'].sort(), 'only the nodes seen stopping are watched');
    assert.equal((await truth().clusters.overlays()).length, 1, 'a stop leaves the network');
  });

  it('Stop whose answer is lost after the service stopped the node, and a second look fails: that node is unknown, never "not stopped"', async () => {
    const d = deps();
    fault({ kind: 'reset', method: 'PUT', phase: 'after', path: nodePath(1) });
    fault({ kind: 'reset', method: 'GET', path: nodePath(1) });
    const end = await clusterFlow(d.flow, 'stop', await row());
    assert.deepEqual(truths(end), ['done', 'unknown', 'done']);
    assert.deepEqual(held(), ['stopped', 'stopped', 'stopped'], 'the service did stop it: unknown was the honest word');
    const { text, severity } = notice(end);
    assert.equal(severity, 'warning');
    assert.match(
      text,
      /^GPU Rental: 2 stopping; 1 unknown \("train-node1" \([^)]*#\d+\): neither the answer nor a second look came back, so it may still bill\)/,
    );
  });

  it('Stop whose answer is lost but a second look sees the node stopped: it is reported stopping, as the simulator holds it', async () => {
    const d = deps();
    fault({ kind: 'reset', method: 'PUT', phase: 'after', path: nodePath(1) });
    const end = await clusterFlow(d.flow, 'stop', await row());
    assert.deepEqual(truths(end), ['done', 'done', 'done']);
    assert.deepEqual(held(), ['stopped', 'stopped', 'stopped']);
    if (end.kind !== 'acted') return;
    const lost = end.outcomes.find((o) => o.instance.id === ids[1])!;
    assert.ok('result' in lost);
    assert.match(lost.result.message, /the answer was not seen \(the connection broke\), but the instance shows as (stopped|stopping)/);
    assert.match(notice(end).text, /^GPU Rental: 3 stopping\./);
  });

  it('Destroy with one node refused: the others are destroyed, the refused one is named, and the network is kept and said so', async () => {
    const d = deps();
    fault({ kind: 'refused', method: 'DELETE', path: nodePath(2), msg: 'the host is busy' });
    const end = await clusterFlow(d.flow, 'destroy', await row());
    assert.equal(d.ask.asked[0]!.text, 'Destroy the cluster "train"?');
    assert.deepEqual(truths(end), ['done', 'done', 'refused']);
    assert.deepEqual(held(), ['gone', 'gone', 'running'], 'the simulator agrees, node by node');
    if (end.kind !== 'acted') return;
    assert.equal(end.overlay, 'kept');
    const { text, severity } = end.notice;
    assert.equal(severity, 'warning');
    assert.match(text, /^GPU Rental: 2 destroyed; 1 failed \("train-node2" \([^)]*#\d+\): .*the host is busy/);
    assert.match(text, /Its overlay network "train" is kept while a node may still be in it\.$/);
    const overlays = await truth().clusters.overlays();
    assert.deepEqual(
      overlays.map((o) => [o.name, o.instances]),
      [['train', [ids[2]]]],
      'the network is there, with the node that was not destroyed',
    );
  });

  it('Destroy with no fault destroys every node, then deletes the network', async () => {
    const d = deps();
    const end = await clusterFlow(d.flow, 'destroy', await row());
    assert.deepEqual(truths(end), ['done', 'done', 'done']);
    assert.deepEqual(held(), ['gone', 'gone', 'gone']);
    if (end.kind !== 'acted') return;
    assert.equal(end.overlay, 'deleted');
    assert.match(end.notice.text, /^GPU Rental: 3 destroyed\. Its overlay network "train" is deleted\.$/);
    assert.deepEqual(await truth().clusters.overlays(), []);
  });
});
