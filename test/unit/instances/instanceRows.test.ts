// The Instances view's rows across polls: a row object is made again only when its record, what it
// shows or its jobs changed; clusters group their nodes; destroyed instances are not shown.
import assert from 'node:assert/strict';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import { InstanceRows, type RowContext } from '../../../src/core/instances/instanceRows';

const NOW = 1_800_000_000_000;
const record = (id: number, over: Record<string, unknown> = {}): Instance =>
  InstanceSchema.parse({
    id,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    dph_total: 0.41,
    actual_status: 'running',
    intended_status: 'running',
    label: `train-${id}`,
    start_date: NOW / 1000 - 3 * 3600,
    ...over,
  });

function rows() {
  const made: number[] = [];
  const r = new InstanceRows((instance, p, hasJobs) => {
    made.push(instance.id);
    return { instance, label: p.label, description: p.description, hasJobs };
  });
  return { r, made };
}

const context = (over: Partial<RowContext> = {}): RowContext => ({ nowMs: NOW, costOf: () => undefined, hasJobs: () => false, ...over });

describe('instances: the view rows kept from one poll to the next (InstanceRows)', () => {
  it('hands back last poll’s row for the same record, and makes one for a changed record, cost, uptime or jobs', () => {
    const { r, made } = rows();
    const list = [record(1), record(2), record(3), record(4), record(5)];
    const first = r.build(list, [], context());
    assert.deepEqual(made, [1, 2, 3, 4, 5]);

    made.length = 0;
    const same = r.build(list, [], context());
    assert.deepEqual(made, []);
    assert.ok(same.items.every((row, k) => row === first.items[k]));

    const next = [record(1, { label: 'renamed' }), list[1]!, list[2]!, list[3]!, list[4]!];
    const again = r.build(next, [], context({ costOf: (id) => (id === 3 ? 1.25 : undefined), hasJobs: (id) => id === 4 }));
    assert.deepEqual(made, [1, 3, 4]);
    assert.equal(again.items.find((row) => row.instance.id === 1)!.label, 'renamed');
    assert.equal(again.items.find((row) => row.instance.id === 4)!.hasJobs, true);
    assert.equal(again.items[1], first.items[1]);

    made.length = 0;
    r.build(next, [], context({ nowMs: NOW + 90_000, costOf: (id) => (id === 3 ? 1.25 : undefined), hasJobs: (id) => id === 4 }));
    assert.deepEqual(made, [1, 2, 3, 4, 5], 'the uptime shown moved on every row');
  });

  it('groups a cluster’s nodes first, leaves destroyed instances out, and forgets everything on clear', () => {
    const { r, made } = rows();
    const list = [record(1), record(2, { actual_status: 'destroyed' }), record(3), record(4)];
    const built = r.build(list, [{ overlay_id: 7, name: 'train', instances: [4, 3, 9] }], context());
    assert.deepEqual(
      built.items.map((row) => row.instance.id),
      [3, 4, 1],
    );
    assert.deepEqual(
      built.plain.map((row) => row.instance.id),
      [1],
    );
    assert.deepEqual(built.clusters[0]!.missing, [9]);
    assert.equal(r.rowOf(list[2]!, context()), built.items[0], 'a node’s row is the one the list made');
    r.clear();
    made.length = 0;
    r.build(list, [], context());
    assert.deepEqual(made, [1, 3, 4]);
  });
});
