import assert from 'node:assert/strict';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import { BootTracker, bootStatus } from '../../../src/core/instances/boot';
import { instancePhase, isTransient } from '../../../src/core/instances/phase';
import { unreadableInstance } from '../../../src/core/api/instances';
import { instanceLabel, instanceName } from '../../../src/core/instances/names';
import { presentInstance } from '../../../src/core/instances/present';
import { startAddsPerHour } from '../../../src/core/instances/rates';
import { formatClock, formatDuration } from '../../../src/core/format';

const NOW = 1_800_000_000_000;
const base = {
  id: 31000001,
  gpu_name: 'RTX 4090',
  num_gpus: 2,
  gpu_ram: 24564,
  dph_total: 0.82,
  storage_total_cost: 0.014,
  disk_space: 40,
  image_uuid: 'pytorch/pytorch:latest',
  ssh_host: 'ssh4.example.net',
  ssh_port: 40022,
  geolocation: 'Texas, US',
  machine_id: 5,
  start_date: NOW / 1000 - 4000,
  intended_status: 'running',
  actual_status: 'running',
  status_msg: 'success, running pytorch/pytorch:latest',
  gpu_util: 87.4,
};
const make = (over: Record<string, unknown>): Instance => InstanceSchema.parse({ ...base, ...over });

