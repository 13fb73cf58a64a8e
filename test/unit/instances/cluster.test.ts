import assert from 'node:assert/strict';
import { OverlaySchema, type Overlay } from '../../../src/core/api/clusters';
import { groupClusters, ipv4Number } from '../../../src/core/instances/cluster';
import { OverlayDirectory } from '../../../src/core/instances/clusterCache';
import { presentCluster } from '../../../src/core/instances/clusterPresent';
import { MemoryLogger } from '../../support';
import { make, stopped } from './fakes';

const overlay = (over: Record<string, unknown>): Overlay =>
  OverlaySchema.parse({ overlay_id: 7, name: 'train', internal_subnet: '10.0.0.0/24', cluster_id: 4812, ...over });

/** A cluster rent's nodes, listed out of rank order: rank 1 (id 21), rank 0 (id 22, a replacement), rank 2 stopped (id 23). */
const nodes = () => [make(21, { label: 'train-node1' }), make(22, { label: 'train-node0' }), stopped(23, { label: 'train-node2' })];

describe('a cluster in the Instances view', () => {
  it('groups the instances of one overlay network, its nodes in rank order, with their total $/h and how many run', () => {
    const alone = make(5);
    const g = groupClusters([alone, ...nodes()], [overlay({ instances: [23, 21, 22] })]);
    assert.equal(g.clusters.length, 1);
    const c = g.clusters[0]!;
    assert.equal(c.label, 'train');
    assert.deepEqual(
      c.nodes.map((i) => i.id),
      [22, 21, 23],
      'rank order from the node labels, not the list order nor the ids',
    );
    assert.ok(Math.abs(c.perHour - 0.82) < 1e-9, 'two running at $0.40/h and one stopped disk at $0.02/h');
    assert.equal(c.running, 2);
    assert.equal(c.size, 3);
    assert.deepEqual(
      g.plain.map((i) => i.id),
      [5],
      'an instance in no overlay stays a plain row',
    );
  });

  it('orders nodes by their overlay address where it is known, numerically (.9 before .10)', () => {
    const addresses = new Map([
      [21, '10.0.0.10'],
      [22, '10.0.0.9'],
      [23, '10.0.0.2/24'],
    ]);
    const g = groupClusters(nodes(), [overlay({ instances: [21, 22, 23] })], addresses);
    assert.deepEqual(
      g.clusters[0]!.nodes.map((i) => i.id),
      [23, 22, 21],
    );
    assert.equal(ipv4Number('10.0.0.256'), undefined);
  });

  it('orders nodes without a node label or an address by instance id', () => {
    const g = groupClusters([make(9, { label: 'b' }), make(3, { label: 'a' })], [overlay({ instances: [9, 3] })]);
    assert.deepEqual(
      g.clusters[0]!.nodes.map((i) => i.id),
      [3, 9],
    );
  });

  it('names a node the overlay lists but the account does not as missing, in the row, its tooltip and its count', () => {
    const g = groupClusters(nodes(), [overlay({ instances: [21, 22, 23, 99] })]);
    const c = g.clusters[0]!;
    assert.deepEqual(c.missing, [99]);
    assert.equal(c.size, 4);
    const p = presentCluster(c);
    assert.equal(p.description, '$0.820/h · 2 of 4 running · 1 node missing');
    assert.match(p.tooltip, /\| Missing \| \\#99: listed in the overlay network, but not among your account's instances \|/);
    assert.equal(p.icon.id, 'warning');
  });

  it('never hides an instance: an overlay whose member list is unreadable groups nothing, and a destroyed node is neither node nor missing', () => {
    const unreadable = groupClusters(nodes(), [overlay({ instances: [21, 'x'] })]);
    assert.deepEqual(unreadable.clusters, []);
    assert.deepEqual(
      unreadable.plain.map((i) => i.id),
      [21, 22, 23],
    );
    const gone = groupClusters([...nodes(), make(24, { actual_status: 'destroyed' })], [overlay({ instances: [21, 22, 23, 24] })]);
    assert.deepEqual(gone.clusters[0]!.missing, []);
    assert.equal(gone.clusters[0]!.size, 3);
    assert.equal(
      gone.plain.some((i) => i.id === 24),
      false,
    );
  });

  it('shows the cluster row with its total, its running count, each node in its tooltip, and menu tags of its own', () => {
    const p = presentCluster(groupClusters(nodes(), [overlay({ instances: [21, 22, 23] })]).clusters[0]!);
    assert.equal(p.label, 'train');
    assert.equal(p.description, '$0.820/h · 2 of 3 running');
    assert.equal(p.contextValue, 'cluster+clusterStop+clusterStart+clusterDestroy');
    assert.doesNotMatch(p.contextValue, /(^|\+)(canStop|canStart|canDestroy|running)(\+|$)/, 'no instance menu shows on a cluster row');
    assert.match(p.tooltip, /\| Node 0 \| "train-node0" \\\(RTX 4090, \\#22\\\): running, \$0\.400\/h \|/);
    assert.match(p.tooltip, /\| Node 2 \| "train-node2" \\\(RTX 4090, \\#23\\\): stopped, \$0\.020\/h for its disk \|/);
    assert.match(p.tooltip, /\| Network \| overlay network train, 10\.0\.0\.0\/24 \|/);
    assert.equal(p.accessibilityLabel, 'cluster train, 2 of 3 nodes running, 82 cents per hour');

    const allStopped = presentCluster(groupClusters([stopped(1), stopped(2)], [overlay({ instances: [1, 2] })]).clusters[0]!);
    assert.equal(allStopped.contextValue, 'cluster+clusterStart+clusterDestroy', 'nothing to stop');
    const empty = presentCluster(groupClusters([], [overlay({ instances: [] })]).clusters[0]!);
    assert.equal(empty.description, 'no nodes');
    assert.equal(empty.contextValue, 'cluster+clusterDestroy', 'Destroy deletes a leftover network');
  });
});

describe('the overlay networks a view groups by', () => {
  it('lists once per poll cycle, and a failed listing keeps the last grouping without hiding a new instance', async () => {
    let calls = 0;
    let fail = false;
    const list = async () => {
      calls++;
      if (fail) throw new Error('GPU Rental: the service did not answer');
      return [overlay({ instances: [21, 22, 23] })];
    };
    const logger = new MemoryLogger();
    const d = new OverlayDirectory(logger);
    const first = {};
    const [a, b] = await Promise.all([d.forCycle(first, list), d.forCycle(first, list)]);
    assert.equal(calls, 1, 'one request for one cycle');
    assert.equal(a, b);
    assert.equal((await d.forCycle(first, list)).overlays.length, 1);
    assert.equal(calls, 1);

    fail = true;
    const known = await d.forCycle({}, list);
    assert.equal(calls, 2);
    assert.equal(known.stale, true);
    const g = groupClusters([...nodes(), make(30)], known.overlays);
    assert.deepEqual(
      g.clusters[0]!.nodes.map((i) => i.id),
      [22, 21, 23],
      'the last grouping',
    );
    assert.deepEqual(
      g.plain.map((i) => i.id),
      [30],
      'the new instance is a plain row',
    );
    await d.forCycle({}, list);
    assert.equal(logger.lines.filter((l) => l.startsWith('warn')).length, 1, 'the same failure is logged once');

    d.forget();
    assert.deepEqual(d.last, [], 'another account starts with none');
  });

  it('lets no answer of an older cycle replace a newer one', async () => {
    const d = new OverlayDirectory();
    let release: (v: Overlay[]) => void = () => {};
    const slow = d.forCycle({}, () => new Promise<Overlay[]>((r) => (release = r)));
    await d.forCycle({}, async () => [overlay({ overlay_id: 8, name: 'new', instances: [] })]);
    release([overlay({ instances: [1] })]);
    await slow;
    assert.deepEqual(
      d.last.map((o) => o.name),
      ['new'],
    );
  });
});
