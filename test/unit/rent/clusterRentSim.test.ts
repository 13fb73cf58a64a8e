import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import type { Offer } from '../../../src/core/api/offers';
import { creditOf } from '../../../src/core/account/funds';
import { InstancePoller } from '../../../src/core/instances/poller';
import type { ClusterRentEnd } from '../../../src/core/rent/clusterEnd';
import { nodeCandidates, nodeGroups } from '../../../src/core/rent/clusterPick';
import { clusterRenter } from '../../../src/core/rent/clusterPorts';
import { rentClusterFlow, type ClusterGiven, type ClusterRentDeps } from '../../../src/core/rent/clusterRent';
import { bootOf, clusterOffers, destroyNode, overlayPort } from '../../../src/core/rent/clusterService';
import type { RentPlan } from '../../../src/core/rent/plan';
import type { FaultRuleInput } from '../../../test/marketplace/faults';
import { clientFor, DEMO_KEY, MemoryLogger, startSimulator, type Marketplace } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { accountAt, renterFor } from './kit';

/**
 * Rent Cluster's promises against the simulator, not against fakes: the real client, renter,
 * journal, poller and service ports (src/core/rent/clusterService.ts), and a scripted user. Each
 * fault the simulator injects is met by the flow, and the account is then read from the simulator
 * itself: every instance it holds is a node the end reports rented (or unknown, and named), no node
 * reported destroyed is still there, and the private network exists exactly when nodes were kept.
 */
const PLAN: RentPlan = { image: 'pytorch/pytorch:latest', disk: 50, runtype: 'ssh_proxy', label: 'train', idleStopMinutes: 0 };
/** A node may take this long to run before its boot is called failed (the simulator boots in 0.2 s). */
const BOOT_TIMEOUT_MS = 4_000;

interface SimKit {
  deps: ClusterRentDeps;
  ask: ReturnType<typeof scriptedAsk>;
  journal: ReturnType<typeof renterFor>['journal'];
  /** Texts the flow told the progress notification, in order. */
  progress: string[];
}

