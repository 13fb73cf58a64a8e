import assert from 'node:assert/strict';
import fc from 'fast-check';
import { clusterConfirmation, clusterQuote } from '../../../src/core/rent/clusterConfirmation';
import { chooseNodes, nodeEnv, nodeGroups, OVERLAY_NAME, overlayName } from '../../../src/core/rent/clusterPick';
import { rentClusterFlow, type ClusterGiven } from '../../../src/core/rent/clusterRent';
import { scriptedAsk } from '../../support/scriptedAsk';
import { assertNoUnseenNode, clusterKit, node, PLAN } from './clusterKit';

const CLUSTER = 4812;
/** Four H100 machines (one listed twice) and two A100 machines of one cluster. */
const H100 = [node(11, 1, 2.0), node(12, 2, 2.1), node(13, 3, 2.2), node(14, 4, 2.5)];
const OFFERS = [...H100, node(15, 1, 2.05), node(21, 5, 1.0, 'A100'), node(22, 6, 1.1, 'A100')];
const cluster = (offers = OFFERS): ClusterGiven['cluster'] => ({ clusterId: CLUSTER, offers });
/** Automation's rent of 3 H100 nodes: nothing asked but the confirmation. */
const three: ClusterGiven = { cluster: cluster(), startedFrom: H100[0], count: 3, plan: PLAN };

describe('rent cluster: which nodes', () => {
  it('groups the machines by GPU model and count, one offer per machine, cheapest first', () => {
    const groups = nodeGroups(OFFERS);
    assert.deepEqual(
      groups.map((g) => [g.gpuName, g.offers.map((o) => o.id)]),
      [
        ['H100 SXM', [11, 12, 13, 14]],
        ['A100', [21, 22]],
      ],
    );
  });

  it('refuses a cluster with fewer than 2 machines of one model, before asking anything', async () => {
    const ask = scriptedAsk([]);
    const result = await chooseNodes(ask, cluster([node(11, 1, 2), node(12, 1, 2.1), node(21, 5, 1, 'A100')]));
    assert.ok(result && 'refusal' in result);
    assert.match(result.refusal, /^GPU Rental: not rented: cluster 4812 has fewer than 2 machines of one GPU model/);
    assert.equal(ask.asked.length, 0);
  });

  it('asks the model when several have 2 machines (the one started from first), then how many, from 2 to the machines', async () => {
    const ask = scriptedAsk([{ pick: 'A100' }, { input: '2' }]);
    const result = await chooseNodes(ask, cluster(), { startedFrom: OFFERS[5] });
    assert.ok(result && !('refusal' in result));
    assert.deepEqual([result.group.gpuName, result.count], ['A100', 2]);
    assert.deepEqual(ask.asked[0]!.options, ['A100 ×8', 'H100 SXM ×8']);
    assert.match(ask.asked[1]!.text, /^Between 2 and 2:/);
    const tooMany = scriptedAsk([{ pick: 'H100' }, { input: '5' }]);
    await assert.rejects(chooseNodes(tooMany, cluster()), /refuses "5": Enter a whole number between 2 and 4/);
  });
});

describe('rent cluster: the confirmation', () => {
  it('lists every node with its $/h (GPU + disk), then the total per hour and per day, and the credit after a day', () => {
    const quote = clusterQuote(H100.slice(0, 3), 100, 1_000);
    const c = clusterConfirmation({ quote, clusterId: CLUSTER, network: 'train', disk: 100, credit: 1_000 });
    assert.equal(c.title, 'Rent a cluster of 3 nodes for $6.60/h in all?');
    assert.match(c.detail, /^Node 0: H100 SXM ×8 at \$2\.10\/h \(GPU \$2\.00\/h \+ disk \$0\.100\/h\)\. /);
    assert.match(c.detail, /Node 2: H100 SXM ×8 at \$2\.30\/h \(GPU \$2\.20\/h \+ disk \$0\.100\/h\)\. /);
    assert.match(c.detail, /Total: \$6\.60\/h, about \$158\.40 per day\. Credit after a day: \$841\.60 \(now \$1000\.00\)\./);
    assert.match(c.detail, /private network "train" of cluster 4812/);
    assert.deepEqual(
      c.rows.map((r) => r.label),
      [
        '$(rocket) Rent 3 nodes for $6.60/h',
        '',
        'Node 0: $2.10/h',
        'Node 1: $2.20/h',
        'Node 2: $2.30/h',
        'Credit after a day: $841.60',
        '$(type-hierarchy) Private network "train"',
      ],
    );
    assert.equal(c.rows[0]!.value, 'rent');
  });

  it('checks the spend cap against the total, and sends nothing when it refuses', async () => {
    const kit = clusterKit(OFFERS, [], { allowsSpend: async (perHour) => (kit.spend.push(perHour), false) });
    assert.equal(await rentClusterFlow(kit.deps, three), undefined);
    assert.equal(kit.spend.length, 1);
    assert.ok(Math.abs(kit.spend[0]! - 6.6) < 1e-9, 'the total of the 3 nodes, not one node');
    assert.deepEqual(kit.overlays.created, []);
    assert.deepEqual(kit.service.creates, []);
  });

  it('refuses before asking when the credit cannot cover an hour of the whole cluster', async () => {
    const kit = clusterKit(OFFERS, [], { credit: async () => 5 });
    const end = await rentClusterFlow(kit.deps, three);
    assert.match(end!.notice.text, /^GPU Rental: not rented\. The 3 nodes cost \$6\.60\/h together and the credit left is \$5\.00/);
    assert.deepEqual(kit.service.creates, []);
  });
});

