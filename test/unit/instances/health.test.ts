import assert from 'node:assert/strict';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import { gpuUtilPercent, healthDescription, healthRows, healthSpoken, instanceHealth } from '../../../src/core/instances/health';
import { presentInstance, spokenDuration, spokenRate } from '../../../src/core/instances/present';

const running = {
  id: 7,
  label: 'train',
  gpu_name: 'RTX 4090',
  num_gpus: 1,
  gpu_ram: 24564,
  gpu_totalram: 24564,
  dph_total: 0.41,
  storage_total_cost: 0.02,
  disk_space: 40,
  actual_status: 'running',
  intended_status: 'running',
  gpu_util: 87,
  gpu_temp: 71.2,
  vmem_usage: 18.5,
  disk_usage: 12,
};
const make = (over: Record<string, unknown> = {}): Instance => InstanceSchema.parse({ ...running, ...over });

describe('instance health', () => {
  it('reads utilisation, temperature, VRAM and disk in their units', () => {
    const h = instanceHealth(make())!;
    assert.equal(h.gpuUtilPct, 87);
    assert.equal(h.gpuTempC, 71.2);
    assert.equal(h.vramUsedGb, 18.5);
    assert.ok(Math.abs(h.vramTotalGb! - 23.99) < 0.01);
    assert.equal(h.diskUsedGb, 12);
    assert.equal(h.diskTotalGb, 40);
    assert.equal(h.hot, false);
    assert.equal(h.diskNearlyFull, false);
    assert.equal(healthDescription(h), 'GPU 87% · 71°C');
  });

  it('reads a fraction as one and a whole percent as a percent', () => {
    assert.equal(gpuUtilPercent(0.87), 87);
    assert.equal(gpuUtilPercent(87), 87);
    assert.equal(gpuUtilPercent(0), 0);
    assert.equal(gpuUtilPercent(-1), undefined);
    assert.equal(gpuUtilPercent(250), undefined);
    assert.equal(gpuUtilPercent(null), undefined);
  });

  it('converts a VRAM figure in MB and drops one in no known unit', () => {
    assert.equal(instanceHealth(make({ vmem_usage: 18944 }))!.vramUsedGb, 18.5);
    assert.equal(instanceHealth(make({ vmem_usage: 9e9 }))!.vramUsedGb, undefined);
    // No total known: the figure is taken as the records send it.
    assert.equal(instanceHealth(make({ gpu_totalram: null, gpu_ram: null, vmem_usage: 3 }))!.vramUsedGb, 3);
    // Two GPUs without gpu_totalram: the total is per GPU times the count.
    assert.ok(Math.abs(instanceHealth(make({ gpu_totalram: null, num_gpus: 2 }))!.vramTotalGb! - 47.98) < 0.01);
  });

  it('flags a hot GPU and a nearly full disk', () => {
    const h = instanceHealth(make({ gpu_temp: 85, disk_usage: 37 }))!;
    assert.equal(h.hot, true);
    assert.equal(h.diskNearlyFull, true);
    assert.equal(healthDescription(h), 'GPU 87% · 85°C hot · disk 93% full');
    const rows = new Map(healthRows(h));
    assert.match(rows.get('GPU temperature')!, /85 °C ⚠ hot/);
    assert.match(rows.get('Disk used')!, /^37 GB of 40 GB \(93%\) ⚠ nearly full/);
    assert.equal(rows.get('VRAM'), '19 GB of 24 GB used');
    assert.equal(healthSpoken(h), 'GPU 87 percent, 85 degrees Celsius, hot, disk 93 percent full');
    assert.equal(instanceHealth(make({ gpu_temp: 84.4, disk_usage: 35.9 }))!.hot, false);
    assert.equal(instanceHealth(make({ gpu_temp: 84.4, disk_usage: 35.9 }))!.diskNearlyFull, false);
  });

  it('leaves missing or unreadable fields out', () => {
    const h = instanceHealth(make({ gpu_util: null, gpu_temp: null, vmem_usage: null, disk_usage: -1 }));
    assert.equal(h, undefined);
    const only = instanceHealth(make({ gpu_util: null, vmem_usage: null, disk_usage: null }))!;
    assert.equal(healthDescription(only), 'GPU 71°C');
    assert.deepEqual(
      healthRows(only).map(([k]) => k),
      ['GPU temperature'],
    );
    // A disk figure larger than the disk is not in GB: left out rather than guessed.
    assert.equal(instanceHealth(make({ disk_usage: 55 }))!.diskUsedGb, undefined);
  });

  it('shows health in a running row and its tooltip only', () => {
    const p = presentInstance(make(), { nowMs: 0 });
    assert.match(p.description, /^running · \$0\.410\/h · .*GPU 87% · 71°C$/);
    assert.match(p.tooltip, /\| GPU utilisation \| 87% \|/);
    assert.match(p.tooltip, /\| VRAM \| 19 GB of 24 GB used \|/);
    assert.match(p.tooltip, /\| Disk used \| 12 GB of 40 GB \(30%\) \|/);
    const stopped = presentInstance(make({ actual_status: 'stopped', intended_status: 'stopped' }), { nowMs: 0 });
    assert.doesNotMatch(stopped.description, /GPU/);
    assert.doesNotMatch(stopped.tooltip, /utilisation|Disk used/);
  });

  it('gives each row a label that reads well without icons', () => {
    assert.equal(
      presentInstance(make({ gpu_util: null, gpu_temp: null }), { nowMs: 0 }).accessibilityLabel,
      'RTX 4090 instance train, running, 41 cents per hour',
    );
    assert.equal(
      presentInstance(make({ label: null, num_gpus: 2, actual_status: 'stopped', intended_status: 'stopped' }), { nowMs: 0 })
        .accessibilityLabel,
      'RTX 4090 times 2 instance number 7, stopped, 2 cents per hour for its disk',
    );
    assert.match(presentInstance(make(), { nowMs: 0 }).accessibilityLabel, /, GPU 87 percent, 71 degrees Celsius$/);
    assert.equal(spokenRate(1.2), '$1.20 per hour');
    assert.equal(spokenRate(0.004), '0.4 of a cent per hour');
    assert.equal(spokenRate(0.01), '1 cent per hour');
    assert.equal(spokenDuration(80), '1 minute 20 seconds');
    assert.equal(spokenDuration(7500), '2 hours 5 minutes');
    assert.equal(spokenDuration(1), '1 second');
    assert.equal(spokenDuration(3600), '1 hour');
  });
});
