import assert from 'node:assert/strict';
import { OverlaySchema, type OverlayRef } from '../../../src/core/api/clusters';
import { groupClusters, type ClusterGroup } from '../../../src/core/instances/cluster';
import { clusterFlow, type ClusterFlowDeps } from '../../../src/core/instances/clusterFlow';
import type { Instance } from '../../../src/core/api/instances';
import type { Ask } from '../../../src/core/prompts';
import { scriptedAsk } from '../../support/scriptedAsk';
import { fakeInstances, flowDeps, lostAnswer, make, refusal, stopped } from './fakes';

/** The overlay calls: each delete recorded; `fail` makes the next one throw. */
function fakeOverlays() {
  const deleted: OverlayRef[] = [];
  let fail: (() => unknown) | undefined;
  return {
    deleted,
    fail: (error: () => unknown) => void (fail = error),
    api: {
      deleteOverlay: async (ref: OverlayRef) => {
        deleted.push(ref);
        if (fail) throw fail();
      },
    },
  };
}

function clusterDeps(ask: Ask, instances = fakeInstances(), allowed = true) {
  const f = flowDeps(ask, instances, allowed);
  const overlays = fakeOverlays();
  const deps: ClusterFlowDeps = { ...f.deps, overlays: overlays.api };
  return { ...f, overlays, deps };
}

function clusterOf(instances: Instance[], listed = instances.map((i) => i.id)): ClusterGroup {
  return groupClusters(instances, [OverlaySchema.parse({ overlay_id: 7, name: 'train', instances: listed })]).clusters[0]!;
}

const three = () => [make(1, { label: 'train-node0' }), make(2, { label: 'train-node1' }), make(3, { label: 'train-node2' })];

