// The Instances view's rows across polls: a row is presented again only when what it shows changed.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import { presentInstance } from '../../../src/core/instances/present';
import { formatDuration } from '../../../src/core/format';
import { PresentationCache, sameRecord, uptimeShown } from '../../../src/core/instances/presentCache';

const NOW = 1_800_000_000_000;
const record = (over: Record<string, unknown> = {}): Instance =>
  InstanceSchema.parse({
    id: 31000001,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    dph_total: 0.41,
    storage_total_cost: 0.01,
    actual_status: 'running',
    intended_status: 'running',
    label: 'train',
    start_date: NOW / 1000 - 3 * 3600,
    ssh_host: 'ssh4.example.net',
    ssh_port: 40022,
    ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '40022' }] },
    gpu_util: 50,
    ...over,
  });

/** Every field the row shows, the tooltip included, as plain data. */
const shown = (p: ReturnType<typeof presentInstance>) => ({
  label: p.label,
  description: p.description,
  tooltip: p.tooltip,
  icon: p.icon,
  contextValue: p.contextValue,
  phase: p.phase,
  accessibilityLabel: p.accessibilityLabel,
});

describe('instances: the rows kept from one poll to the next', () => {
  it('reuses a row whose record reads the same in a new poll, and shows a changed one anew', () => {
    const cache = new PresentationCache();
    const first = cache.present(record(), { nowMs: NOW });
    assert.equal(cache.present(record(), { nowMs: NOW + 5_000 }), first, 'an equal record, the uptime text unchanged');
    const relabelled = cache.present(record({ label: 'eval' }), { nowMs: NOW + 10_000 });
    assert.notEqual(relabelled, first);
    assert.match(relabelled.label, /eval/);
    assert.match(relabelled.tooltip, /\*\*eval/);
    const stopped = cache.present(record({ label: 'eval', actual_status: 'stopped', intended_status: 'stopped' }), { nowMs: NOW + 15_000 });
    assert.equal(stopped.phase, 'stopped');
    assert.match(stopped.contextValue, /canStart/);
  });

  it('shows a new cost so far and a new uptime text even when the record is the same', () => {
    const cache = new PresentationCache();
    const r = record();
    const before = cache.present(r, { nowMs: NOW, costSoFar: 1.5 });
    const cost = cache.present(r, { nowMs: NOW, costSoFar: 2.25 });
    assert.notEqual(cost, before);
    assert.match(cost.description, /\$2\.25 so far/);
    const later = cache.present(r, { nowMs: NOW + 60_000, costSoFar: 2.25 });
    assert.equal(later.description, presentInstance(r, { nowMs: NOW + 60_000, costSoFar: 2.25 }).description);
    assert.notEqual(later.description, cost.description);
  });

  it('presents exactly what presentInstance does, whatever changed between polls', () => {
    const statuses = ['running', 'stopped', 'loading', null, 'exited'] as const;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            status: fc.constantFrom(...statuses),
            label: fc.constantFrom('a', 'b', undefined),
            util: fc.constantFrom(0, 50, 99),
            cost: fc.constantFrom(undefined, 1, 2),
            step: fc.integer({ min: 0, max: 120_000 }),
            // Under a minute, an hour, a day, and days: the uptime text moves by seconds, minutes, hours.
            age: fc.constantFrom(5, 3_550, 3 * 3600, 86_390, 2 * 86_400),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        (polls) => {
          const cache = new PresentationCache();
          let now = NOW;
          for (const poll of polls) {
            now += poll.step;
            const r = record({ actual_status: poll.status, label: poll.label, gpu_util: poll.util, start_date: NOW / 1000 - poll.age });
            const options = { nowMs: now, costSoFar: poll.cost };
            assert.deepEqual(shown(cache.present(r, options)), shown(presentInstance(r, options)));
          }
        },
      ),
    );
  });

  it('tells the uptime text apart without building it: a new number exactly when the text moves', () => {
    const r = record({ start_date: 1000 });
    const at = (s: number) => (1000 + s) * 1000;
    for (const s of [0, 59, 60, 3599, 3600, 3659, 3660, 86_399, 86_400, 89_999, 90_000, 200_000]) {
      for (const d of [0.4, 1, 59, 60, 3600]) {
        const sameText = formatDuration(s) === formatDuration(s + d);
        assert.equal(uptimeShown(r, at(s)) === uptimeShown(r, at(s + d)), sameText, `${s} s and ${s + d} s`);
      }
    }
    assert.equal(uptimeShown(record({ start_date: undefined }), NOW), -1);
  });

  it('builds a tooltip only when it is read, from the newest equal record', () => {
    const cache = new PresentationCache();
    const p = cache.present(record(), { nowMs: NOW });
    assert.ok(!Object.hasOwn(p, 'tooltip'), 'no tooltip string is built for every row');
    const descriptor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(p), 'tooltip');
    assert.ok(descriptor?.get, 'the tooltip is a getter, shared by every row');
    assert.equal(p.tooltip, presentInstance(record(), { nowMs: NOW }).tooltip);
  });

  it('forgets the rows of instances no longer listed', () => {
    const cache = new PresentationCache();
    cache.present(record({ id: 1 }), { nowMs: NOW });
    cache.present(record({ id: 2 }), { nowMs: NOW });
    cache.retain([record({ id: 2 })]);
    assert.equal(cache.size, 1);
    cache.clear();
    assert.equal(cache.size, 0);
  });

  it('compares records field by field, nested port maps included', () => {
    assert.ok(sameRecord(record(), record()));
    assert.ok(!sameRecord(record(), record({ gpu_util: 51 })));
    assert.ok(!sameRecord(record(), record({ ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '40023' }] } })));
    assert.ok(!sameRecord(record(), record({ min_bid: 0.2 })), 'a field only one of them has');
  });
});
