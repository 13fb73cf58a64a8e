// The health check against a machine whose nvidia-smi, df, curl or ssh prints what it likes (issue
// 36, defects 3, 5 and 6): no text from it becomes a link in a notice, no notice grows with what it
// prints, a GPU listed twice is one GPU, and VRAM that reads as no size is "not checked", never
// "as offered". Each case runs the real readers and the real verdict, through Check Machine Health
// and through the check after a rent.
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { HealthAfterRent, nodesSummary, type AfterRentResult } from '../../../src/core/health/afterRent';
import { checkHealth, destroyAfterCheck, type HealthDeps } from '../../../src/core/health/check';
import { readHealthOutput } from '../../../src/core/health/probe';
import { GPU_FIELDS, distinctGpus, readGpuCsv } from '../../../src/core/health/smi';
import { judge } from '../../../src/core/health/verdict';
import { silentLogger } from '../../../src/core/log';
import { silentProgress } from '../../../src/core/progress';
import { StoredState } from '../../../src/core/state/storedState';
import { STORED } from '../../../src/core/stored';
import { RemoteCommandError, type RemoteResult } from '../../../src/core/ssh/remote';
import { MemoryStore } from '../state/memoryStore';
import { scriptedAsk } from '../../support/scriptedAsk';

const NONCE = 'n36';
const START = 1_000_000;
const NOW = (START + 120) * 1000;
const INSTANCE: Instance = {
  id: 7,
  actual_status: 'running',
  intended_status: 'running',
  gpu_name: 'RTX 4090',
  num_gpus: 2,
  gpu_ram: 24564,
  driver_version: '575.57.08',
  start_date: START,
  dph_total: 0.6,
};