describe('Stop, Start and Destroy on a cluster row', () => {
  it("stops every node with one confirmation, and a fault on one node is said for that node: each node's truth", async () => {
    const instances = fakeInstances();
    instances.fail('stop', 2, lostAnswer);
    instances.fail('show', 2, lostAnswer);
    instances.fail('stop', 3, refusal);
    const ask = scriptedAsk([{ confirm: true }]);
    const f = clusterDeps(ask, instances);
    const end = await clusterFlow(f.deps, 'stop', clusterOf(three()));

    assert.equal(ask.asked.length, 1, 'one confirmation for the whole cluster');
    assert.equal(ask.asked[0]!.text, 'Stop the cluster "train"?');
    assert.deepEqual(ask.asked[0]!.options, ['Stop 3']);
    for (const id of [1, 2, 3])
      assert.match(ask.asked[0]!.detail, new RegExp(`"train-node${id - 1}" \\(RTX 4090, #${id}\\): \\$0\\.400/h now`));
    assert.deepEqual(f.instances.requested('stop'), [1, 2, 3], 'every node is asked, whatever one of them answers');
    if (end.kind !== 'acted') return assert.fail(end.kind);
    assert.deepEqual(
      end.outcomes.map((o) => ('refused' in o ? 'refused' : o.result.kind)),
      ['done', 'unknown', 'refused'],
    );
    assert.equal(end.notice.severity, 'warning');
    assert.deepEqual(end.notice.actions, ['refresh']);
    assert.match(end.notice.text, /^GPU Rental: 1 stopping; 1 failed \("train-node2" \(RTX 4090, #3\): /);
    assert.match(
      end.notice.text,
      /1 unknown \("train-node1" \(RTX 4090, #2\): neither the answer nor a second look came back, so it may still bill\)/,
    );
    assert.deepEqual(f.after.log, ['watch 1', 'refresh'], 'only the node seen stopping is watched');
    assert.deepEqual(f.overlays.deleted, [], 'a stop leaves the network');
  });

  it('destroys every node, then deletes the overlay network, and says both in one notice', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const f = clusterDeps(ask);
    const end = await clusterFlow(f.deps, 'destroy', clusterOf(three()));
    assert.equal(ask.asked[0]!.text, 'Destroy the cluster "train"?');
    assert.match(ask.asked[0]!.detail, /These 3 instances and their disks are deleted for good/);
    assert.match(ask.asked[0]!.detail, /Then its overlay network "train" is deleted\.$/);
    assert.deepEqual(f.instances.requested('destroy'), [1, 2, 3]);
    assert.deepEqual(f.overlays.deleted, [{ overlayId: 7 }]);
    assert.deepEqual(f.after.log, ['forget 1', 'forget 2', 'forget 3', 'refresh', 'refresh'], 'listed again after the delete');
    if (end.kind !== 'acted') return assert.fail(end.kind);
    assert.equal(end.overlay, 'deleted');
    assert.deepEqual(end.notice, {
      severity: 'info',
      text: 'GPU Rental: 3 destroyed. Its overlay network "train" is deleted.',
      actions: [],
    });
  });

  it("keeps the overlay network when a node's destroy was not seen, and says why", async () => {
    const instances = fakeInstances();
    instances.fail('destroy', 2, lostAnswer);
    instances.fail('show', 2, lostAnswer);
    const f = clusterDeps(scriptedAsk([{ confirm: true }]), instances);
    const end = await clusterFlow(f.deps, 'destroy', clusterOf(three()));
    assert.deepEqual(f.overlays.deleted, [], 'never deleted under a node that may remain');
    if (end.kind !== 'acted') return assert.fail(end.kind);
    assert.equal(end.overlay, 'kept');
    assert.match(
      end.notice.text,
      /^GPU Rental: 2 destroyed; 1 unknown .*Its overlay network "train" is kept while a node may still be in it\.$/,
    );
  });

  it('says an overlay delete whose answer was lost is unknown, with Refresh', async () => {
    const f = clusterDeps(scriptedAsk([{ confirm: true }]));
    f.overlays.fail(lostAnswer);
    const end = await clusterFlow(f.deps, 'destroy', clusterOf(three()));
    if (end.kind !== 'acted') return assert.fail(end.kind);
    assert.equal(end.overlay, 'unknown');
    assert.equal(end.notice.severity, 'warning');
    assert.deepEqual(end.notice.actions, ['refresh']);
    assert.match(end.notice.text, /^GPU Rental: 3 destroyed\. It is not known whether its overlay network "train" was deleted/);
  });

  it('says a refused overlay delete failed, and how to try again', async () => {
    const f = clusterDeps(scriptedAsk([{ confirm: true }]));
    f.overlays.fail(refusal);
    const end = await clusterFlow(f.deps, 'destroy', clusterOf(three()));
    if (end.kind !== 'acted') return assert.fail(end.kind);
    assert.equal(end.overlay, 'refused');
    assert.match(
      end.notice.text,
      /Its overlay network "train" was not deleted \(.+\): Destroy on its row in the Instances view tries again\./,
    );
  });

  it('names the nodes the account does not show, leaves them alone, and keeps the network they are in', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const f = clusterDeps(ask);
    const end = await clusterFlow(f.deps, 'destroy', clusterOf(three(), [1, 2, 3, 99]));
    assert.match(ask.asked[0]!.detail, /Its overlay network also lists #99, not among your account's instances: left alone\./);
    assert.match(ask.asked[0]!.detail, /Its overlay network "train" is kept while it lists an instance your account does not show\./);
    assert.deepEqual(f.instances.requested('destroy'), [1, 2, 3]);
    assert.deepEqual(f.overlays.deleted, []);
    assert.equal(end.kind === 'acted' && end.overlay, 'kept');
  });

  it('starts only the stopped nodes, after the spend cap allows what they add together, with one confirmation', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const f = clusterDeps(ask);
    await clusterFlow(f.deps, 'start', clusterOf([stopped(1, { label: 'train-node0' }), stopped(2, { label: 'train-node1' }), make(3)]));
    assert.equal(f.spendAsked.length, 1);
    assert.ok(Math.abs(f.spendAsked[0]!.adds - 0.76) < 1e-9, 'the cap is asked about the total the start adds');
    assert.equal(ask.asked[0]!.text, 'Start the cluster "train"?');
    assert.deepEqual(f.instances.requested('start'), [1, 2], 'never the running one');
  });

  it('starts nothing when the spend cap refuses, and nothing when the one confirmation is declined', async () => {
    const refused = clusterDeps(scriptedAsk([]), fakeInstances(), false);
    assert.deepEqual(await clusterFlow(refused.deps, 'start', clusterOf([stopped(1), stopped(2)])), { kind: 'declined' });
    const declined = clusterDeps(scriptedAsk([{ confirm: false }]));
    assert.deepEqual(await clusterFlow(declined.deps, 'destroy', clusterOf(three())), { kind: 'declined' });
    assert.deepEqual([...refused.instances.calls, ...declined.instances.calls], []);
    assert.deepEqual(declined.overlays.deleted, []);
  });

  it('says there is nothing to stop, asking nothing, when no node runs', async () => {
    const f = clusterDeps(scriptedAsk([]));
    const end = await clusterFlow(f.deps, 'stop', clusterOf([stopped(1), stopped(2)]));
    assert.equal(end.kind, 'nothingApplies');
    assert.equal(
      end.kind === 'nothingApplies' && end.notice.text,
      'GPU Rental: no node of the cluster "train" is running or booting, so there is nothing to stop.',
    );
    assert.deepEqual(f.instances.calls, []);
  });

  it('deletes the network of a cluster with no node left, after asking', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const f = clusterDeps(ask);
    const end = await clusterFlow(f.deps, 'destroy', clusterOf([], []));
    assert.equal(ask.asked[0]!.text, 'Delete the overlay network "train"?');
    assert.deepEqual(f.overlays.deleted, [{ overlayId: 7 }]);
    assert.equal(
      end.kind === 'acted' && end.notice.text,
      'GPU Rental: the cluster "train" had no node left. Its overlay network "train" is deleted.',
    );
  });
});