describe('rent cluster against the simulator: faults leave no unseen node', function () {
  this.timeout(15_000);
  let sim: Marketplace;
  let poller: InstancePoller;
  /** The cluster the catalogue (seed 1) has with the most machines of one model: the 3 nodes and spares to replace one. */
  let cluster: ClusterGiven['cluster'];
  /** The 3 offers the flow rents, in rank order (the cheapest for the plan's disk). */
  let planned: Offer[];
  /** The extension's client: one attempt per request, as a fault is meant to be met. */
  const client = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { maxAttempts: 1, timeoutMs: 2_000 }).client;
  /** The account as the service keeps it, read past any fault. */
  const truth = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { maxAttempts: 4 }).client;

  beforeEach(async () => {
    sim = await startSimulator({ bootSeconds: 0.2 });
    const offers = await clusterOffers(() => truth());
    const biggest = [...new Set(offers.map((o) => o.cluster_id).filter((id): id is number => typeof id === 'number'))]
      .map((clusterId) => ({ clusterId, groups: nodeGroups(offers.filter((o) => o.cluster_id === clusterId)) }))
      .filter((c) => c.groups.length === 1 && c.groups[0]!.offers.length >= 4)
      .sort((a, b) => b.groups[0]!.offers.length - a.groups[0]!.offers.length || a.clusterId - b.clusterId)[0];
    assert.ok(biggest, 'the seeded catalogue has a cluster of one GPU model with 4 machines or more');
    cluster = { clusterId: biggest.clusterId, offers: offers.filter((o) => o.cluster_id === biggest.clusterId) };
    planned = nodeCandidates(biggest.groups[0]!.offers, PLAN).slice(0, 3);
    poller = new InstancePoller({
      fetch: (signal) => client().instances.listInOneRequest({ signal, retry: 'never' }),
      intervalMs: () => 50,
      logger: new MemoryLogger(),
    });
    poller.setEnabled(true);
  });

  afterEach(async () => {
    poller.dispose();
    await sim.stop();
  });

  function kit(answers: readonly Answer[], onProgress: (text: string) => void = () => {}): SimKit {
    const { renter, journal } = renterFor({ lookDelaysMs: [0, 50, 100] });
    const ask = scriptedAsk(answers);
    const progress: string[] = [];
    const deps: ClusterRentDeps = {
      ask,
      renter: clusterRenter(renter),
      overlays: overlayPort(client),
      boot: (id) => bootOf(poller, id, BOOT_TIMEOUT_MS),
      destroy: (id) => destroyNode(client, poller, id),
      clusterOffers: (id) => clusterOffers(client, id),
      allowsSpend: async () => true,
      unsettled: () => journal.entries(),
      credit: async () => creditOf(await truth().account.currentUser()),
      plan: async () => assert.fail('the plan is given'),
      idle: { enabled: false, minutes: 30, gpuThreshold: 5 },
      baseUrl: sim.url,
      account: () => accountAt(sim.url),
      progress: (text) => {
        progress.push(text);
        onProgress(text);
      },
    };
    return { deps, ask, journal, progress };
  }

  /** Automation's rent of 3 nodes of the cluster: only the confirmation is asked, then any failure question. */
  const rent = (k: SimKit) => rentClusterFlow(k.deps, { cluster, count: 3, plan: PLAN });

  /** The account's instances as the simulator holds them. */
  const held = () => sim.control.state().instances.filter((i) => i.account_id === sim.accountId);

  /**
   * What a user relies on, read from the simulator: every instance the account holds is a node the
   * end reports rented, or unknown and named in the notice; every node reported rented is held;
   * none reported destroyed is; no offer was rented twice; no rent is left unsettled; and the
   * private network exists exactly when nodes were kept, holding those nodes.
   */
  async function assertTruth(end: ClusterRentEnd, k: SimKit): Promise<void> {
    const instances = held();
    const heldIds = instances.map((i) => i.id).sort((a, b) => a - b);
    const reported = (state: string) => end.nodes.filter((n) => n.state === state).map((n) => n.instanceId!);
    for (const id of heldIds) {
      const node = end.nodes.find((n) => n.instanceId === id);
      assert.ok(node, `instance #${id} is on the account but the end names no node for it`);
      assert.ok(node.state === 'rented' || node.state === 'unknown', `#${id} is on the account but reported ${node.state}`);
      if (node.state === 'unknown') assert.match(end.notice.text, new RegExp(`#${id}\\b`), `the unknown #${id} is named`);
    }
    for (const id of reported('rented')) assert.ok(heldIds.includes(id), `#${id} is reported rented but the account has no such instance`);
    for (const id of reported('destroyed')) assert.ok(!heldIds.includes(id), `#${id} is reported destroyed but is still on the account`);
    const perOffer = new Map<number, number>();
    for (const i of instances) perOffer.set(i.offer_id, (perOffer.get(i.offer_id) ?? 0) + 1);
    assert.ok(
      [...perOffer.values()].every((n) => n === 1),
      'no offer was rented twice',
    );
    assert.deepEqual(k.journal.entries(), [], 'no rent is left unsettled');
    const overlays = await truth().clusters.overlays();
    const billing = end.nodes.some((n) => n.state === 'rented' || n.state === 'unknown');
    if (end.kind === 'complete' || end.kind === 'kept') assert.ok(billing, 'a kept cluster has nodes');
    if (billing) {
      assert.equal(overlays.length, 1, 'the nodes left keep their private network');
      assert.equal(overlays[0]!.name, end.network?.name);
      assert.deepEqual(
        [...(overlays[0]!.instances ?? [])].sort((a, b) => a - b),
        heldIds,
        'every node left is in it',
      );
    } else {
      assert.deepEqual(overlays, [], 'no private network is left without nodes');
    }
  }

  const states = (end: ClusterRentEnd) => end.nodes.map((n) => `${n.rank}:${n.state}`);
  const offerPath = (offer: Offer) => `/api/v0/asks/${offer.id}/`;
  const fault = (rule: FaultRuleInput) => sim.control.addFault(rule);

  describe('a node whose offer is taken meanwhile', () => {
    const taken = () => fault({ kind: 'offer_taken', path: offerPath(planned[2]!) });

    it('Replace Node rents another machine of the same cluster, and the cluster is complete', async () => {
      const k = kit([{ confirm: true }, { choose: 'Replace Node' }]);
      taken();
      const end = (await rent(k))!;
      assert.equal(k.ask.asked[1]!.text, 'GPU Rental: node 2 of the cluster "train" failed: the offer was taken before the rent landed.');
      assert.equal(end.kind, 'complete');
      assert.deepEqual(states(end), ['0:rented', '1:rented', '2:failed', '2:rented']);
      const replacement = end.nodes[3]!.offer;
      assert.equal(replacement.cluster_id, cluster.clusterId, 'the replacement is of the same cluster');
      assert.ok(!planned.some((o) => o.machine_id === replacement.machine_id), 'on a machine not rented yet');
      assert.match(end.notice.text, /^GPU Rental: the cluster "train" is ready: 3 nodes run on its private network/);
      assert.match(end.notice.text, /Node 2 on .* was not rented: the offer was taken before the rent landed\./);
      await assertTruth(end, k);
    });

    it('Keep the Others stops renting, keeps the private network, and says it kept 2 of the 3 nodes', async () => {
      const k = kit([{ confirm: true }, { choose: 'Keep the Others' }]);
      taken();
      const end = (await rent(k))!;
      assert.equal(end.kind, 'kept');
      assert.deepEqual(states(end), ['0:rented', '1:rented', '2:failed']);
      assert.match(
        end.notice.text,
        /^GPU Rental: kept 2 of the 3 nodes of the cluster "train", as you chose; they bill \$[\d.]+\/h in all\./,
      );
      assert.match(end.notice.text, new RegExp(`Node 0 is instance #${end.nodes[0]!.instanceId} at`));
      assert.deepEqual(end.notice.actions, ['showInstances']);
      await assertTruth(end, k);
    });

    it('Destroy All destroys the nodes rented and deletes the private network', async () => {
      const k = kit([{ confirm: true }, { choose: 'Destroy All' }]);
      taken();
      const end = (await rent(k))!;
      assert.equal(end.kind, 'destroyed');
      assert.deepEqual(states(end), ['0:destroyed', '1:destroyed', '2:failed']);
      assert.match(end.notice.text, /^GPU Rental: the cluster "train" was not rented, as you chose\. Nothing of it bills\./);
      assert.match(end.notice.text, /The private network "train" was deleted\.$/);
      assert.deepEqual(held(), []);
      await assertTruth(end, k);
    });

    it('Destroy All with one destroy refused: that node is named as still rented, and the private network kept for it', async () => {
      const k = kit([{ confirm: true }, { choose: 'Destroy All' }]);
      taken();
      // The first destroy the service receives is refused; the other goes through.
      fault({ kind: 'refused', method: 'DELETE', path: '^/api/v0/instances/\\d+', msg: 'the host is busy' });
      const end = (await rent(k))!;
      assert.equal(end.kind, 'destroyed');
      const left = end.nodes.filter((n) => n.state === 'rented');
      assert.equal(left.length, 1, 'the node whose destroy was refused is still rented');
      assert.deepEqual(end.nodes.filter((n) => n.state === 'destroyed').length + left.length, 2);
      assert.match(end.notice.text, /^GPU Rental: the cluster "train" was given up, as you chose, but not all of it is gone\./);
      assert.match(
        end.notice.text,
        new RegExp(`Node ${left[0]!.rank} \\(instance #${left[0]!.instanceId}\\) is still rented at \\$[\\d.]+/h: .*the host is busy`),
      );
      assert.match(end.notice.text, /The private network "train" was kept, because a node may still be in it\.$/);
      assert.deepEqual(
        held().map((i) => i.id),
        [left[0]!.instanceId],
      );
      await assertTruth(end, k);
    });

    it('closing the failure question destroys the nodes and deletes the private network: no half-cluster bills unchosen', async () => {
      const k = kit([{ confirm: true }, { choose: undefined }]);
      taken();
      const end = (await rent(k))!;
      assert.match(k.ask.asked[1]!.detail, /Closing this question destroys them\./);
      assert.equal(end.kind, 'destroyed');
      assert.deepEqual(states(end), ['0:destroyed', '1:destroyed', '2:failed']);
      assert.match(end.notice.text, /The private network "train" was deleted\.$/);
      assert.deepEqual(held(), []);
      await assertTruth(end, k);
    });
  });

  describe('a node that fails to boot', () => {
    /** The second instance created never runs: the fault is added as the flow first starts to rent node 1. */
    const failSecondBoot = () => {
      let added = false;
      return (text: string) => {
        if (added || !text.startsWith('Renting node 1:')) return;
        added = true;
        fault({ kind: 'boot_failure', status: 'exited' });
      };
    };

    it('Replace Node destroys it and rents another machine of the cluster, whose boot is watched', async () => {
      const k = kit([{ confirm: true }, { choose: 'Replace Node' }], failSecondBoot());
      const end = (await rent(k))!;
      assert.match(
        k.ask.asked[1]!.text,
        /^GPU Rental: node 1 of the cluster "train" failed: it failed to boot \(the service reports it failed\)\.$/,
      );
      const failed = end.nodes[1]!;
      assert.match(
        k.ask.asked[1]!.detail,
        new RegExp(`^Its instance #${failed.instanceId} bills \\$[\\d.]+/h and is destroyed whatever you choose\\.`),
      );
      assert.equal(end.kind, 'complete');
      assert.deepEqual(states(end), ['0:rented', '1:destroyed', '2:rented', '1:rented']);
      assert.match(end.notice.text, new RegExp(`Node 1 \\(instance #${failed.instanceId}\\) was destroyed: it failed to boot`));
      await assertTruth(end, k);
    });

    it('Keep the Others destroys it and keeps the other 2 nodes in their private network', async () => {
      const k = kit([{ confirm: true }, { choose: 'Keep the Others' }], failSecondBoot());
      const end = (await rent(k))!;
      assert.equal(end.kind, 'kept');
      assert.deepEqual(states(end), ['0:rented', '1:destroyed', '2:rented']);
      assert.match(end.notice.text, /^GPU Rental: kept 2 of the 3 nodes of the cluster "train", as you chose/);
      assert.match(end.notice.text, new RegExp(`Node 1 \\(instance #${end.nodes[1]!.instanceId}\\) was destroyed: it failed to boot`));
      await assertTruth(end, k);
    });
  });

  it('a refused private network: nothing is rented and no network is left', async () => {
    const k = kit([{ confirm: true }]);
    fault({ kind: 'refused', method: 'POST', path: '/api/v0/overlay/', error: 'overlay_failed', msg: 'overlays are paused' });
    const end = (await rent(k))!;
    assert.equal(end.kind, 'refused');
    assert.deepEqual(end.nodes, []);
    assert.match(
      end.notice.text,
      new RegExp(
        `^GPU Rental: not rented: the service refused to create the private network "train" for cluster ${cluster.clusterId} \\(.*overlays are paused.*\\)\\. No node was rented and nothing is billed\\.$`,
      ),
    );
    assert.deepEqual(held(), []);
    await assertTruth(end, k);
  });

  describe("a node's create whose answer is lost after the service rented it", () => {
    for (const [name, rule] of [
      ['the connection reset', { kind: 'reset', method: 'PUT', phase: 'after' }],
      ['a 502 from a gateway', { kind: 'server_error', status: 502, method: 'PUT', phase: 'after' }],
    ] as const) {
      it(`${name}: the outcome is settled from the account, never by renting again`, async () => {
        const k = kit([{ confirm: true }]);
        fault({ ...rule, path: offerPath(planned[1]!) });
        const end = (await rent(k))!;
        assert.ok(
          k.progress.includes('The answer for node 1 was lost: checking your account for it'),
          'the flow said it checks the account',
        );
        assert.equal(end.kind, 'complete');
        assert.deepEqual(states(end), ['0:rented', '1:rented', '2:rented']);
        assert.deepEqual(
          held()
            .filter((i) => i.offer_id === planned[1]!.id)
            .map((i) => i.id),
          [end.nodes[1]!.instanceId],
          'the account holds exactly one instance for that offer, the one the end names',
        );
        assert.equal(sim.control.faults().length, 0, 'the fault met the create');
        await assertTruth(end, k);
      });
    }
  });
});