describe('instance phases and presentation', () => {
  it('maps the service statuses to phases', () => {
    const cases: Array<[string | null, string, string]> = [
      [null, 'running', 'provisioning'],
      ['created', 'running', 'provisioning'],
      ['loading', 'running', 'loading'],
      ['running', 'running', 'running'],
      ['running', 'stopped', 'stopping'],
      ['stopped', 'stopped', 'stopped'],
      ['stopped', 'running', 'starting'],
      ['rebooting', 'running', 'rebooting'],
      ['exited', 'running', 'failed'],
      ['offline', 'running', 'failed'],
      ['unknown', 'running', 'failed'],
    ];
    for (const [actual, intended, phase] of cases)
      assert.equal(instancePhase({ actual_status: actual, intended_status: intended }), phase, `${actual}/${intended}`);
  });

  it('shows a running instance with price, uptime and GPU load, and tags its menus', () => {
    const p = presentInstance(make({}), { nowMs: NOW, costSoFar: 0.91 });
    assert.equal(p.label, 'RTX 4090 ×2 #31000001');
    assert.equal(p.description, 'running · $0.820/h · up 1h 06m · $0.910 so far · GPU 87%');
    assert.deepEqual(p.icon, { id: 'vm-running', color: 'charts.green' });
    assert.equal(p.contextValue, 'instance+running+canStop+canReboot+canDestroy+canLabel+hasLogs+hasSsh+canConnect+canReserve');
    for (const part of ['ssh4.example.net:40022', 'pytorch/pytorch:latest', '40 GB', 'Texas, US', 'success, running'])
      assert.ok(p.tooltip.includes(part), part);
  });

  it('bills a stopped or failed instance for its disk only, and spins while booting', () => {
    const stopped = presentInstance(make({ actual_status: 'stopped', intended_status: 'stopped', label: 'train' }), { nowMs: NOW });
    assert.equal(stopped.label, 'train');
    assert.match(stopped.description, /^stopped · \$0\.014\/h disk/);
    assert.ok(stopped.contextValue.includes('canStart') && !stopped.contextValue.includes('canStop'));
    const failed = presentInstance(make({ actual_status: 'exited' }), { nowMs: NOW });
    assert.equal(failed.icon.id, 'error');
    assert.match(failed.tooltip, /never recovers/);
    const booting = presentInstance(make({ actual_status: null }), { nowMs: NOW });
    assert.equal(booting.icon.id, 'loading~spin');
    assert.ok(!booting.description.includes('GPU'));
  });

  it('an instance listed by id only is "unreadable": not booting, not polled for, destroyable, never shown as provisioning', () => {
    const odd = unreadableInstance(31000009);
    assert.equal(instancePhase(odd), 'unreadable');
    assert.equal(isTransient(instancePhase(odd)), false, 'it does not keep the poller busy');
    assert.deepEqual(new BootTracker().update([odd], Date.now()).booting, [], 'not shown as booting in the status bar');
    const shown = presentInstance(odd, { nowMs: Date.now() });
    assert.match(shown.label, /#31000009 \(details unreadable\)/);
    assert.match(shown.contextValue, /canDestroy/);
    assert.doesNotMatch(shown.description, /provisioning/);
  });

  it('formats durations and the boot clock', () => {
    assert.equal(formatDuration(42), '42s');
    assert.equal(formatDuration(75), '1m 15s');
    assert.equal(formatDuration(4000), '1h 06m');
    assert.equal(formatDuration(90_000), '1d 01h');
    assert.equal(formatClock(80), '1:20');
    assert.equal(formatClock(3725), '1:02:05');
  });

  it('names an instance one way in lists and one way in sentences', () => {
    assert.equal(instanceLabel(make({})), 'RTX 4090 ×2 #31000001');
    assert.equal(instanceLabel(make({ label: 'train' })), 'train');
    assert.equal(instanceName(make({})), 'RTX 4090 ×2 #31000001');
    assert.equal(instanceName(make({ label: 'train' })), '"train" (RTX 4090 ×2, #31000001)');
    assert.equal(instanceName(make({ num_gpus: 1, label: '' })), 'RTX 4090 #31000001');
  });

  it("names an instance in a sentence with its label's hidden characters shown, so the sentence cannot read reversed", () => {
    const name = instanceName(make({ label: 'train\u202E\u200B', gpu_name: 'RTX\u2066 4090' }));
    assert.equal(name, '"train\\u202E\\u200B" (RTX\\u2066 4090 ×2, #31000001)');
    assert.ok(instanceName(make({ label: 'l'.repeat(1_000) })).length < 120, 'a long label is cut');
  });

  it('says what starting adds per hour: the rate less the disk, never below zero', () => {
    assert.equal(startAddsPerHour(make({})), 0.82 - 0.014);
    assert.equal(startAddsPerHour(make({ storage_total_cost: null })), 0.82);
    assert.equal(startAddsPerHour(make({ dph_total: null })), 0);
  });
});

describe('boot tracker', () => {
  it('follows a boot to running and announces it once', () => {
    const t = new BootTracker();
    t.track(1, NOW);
    let u = t.update([make({ id: 1, actual_status: null, start_date: NOW / 1000 })], NOW + 5_000);
    assert.equal(u.booting.length, 1);
    assert.equal(bootStatus(u.booting, NOW + 80_000)?.text, '$(loading~spin) RTX 4090 ×2: provisioning 1:20');
    u = t.update([make({ id: 1, actual_status: 'loading', start_date: NOW / 1000 })], NOW + 10_000);
    assert.equal(u.booting[0]!.since, NOW, 'the clock keeps running from the first sighting');
    u = t.update([make({ id: 1 })], NOW + 20_000);
    assert.deepEqual(
      u.booted.map((i) => i.id),
      [1],
    );
    u = t.update([make({ id: 1 })], NOW + 30_000);
    assert.equal(u.booted.length, 0, 'announced once');
  });

  it('survives a reload through its saved entries, and reports a boot that failed', () => {
    const t1 = new BootTracker();
    t1.update([make({ id: 2, actual_status: 'loading', start_date: NOW / 1000 - 30 })], NOW);
    const t2 = new BootTracker(JSON.parse(JSON.stringify(t1.toJSON())));
    const u = t2.update([make({ id: 2, actual_status: 'exited' })], NOW + 60_000);
    assert.deepEqual(
      u.failed.map((i) => i.id),
      [2],
    );
    assert.deepEqual(t2.toJSON(), []);
  });

  it('counts several boots in the status text and lists each in the tooltip', () => {
    const t = new BootTracker();
    const u = t.update([make({ id: 3, actual_status: 'loading', label: 'a' }), make({ id: 4, actual_status: null, label: 'b' })], NOW);
    const s = bootStatus(u.booting, NOW + 5_000)!;
    assert.match(s.text, /^\$\(loading~spin\) 2 booting, /);
    assert.match(s.tooltip, /#3 a: loading/);
    assert.match(s.tooltip, /#4 b: provisioning/);
  });
});
