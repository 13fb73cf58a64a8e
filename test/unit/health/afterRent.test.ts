// The health check after a rent, decided in core: it runs once per rent made in this window, when
// the instance first runs; never for an instance rented elsewhere; once when two windows see it;
// not at all with gpuRental.health.checkAfterRent off; and a check that cannot run is a quiet line.
import { StoredState } from '../../../src/core/state/storedState';
import { STORED } from '../../../src/core/stored';
import { MemoryStore } from '../state/memoryStore';
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import {
  HealthAfterRent,
  nodesSummary,
  type AfterRentDeps,
  type AfterRentResult,
  type AfterRentStore,
} from '../../../src/core/health/afterRent';
import { GPU_FIELDS } from '../../../src/core/health/smi';
import { silentLogger } from '../../../src/core/log';
import type { RemoteResult } from '../../../src/core/ssh/remote';

const NONCE = 'n1';
const START = 1_000_000;
const NOW = (START + 120) * 1000;
const INSTANCE: Instance = {
  id: 7,
  actual_status: 'running',
  intended_status: 'running',
  gpu_name: 'RTX 4090',
  num_gpus: 1,
  gpu_ram: 24564,
  start_date: START,
  dph_total: 0.6,
};
const BOOTING: Instance = { ...INSTANCE, actual_status: 'loading' };

/** What the script prints on an honest RTX 4090 (GPU name, memory and the rest as nvidia-smi's CSV). */
function output(name = 'NVIDIA GeForce RTX 4090'): string {
  const row: Record<string, string> = {
    index: '0',
    name,
    'memory.total': '24564',
    driver_version: '575.57.08',
    'pcie.link.gen.current': '4',
    'pcie.link.gen.max': '4',
    'pcie.link.width.current': '16',
    'pcie.link.width.max': '16',
  };
  const parts: Array<[string, string]> = [
    ['gpus', GPU_FIELDS.map((f) => row[f] ?? '[N/A]').join(', ')],
    ['disk', 'Filesystem 1024-blocks Used Available Capacity Mounted on\noverlay 104857600 10485760 94371840 10% /workspace'],
  ];
  return parts.map(([s, t]) => `@@gpu-rental-health ${NONCE} begin ${s}\n${t}\n@@gpu-rental-health ${NONCE} end ${s} 0`).join('\n');
}

function window(
  o: { store?: AfterRentStore; owner?: string; enabled?: boolean; run?: () => Promise<RemoteResult>; reach?: () => Promise<never> } = {},
) {
  const calls = { reach: 0, run: 0, scripts: [] as string[], warnings: [] as string[] };
  const deps: AfterRentDeps = {
    store: o.store ?? new StoredState(STORED, new MemoryStore()),
    owner: o.owner ?? 'window-a',
    enabled: () => o.enabled ?? true,
    speedTestUrl: () => '',
    reach: () => {
      calls.reach += 1;
      return o.reach ? o.reach() : Promise.resolve({ instanceId: 7, alias: 'gpu-rental-7', args: [] });
    },
    run: (_t, script) => {
      calls.run += 1;
      calls.scripts.push(script);
      return o.run ? o.run() : Promise.resolve({ code: 0, stdout: output(), stderr: '' });
    },
    nonce: () => NONCE,
    now: () => NOW,
    logger: { ...silentLogger, warn: (m: string) => calls.warnings.push(m) },
  };
  return { health: new HealthAfterRent(deps), calls, store: deps.store };
}

const settle = (checks: Promise<AfterRentResult>[]) => Promise.all(checks);