describe('rent cluster: the nodes', () => {
  it('creates the overlay, then rents each node into it through the journal, and waits for every boot', async () => {
    const kit = clusterKit(OFFERS, [{ pick: 'H100' }, { input: '3' }, { confirm: true }]);
    kit.overlays.list = [{ overlay_id: 1, name: 'train', cluster_id: 9 }];
    const end = (await rentClusterFlow(kit.deps, { cluster: cluster() }))!;
    assert.deepEqual(kit.overlays.created, [{ clusterId: CLUSTER, name: 'train-2' }], 'a name the account does not have yet');
    assert.deepEqual(
      kit.service.creates.map((c) => [c.offerId, c.request.label, c.request.env]),
      [11, 12, 13].map((id, rank) => [id, `train-node${rank}`, { '-n train-2': '1' }]),
    );
    assert.equal(end.kind, 'complete');
    assert.equal(kit.booted.length, 3);
    assert.match(
      end.notice.text,
      /^GPU Rental: the cluster "train" is ready: 3 nodes run on its private network and bill \$6\.60\/h in all\.$/,
    );
    assert.deepEqual(end.notice.actions, ['showInstances']);
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('a node taken meanwhile: Replace rents another machine of the same cluster and model, its price said first', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }, { choose: 'Replace Node' }]);
    kit.service.faults.set(12, 'taken');
    const end = (await rentClusterFlow(kit.deps, three))!;
    const question = kit.ask.asked[1]!;
    assert.equal(question.text, 'GPU Rental: node 1 of the cluster "train" failed: the offer was taken before the rent landed.');
    assert.match(
      question.detail,
      /rents H100 SXM ×8 from the same cluster for \$2\.60\/h instead; the cluster would cost \$7\.00\/h in all/,
    );
    assert.deepEqual(question.options, ['Replace Node', 'Keep the Others', 'Destroy All']);
    assert.deepEqual(
      kit.service.creates.map((c) => [c.offerId, c.request.label]),
      [
        [11, 'train-node0'],
        [12, 'train-node1'],
        [14, 'train-node1'],
        [13, 'train-node2'],
      ],
      'the A100 machines and the H100 machine already planned are never the replacement',
    );
    assert.ok(Math.abs(kit.spend.at(-1)! - 7.0) < 1e-9, 'the spend cap saw the new total');
    assert.equal(end.kind, 'complete');
    assert.match(end.notice.text, /Node 1 on H100 SXM ×8 was not rented: the offer was taken before the rent landed\./);
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('a refused node: Keep the Others stops renting and says what it kept', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }, { choose: 'Keep the Others' }]);
    kit.service.faults.set(13, 'refused');
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.equal(end.kind, 'kept');
    assert.deepEqual(
      kit.service.creates.map((c) => c.offerId),
      [11, 12, 13],
    );
    assert.equal(end.notice.severity, 'warning');
    assert.match(end.notice.text, /^GPU Rental: kept 2 of the 3 nodes of the cluster "train", as you chose; they bill \$4\.30\/h in all\./);
    assert.match(end.notice.text, /Node 2 on H100 SXM ×8 was not rented: the service refused the rent \(.*the host refused the image/);
    assert.equal(kit.overlays.deleted.length, 0, 'the kept nodes keep their network');
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('an answer lost after the instance was made is settled from the account, never rented again', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }]);
    kit.service.faults.set(12, 'lostMade');
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.deepEqual(
      kit.service.creates.map((c) => c.offerId),
      [11, 12, 13],
      'one create per node',
    );
    assert.equal(end.kind, 'complete');
    assert.equal(end.nodes[1]!.state, 'rented');
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('an answer lost and nothing made: named once the account shows it, then Destroy All destroys what was rented and the overlay', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }, { choose: 'Destroy All' }]);
    kit.service.faults.set(12, 'lostNotMade');
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.match(kit.ask.asked[1]!.text, /node 1 .* failed: the answer was lost, and your account shows the rent did not go through\.$/);
    assert.equal(end.kind, 'destroyed');
    assert.deepEqual(kit.service.destroyed, [end.nodes[0]!.instanceId]);
    assert.deepEqual(kit.overlays.deleted, ['train']);
    assert.deepEqual(
      end.nodes.map((n) => n.state),
      ['destroyed', 'failed'],
    );
    assert.match(end.notice.text, /The private network "train" was deleted\.$/);
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('closing the failure question destroys the nodes: no half-cluster bills that was not chosen', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }, { choose: undefined }]);
    kit.service.faults.set(13, 'taken');
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.match(kit.ask.asked[1]!.detail, /Closing this question destroys them\./);
    assert.equal(end.kind, 'destroyed');
    assert.deepEqual(kit.service.instances, []);
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('a node that fails to boot: Replace destroys it and rents another machine of the cluster, whose boot is watched', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }, { choose: 'Replace Node' }]);
    kit.bootFails.add(11);
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.match(kit.ask.asked[1]!.text, /node 0 .* failed: it failed to boot \(the image could not be pulled\)\.$/);
    assert.match(kit.ask.asked[1]!.detail, /^Its instance #500 bills \$2\.10\/h and is destroyed whatever you choose\./);
    assert.deepEqual(kit.service.destroyed, [500]);
    assert.deepEqual(kit.service.creates.at(-1)!.offerId, 14);
    assert.equal(kit.booted.length, 4);
    assert.equal(end.kind, 'complete');
    assert.deepEqual(
      end.nodes.map((n) => [n.rank, n.state]),
      [
        [0, 'destroyed'],
        [1, 'rented'],
        [2, 'rented'],
        [0, 'rented'],
      ],
    );
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('a node that fails to boot: Keep the Others destroys it and keeps the rest', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }, { choose: 'Keep the Others' }]);
    kit.bootFails.add(13);
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.equal(end.kind, 'kept');
    assert.match(end.notice.text, /kept 2 of the 3 nodes/);
    assert.match(end.notice.text, /Node 2 \(instance #502\) was destroyed: it failed to boot \(the image could not be pulled\)\./);
    assertNoUnseenNode(end, kit.service, kit.journal);
  });

  it('a destroy whose outcome is unknown leaves the node named, and the overlay kept', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }, { choose: 'Destroy All' }], {
      destroy: async (id) => ({ kind: 'unknown', message: `it is not known whether GPU Rental destroyed #${id}.` }),
    });
    kit.service.faults.set(12, 'taken');
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.equal(end.notice.severity, 'error');
    assert.match(
      end.notice.text,
      /Node 0 \(instance #500\) may still exist and bill: it is not known whether .* Look at it in the Instances view\./,
    );
    assert.match(end.notice.text, /The private network "train" was kept, because a node may still be in it\./);
    assert.deepEqual(kit.overlays.deleted, []);
    assert.deepEqual(end.notice.actions, ['showInstances', 'showLogs']);
  });
});

