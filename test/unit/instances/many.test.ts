import assert from 'node:assert/strict';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import { bulkConfirmation, bulkSummary, eachBounded, viewSummary } from '../../../src/core/instances/many';

const make = (id: number, over: Record<string, unknown> = {}): Instance =>
  InstanceSchema.parse({
    id,
    label: `m${id}`,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    dph_total: 0.4,
    storage_total_cost: 0.02,
    actual_status: 'running',
    intended_status: 'running',
    ...over,
  });
const stopped = (id: number, over: Record<string, unknown> = {}) =>
  make(id, { actual_status: 'stopped', intended_status: 'stopped', ...over });

describe('several instances at once', () => {
  it('asks once before stopping, with each rate now and after', () => {
    const c = bulkConfirmation('stop', [make(1), make(2), stopped(3)]);
    assert.deepEqual(
      c.targets.map((i) => i.id),
      [1, 2],
    );
    assert.deepEqual(
      c.skipped.map((i) => i.id),
      [3],
    );
    assert.equal(c.message, 'Stop these 2 instances?');
    assert.equal(c.action, 'Stop 2');
    assert.match(c.detail, /"m1" \(RTX 4090, #1\): \$0\.400\/h now → \$0\.020\/h for its disk/);
    assert.match(c.detail, /GPU billing ends; disks still bill \$0\.040\/h until destroyed \(\$0\.800\/h now\)/);
    assert.match(c.detail, /Left alone \(not running, so nothing to stop\): "m3" \(RTX 4090, #3\), stopped/);
    assert.ok(Math.abs(c.changePerHour + 0.76) < 1e-9);
  });

  it('asks once before destroying, naming every instance and what stops billing', () => {
    const c = bulkConfirmation('destroy', [make(1), make(2), stopped(3)], new Map([[2, '/workspace holds 3 GB']]));
    assert.equal(c.targets.length, 3);
    assert.equal(c.message, 'Destroy these 3 instances?');
    assert.equal(c.action, 'Destroy 3');
    for (const id of [1, 2, 3]) assert.match(c.detail, new RegExp(`#${id}\\): \\$0\\.\\d+/h now → nothing`));
    assert.match(c.detail, /#2\): \$0\.400\/h now → nothing\n {3}\/workspace holds 3 GB/);
    assert.match(c.detail, /These 3 instances and their disks are deleted for good.*; \$0\.820\/h stops\. This cannot be undone\./);
    assert.ok(Math.abs(c.changePerHour + 0.82) < 1e-9);
    assert.match(
      bulkConfirmation('destroy', [make(1), make(2)], new Map(), [1, 2]).detail,
      /\n\nTheir files could not be checked over SSH/,
    );
    assert.match(
      bulkConfirmation('destroy', [make(1), make(2)], new Map(), [2]).detail,
      /\n\nThe files of "m2" \(RTX 4090, #2\) could not be checked/,
    );
  });

  it('starts only the stopped instances selected, with their total for the cap', () => {
    const c = bulkConfirmation('start', [
      stopped(1),
      stopped(2, { dph_total: 1.02 }),
      make(3),
      stopped(4, { intended_status: 'running', is_bid: true, min_bid: 0.5, dph_total: 0.3 }),
    ]);
    assert.deepEqual(
      c.targets.map((i) => i.id),
      [1, 2],
    );
    assert.match(c.detail, /#2\): \$0\.020\/h now \(disk\) → \$1\.02\/h running/);
    assert.match(c.detail, /Together they will bill \$1\.42\/h once running \(\$0\.040\/h now for their disks\), \$1\.38\/h more\./);
    assert.ok(Math.abs(c.changePerHour - 1.38) < 1e-9);
  });

  it('sums up in one message: all done, or what failed and what is unknown', () => {
    const [a, b, c] = [make(1), make(2), make(3)];
    assert.deepEqual(
      bulkSummary('destroy', [
        { instance: a, result: { kind: 'done', message: '' } },
        { instance: b, result: { kind: 'done', message: '' } },
        { instance: c, result: { kind: 'done', message: '' } },
      ]),
      { severity: 'info', text: 'GPU Rental: 3 destroyed.' },
    );
    const mixed = bulkSummary('destroy', [
      { instance: a, result: { kind: 'done', message: '' } },
      { instance: b, result: { kind: 'unknown', message: 'it is not known whether GPU Rental destroyed m2.' } },
      { instance: c, refused: 'permission denied' },
    ]);
    assert.equal(mixed.severity, 'warning');
    assert.match(
      mixed.text,
      /^GPU Rental: 1 destroyed; 1 failed \("m3" \(RTX 4090, #3\): permission denied\); 1 unknown \("m2" \(RTX 4090, #2\): neither the answer nor a second look came back, so it may still bill\)\./,
    );
    assert.match(mixed.text, /Refresh the Instances view to see what really happened/);
    assert.match(
      bulkSummary('stop', [{ instance: a, result: { kind: 'done', message: '' } }]).text,
      /1 stopping\. Their disks still bill \$0\.020\/h/,
    );
    assert.match(
      bulkSummary('stop', [{ instance: a, result: { kind: 'notDone', message: 'm1 was not stopped.' } }]).text,
      /none stopped; 1 failed .* Try the failed ones again/,
    );
  });

  it('runs at most the limit at once and keeps the order', async () => {
    let active = 0;
    let most = 0;
    const out = await eachBounded([1, 2, 3, 4, 5], 2, async (n) => {
      most = Math.max(most, ++active);
      await new Promise((r) => setImmediate(r));
      active--;
      return n * 10;
    });
    assert.deepEqual(out, [10, 20, 30, 40, 50]);
    assert.equal(most, 2);
  });

  it('gives the view a badge of running instances and the total per hour', () => {
    const s = viewSummary([make(1), make(2), stopped(3), make(4, { actual_status: 'loading' })]);
    assert.equal(s.running, 2);
    assert.equal(s.badgeTooltip, '2 running instances');
    assert.equal(s.description, '$1.22/h');
    assert.deepEqual(viewSummary([stopped(3)]), { running: 0, badgeTooltip: undefined, description: '$0.020/h' });
    assert.deepEqual(viewSummary([]), { running: 0, badgeTooltip: undefined, description: undefined });
  });
});