describe('health: the check after a rent', () => {
  it('runs once per rent, at the first snapshot that shows it running, and says "as offered" quietly', async () => {
    const { health, calls, store } = window();
    await health.expect(7);
    assert.deepEqual(await settle(health.update([BOOTING])), [], 'not while it boots');
    const [result] = await settle(health.update([INSTANCE]));
    assert.equal(result?.kind, 'asOffered');
    assert.equal(result?.kind === 'asOffered' && result.status, '1× RTX 4090 as offered');
    assert.deepEqual(await settle(health.update([INSTANCE])), [], 'not a second time');
    assert.equal(calls.run, 1);
    assert.deepEqual(store.get('healthAfterRent'), {}, 'the expected check is gone once done');
    assert.match(calls.scripts[0]!, /count=64 /, 'the automatic check writes 64 MiB');
  });

  it('never checks an instance this window did not rent', async () => {
    const { health, calls } = window();
    assert.deepEqual(await settle(health.update([INSTANCE])), []);
    assert.equal(calls.reach, 0);
  });

  it('with gpuRental.health.checkAfterRent off: nothing is expected, nothing runs', async () => {
    const { health, calls, store } = window({ enabled: false });
    await health.expect(7);
    assert.deepEqual(store.get('healthAfterRent'), {});
    assert.deepEqual(await settle(health.update([INSTANCE])), []);
    assert.equal(await health.checkNodes([INSTANCE]), undefined);
    assert.equal(calls.reach + calls.run, 0);
  });

  it('two windows that see it run: one checks it, the other says nothing', async () => {
    const store = new StoredState(STORED, new MemoryStore());
    const a = window({ store, owner: 'window-a' });
    const b = window({ store, owner: 'window-b' });
    await a.health.expect(7);
    const first = a.health.update([INSTANCE]);
    const second = b.health.update([INSTANCE]);
    const results = [...(await settle(first)), ...(await settle(second))];
    assert.deepEqual(
      results.map((r) => r.kind),
      ['asOffered', 'elsewhere'],
    );
    assert.equal(a.calls.run + b.calls.run, 1, 'one ssh round trip in all');
    assert.deepEqual(await settle(b.health.update([INSTANCE])), [], 'nor later, once it is done');
  });

  it('a machine with a finding: a warning with the verdict, its cost so far and Destroy Instance', async () => {
    const { health } = window({ run: () => Promise.resolve({ code: 0, stdout: output('NVIDIA GeForce GTX 1080'), stderr: '' }) });
    await health.expect(7);
    const [result] = await settle(health.update([INSTANCE]));
    assert.ok(result?.kind === 'finding');
    assert.equal(result.notice.severity, 'warning');
    assert.deepEqual(result.notice.actions, ['destroy']);
    assert.match(
      result.notice.text,
      /^GPU Rental: RTX 4090 #7 after its rent: Not what was offered \(1× RTX 4090\)\. It has 1× NVIDIA GeForce GTX 1080/,
    );
    assert.match(result.notice.text, /It has cost about \$0\.020 so far \(2m 00s at \$0\.600\/h\)/);
    assert.equal(result.status, '1× RTX 4090: not as offered');
  });

  it('a check that cannot run is a log line and a quiet, neutral "not checked yet", never a notification', async () => {
    const refused = window({
      run: () => Promise.resolve({ code: 255, stdout: '', stderr: 'ssh: connect to host x port 22: Connection refused\n' }),
    });
    await refused.health.expect(7);
    const [a] = await settle(refused.health.update([INSTANCE]));
    assert.ok(a?.kind === 'notChecked');
    assert.equal(a.status, 'health: not checked yet (ssh did not reach it (ssh: connect to host x port 22: Conne…)');
    assert.equal(a.why, 'ssh did not reach it (ssh: connect to host x port 22: Connection refused)', 'the reason whole, for the log');
    assert.equal(refused.calls.warnings.length, 1);
    assert.ok(!('notice' in a));

    const noSshd = window({ reach: () => Promise.reject(new Error('SSH did not answer')) });
    await noSshd.health.expect(7);
    const [b] = await settle(noSshd.health.update([INSTANCE]));
    assert.equal(b?.kind === 'notChecked' && b.status, 'health: not checked yet (SSH did not answer)');

    const missing = window({
      run: () =>
        Promise.resolve({
          code: 0,
          stdout: `@@gpu-rental-health ${NONCE} begin gpus\nnvidia-smi: not found\n@@gpu-rental-health ${NONCE} end gpus 127`,
          stderr: '',
        }),
    });
    await missing.health.expect(7);
    const [c] = await settle(missing.health.update([INSTANCE]));
    assert.equal(
      c?.kind === 'notChecked' && c.status,
      'health: not checked yet (nvidia-smi is not on the machine, so its GPUs could not be …)',
    );
    const noKey = window({ reach: () => Promise.reject(new Error('no SSH key yet; Connect makes one')) });
    await noKey.health.expect(7);
    const [d] = await settle(noKey.health.update([INSTANCE]));
    assert.equal(d?.kind === 'notChecked' && d.status, 'health: not checked yet (no SSH key yet; Connect makes one)');
    const garbage = window({ run: () => Promise.resolve({ code: 0, stdout: '\u0000garbage', stderr: '' }) });
    await garbage.health.expect(7);
    assert.equal((await settle(garbage.health.update([INSTANCE])))[0]?.kind, 'notChecked');
  });

  it("a cluster's nodes: each checked once, one summary; a node with a finding makes it a warning", async () => {
    const { health, calls } = window();
    const nodes = [INSTANCE, { ...INSTANCE, id: 8 }];
    const summary = await health.checkNodes(nodes);
    assert.equal(summary?.status, 'cluster health: 2 of 2 nodes as offered');
    assert.equal(summary?.notice, undefined, 'as offered: no notification');
    assert.equal(calls.run, 2);
    assert.equal(await health.checkNodes(nodes), undefined, 'not twice');

    const bad = nodesSummary(
      [
        {
          kind: 'asOffered',
          instance: INSTANCE,
          verdict: { readable: true, matches: true, offered: '1× RTX 4090', findings: [], text: '1× RTX 4090 as offered.' },
          status: '',
        },
        {
          kind: 'finding',
          instance: { ...INSTANCE, id: 8 },
          verdict: { readable: true, matches: false, offered: '1× RTX 4090', findings: [], text: 'Not what was offered (1× RTX 4090).' },
          status: '',
          notice: { severity: 'warning', text: '' },
        },
      ],
      NOW,
    );
    assert.equal(bad.notice?.severity, 'warning');
    assert.match(bad.notice!.text, /1 of 2 nodes as offered\. RTX 4090 #8: Not what was offered/);
  });

  it("a cluster's nodes not checked yet read as a state, not as a failure (issue 36, seen on screen)", async () => {
    const { health } = window({ reach: () => Promise.reject(new Error('no SSH key yet; Connect makes one')) });
    const summary = await health.checkNodes([INSTANCE, { ...INSTANCE, id: 8 }]);
    assert.equal(summary?.status, 'cluster health: 2 nodes not checked yet');
    assert.equal(summary?.notice, undefined);

    const asOffered = (await window().health.checkNodes([INSTANCE]))!.results[0]!;
    const unchecked = summary!.results[0]!;
    assert.equal(nodesSummary([asOffered, unchecked], NOW).status, 'cluster health: 1 of 1 checked nodes as offered, 1 not checked yet');
  });
});