describe('rent cluster: the overlay', () => {
  it('a refused overlay create stops before any rent', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }]);
    kit.overlays.createAnswer = { kind: 'refused', message: 'name taken' };
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.match(
      end.notice.text,
      /^GPU Rental: not rented: the service refused to create the private network "train" for cluster 4812 \(name taken\)\. No node was rented/,
    );
    assert.deepEqual(kit.service.creates, []);
  });

  it('an unseen overlay create is checked in the list: found, the nodes are rented into it', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }]);
    kit.overlays.createAnswer = { kind: 'unknown', message: 'timed out' };
    kit.overlays.existsAfterLoss = true;
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.equal(end.kind, 'complete');
    assert.equal(end.network?.overlayId, 77);
    assert.equal(kit.overlays.created.length, 1, 'never created twice');
  });

  it('an unseen overlay create that the list does not show stops before any rent, and says so', async () => {
    const kit = clusterKit(OFFERS, [{ confirm: true }]);
    kit.overlays.createAnswer = { kind: 'unknown', message: 'timed out' };
    const end = (await rentClusterFlow(kit.deps, three))!;
    assert.match(
      end.notice.text,
      /the answer to creating the private network "train" was lost \(timed out\), and the service does not list it/,
    );
    assert.deepEqual(kit.service.creates, []);
    assert.equal(kit.overlays.created.length, 1);
  });

  it('names the overlay with [a-z0-9-] only, from any label, never one the account has', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }), (label, taken) => {
        const names = [overlayName(label), ...taken.map((t) => overlayName(t))];
        const name = overlayName(label, names);
        assert.match(name, OVERLAY_NAME);
        assert.ok(name.length <= 40 && !name.startsWith('-') && !name.endsWith('-'));
        assert.ok(!names.includes(name));
      }),
      { numRuns: 200, seed: 26 },
    );
    assert.equal(overlayName('My Training Run #3'), 'my-training-run-3');
  });

  it("joins each node to the cluster's overlay only, keeping the plan's own variables", () => {
    assert.deepEqual(nodeEnv('train', { HF_HOME: '/data', '-n other': '1', ' -n  other2': '1' }), { HF_HOME: '/data', '-n train': '1' });
  });
});