/** A notice a planted link would hijack: VS Code's notifications link `[label](https://…|command:…|file:…)`. */
const LINK = /\[[^\]]*\]\((?:https?:\/\/|command:|file:)/;
const PLANTED = ['[Fix the driver](command:workbench.action.openSettings)', '[x](https://evil)', '[open](file:///etc/passwd)'];
/** The bound this suite holds every health notice to, in characters. */
const NOTICE_BOUND = 2000;

/** One nvidia-smi CSV line: an honest RTX 4090 unless told otherwise. */
function gpuLine(index: number, over: Record<string, string> = {}): string {
  const row: Record<string, string> = {
    index: String(index),
    name: 'NVIDIA GeForce RTX 4090',
    'memory.total': '24564',
    driver_version: '575.57.08',
    'pcie.link.gen.current': '4',
    'pcie.link.gen.max': '4',
    'pcie.link.width.current': '16',
    'pcie.link.width.max': '16',
    'ecc.mode.current': '[N/A]',
    'ecc.errors.uncorrected.volatile.total': '[N/A]',
    ...over,
  };
  return GPU_FIELDS.map((f) => row[f]).join(', ');
}

/** The script's output: each section's text and exit status. */
function output(parts: Record<string, [string, number]>): string {
  return Object.entries(parts)
    .map(([s, [text, rc]]) => `@@gpu-rental-health ${NONCE} begin ${s}\n${text}\n@@gpu-rental-health ${NONCE} end ${s} ${rc}`)
    .join('\n');
}

const DISK: [string, number] = [
  'Filesystem 1024-blocks Used Available Capacity Mounted on\noverlay 104857600 10485760 94371840 10% /workspace',
  0,
];
const VERSION: [string, number] = ['NVIDIA-SMI version  : 575.57.08\nDRIVER version     : 575.57.08\nCUDA Version       : 12.9', 0];

/** Check Machine Health with ssh scripted to `run`. */
async function manualCheck(run: () => Promise<RemoteResult>, instance: Instance = INSTANCE) {
  const deps: HealthDeps = {
    ask: scriptedAsk([]),
    instances: { show: () => Promise.resolve(instance) } as unknown as HealthDeps['instances'],
    sshTarget: () => Promise.resolve({ instanceId: instance.id, alias: 'gpu-rental-7', args: [] }),
    run,
    progress: silentProgress(),
    nonce: () => NONCE,
    now: () => NOW,
    logger: silentLogger,
  };
  return checkHealth(deps, instance);
}

/** The check after a rent, with ssh scripted to `run` (and `reach`, when given, failing). */
async function afterRent(run: () => Promise<RemoteResult>, o: { reach?: () => Promise<never>; instance?: Instance } = {}) {
  const instance = o.instance ?? INSTANCE;
  const health = new HealthAfterRent({
    store: new StoredState(STORED, new MemoryStore()),
    owner: 'window-a',
    enabled: () => true,
    speedTestUrl: () => '',
    reach: () => (o.reach ? o.reach() : Promise.resolve({ instanceId: instance.id, alias: 'gpu-rental-7', args: [] })),
    run: () => run(),
    nonce: () => NONCE,
    now: () => NOW,
    logger: silentLogger,
  });
  await health.expect(instance.id);
  const [result] = await Promise.all(health.update([instance]));
  return result!;
}

const ok = (stdout: string) => () => Promise.resolve({ code: 0, stdout, stderr: '' });

/** Every text the check shows: the notice, and the status bar's line after a rent. */
function shown(result: Awaited<ReturnType<typeof manualCheck>> | AfterRentResult): string[] {
  const texts: string[] = [];
  if ('notice' in result && result.notice) texts.push(result.notice.text);
  if ('status' in result) texts.push(result.status);
  return texts;
}

describe('health: a machine that prints link syntax (issue 36, defect 3)', () => {
  for (const planted of PLANTED) {
    const outputs: Array<[string, string]> = [
      [
        'the GPU name',
        output({ gpus: [`${gpuLine(0, { name: planted })}\n${gpuLine(1, { name: planted })}`, 0], version: VERSION, disk: DISK }),
      ],
      ['the driver field', output({ gpus: [`${gpuLine(0, { driver_version: planted })}\n${gpuLine(1)}`, 0], disk: DISK })],
      ["nvidia-smi's error line", output({ gpus: [planted, 9], disk: DISK })],
      [
        "df's folder",
        output({
          gpus: [`${gpuLine(0)}\n${gpuLine(1)}`, 0],
          version: VERSION,
          disk: [`${DISK[0].replace('/workspace', `/${planted}`)}`, 0],
        }),
      ],
      [
        "curl's error line",
        output({
          gpus: [`${gpuLine(0)}\n${gpuLine(1)}`, 0],
          version: VERSION,
          disk: DISK,
          speed: [`curl 000 0 0.1\ncurl: (6) ${planted}`, 6],
        }),
      ],
    ];
    for (const [where, stdout] of outputs) {
      it(`${planted} in ${where} is never a link, in Check Machine Health or after a rent`, async () => {
        const manual = await manualCheck(ok(stdout));
        const after = await afterRent(ok(stdout));
        for (const text of [...shown(manual), ...shown(after)]) {
          assert.doesNotMatch(text, LINK, text);
          assert.ok(!text.includes(']('), text);
        }
        // Still shown, as text, so the person sees what the machine printed.
        assert.ok(
          shown(manual).some((t) => t.includes(planted.replace('](', ']\\('))),
          shown(manual).join('\n'),
        );
      });
    }

    it(`${planted} in ssh's error output is never a link`, async () => {
      const refused = () => Promise.resolve({ code: 255, stdout: '', stderr: `${planted}\n` });
      const thrown = () => Promise.reject(new RemoteCommandError(planted, undefined));
      for (const run of [refused, thrown]) {
        const manual = await manualCheck(run);
        assert.equal(manual.kind, 'unreachable');
        for (const text of shown(manual)) assert.doesNotMatch(text, LINK, text);
      }
      const after = await afterRent(refused);
      const unreachable = await afterRent(ok(''), { reach: () => Promise.reject(new Error(planted)) });
      for (const text of [...shown(after), ...shown(unreachable)]) assert.doesNotMatch(text, LINK, text);
    });

    it(`${planted} as the offer's GPU name or driver is never a link`, async () => {
      const instance = { ...INSTANCE, gpu_name: planted, driver_version: planted };
      const manual = await manualCheck(ok(output({ gpus: [`${gpuLine(0)}\n${gpuLine(1)}`, 0], disk: DISK })), instance);
      assert.equal(manual.kind, 'checked');
      for (const text of shown(manual)) assert.doesNotMatch(text, LINK, text);
    });
  }
});

describe('health: a machine that lists thousands of GPUs (issue 36, defect 5)', () => {
  const hostile = (i: number) => ({
    // Each name its own, as long as the quote allows, and every kind of finding on every GPU.
    name: `NVIDIA A${i} ${'x'.repeat(70)}`,
    'memory.total': '8192',
    'pcie.link.width.current': '4',
    'ecc.errors.uncorrected.volatile.total': '3',
  });
  const lines = (n: number, over: (i: number) => Record<string, string>) =>
    Array.from({ length: n }, (_, i) => gpuLine(i, over(i))).join('\n');

  it(`5,000 GPU rows give notices of at most ${NOTICE_BOUND} characters that still say what is wrong`, async () => {
    for (const gpus of [lines(5000, hostile), lines(5000, () => ({ 'memory.total': '8192' }))]) {
      const stdout = output({ gpus: [gpus, 0], version: VERSION, disk: DISK });
      const manual = await manualCheck(ok(stdout));
      const after = await afterRent(ok(stdout));
      assert.ok(manual.kind === 'checked' && after.kind === 'finding');
      for (const text of [manual.notice.text, after.notice.text]) {
        assert.ok(text.length <= NOTICE_BOUND, `${text.length} characters`);
        assert.match(text, /Not what was offered \(2× RTX 4090\)/);
        assert.match(text, /Destroy it now/);
      }
      assert.match(manual.notice.text, /GPU 0 has 8\.0 GB of memory; the offer says 24\.0 GB\./);
      assert.match(manual.notice.text, /More GPUs with less memory than offered: 4997\./);
      // The modal before a destroy quotes the mismatches: bounded the same way.
      const modal: string[] = [];
      const ask = { ...scriptedAsk([]), confirm: (title: string, detail: string) => (modal.push(title, detail), Promise.resolve(false)) };
      const deps = {
        ask,
        instances: { show: () => Promise.resolve(INSTANCE) },
        now: () => NOW,
        logger: silentLogger,
      } as unknown as HealthDeps;
      await destroyAfterCheck(deps, INSTANCE, manual.verdict);
      assert.ok(modal.join(' ').length <= NOTICE_BOUND, `${modal.join(' ').length} characters in the modal`);
    }
  });

  it('names three other models and counts the rest', () => {
    const reading = readHealthOutput(output({ gpus: [lines(5000, hostile), 0], version: VERSION, disk: DISK }), NONCE);
    const verdict = judge(reading, INSTANCE);
    const models = verdict.findings.filter((f) => f.code === 'model');
    assert.equal(models.length, 4);
    assert.match(models[3]!.text, /^It has 4997 more GPUs of 4997 other models, not the offered RTX 4090\.$/);
  });

  it("a cluster's notice names three nodes with a finding and counts the rest", async () => {
    const stdout = output({ gpus: [lines(5000, hostile), 0], version: VERSION, disk: DISK });
    const one = await afterRent(ok(stdout), { instance: { ...INSTANCE, label: 'n'.repeat(200) } });
    const results: AfterRentResult[] = Array.from({ length: 12 }, (_, i) => ({ ...one, instance: { ...one.instance, id: i + 1 } }));
    const summary = nodesSummary(results, NOW);
    assert.ok(summary.notice);
    assert.ok(summary.notice.text.length <= NOTICE_BOUND, `${summary.notice.text.length} characters`);
    assert.match(summary.notice.text, /More nodes with a finding: 9\./);
  });
});

describe('health: a GPU listed twice, and VRAM that reads as no size (issue 36, defect 6)', () => {
  it('the same nvidia-smi line twice against 2 offered GPUs is one GPU, not "2× RTX 4090 as offered"', async () => {
    const stdout = output({ gpus: [`${gpuLine(0)}\n${gpuLine(0)}`, 0], version: VERSION, disk: DISK });
    const manual = await manualCheck(ok(stdout));
    const after = await afterRent(ok(stdout));
    assert.ok(manual.kind === 'checked' && after.kind === 'finding');
    assert.equal(manual.verdict.matches, false);
    assert.doesNotMatch(manual.notice.text, /as offered\./);
    assert.match(manual.notice.text, /GPUs found: 1 of 2 offered\./);
    assert.match(manual.notice.text, /nvidia-smi listed a GPU more than once \(1 repeated lines, the first for GPU 0\)/);
    assert.equal(after.status, '2× RTX 4090: not as offered');
  });

  it('a GPU is one GPU by its UUID or bus id too, where the query asked for them', () => {
    const fields = ['index', 'name', 'uuid', 'pci.bus_id'];
    const read = readGpuCsv(
      [
        '0, NVIDIA GeForce RTX 4090, GPU-aaaa, 00000000:01:00.0',
        '1, NVIDIA GeForce RTX 4090, GPU-AAAA, 00000000:02:00.0',
        '2, NVIDIA GeForce RTX 4090, GPU-cccc, 00000000:01:00.0',
        '3, NVIDIA GeForce RTX 4090, GPU-dddd, 00000000:04:00.0',
      ].join('\n'),
      fields,
    );
    assert.ok(read.ok);
    const { gpus, repeated } = distinctGpus(read.value);
    assert.deepEqual(
      gpus.map((g) => g.index),
      [0, 3],
    );
    assert.deepEqual(
      repeated.map((g) => g.index),
      [1, 2],
    );
  });

  for (const memory of ['NaN', '1e400', '9'.repeat(400), '99999999999', '0', '[N/A]']) {
    it(`memory read as ${memory.length > 20 ? `${memory.length} nines` : memory} is "VRAM not checked", not "as offered"`, async () => {
      const stdout = output({ gpus: [`${gpuLine(0, { 'memory.total': memory })}\n${gpuLine(1)}`, 0], version: VERSION, disk: DISK });
      const manual = await manualCheck(ok(stdout));
      const after = await afterRent(ok(stdout));
      assert.ok(manual.kind === 'checked');
      assert.match(manual.verdict.text, /^2× RTX 4090 as offered, except its VRAM, which was not checked\./);
      assert.match(manual.verdict.text, /nvidia-smi gave no usable memory size for GPU 0, so its VRAM was not checked\./);
      assert.doesNotMatch(manual.verdict.text, /as offered\./);
      assert.equal(manual.notice.severity, 'warning');
      assert.equal(after.kind === 'finding' && after.status, '2× RTX 4090: VRAM not checked');
    });
  }
});
