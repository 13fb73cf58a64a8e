// Check Machine Health's flow with a scripted ssh and a scripted user: what is said when the machine
// is not running, unreachable, unreadable or not what was offered; what it cost so far; and that the
// destroy happens only after the modal's Destroy, through the one destroy action.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/core/api/instances';
import { checkHealth, destroyAfterCheck, healthActionLabel, type HealthDeps } from '../../../src/core/health/check';
import { GPU_FIELDS } from '../../../src/core/health/smi';
import { silentLogger } from '../../../src/core/log';
import { silentProgress, type Progress } from '../../../src/core/progress';
import { RemoteCommandError, type RemoteResult } from '../../../src/core/ssh/remote';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { scriptedProgress } from '../../support/scriptedProgress';

const NONCE = 'fixednonce';
const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'nvidia-smi');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const INSTANCE: Instance = {
  id: 7,
  actual_status: 'running',
  intended_status: 'running',
  gpu_name: 'H100 SXM',
  num_gpus: 1,
  gpu_ram: 81559,
  cuda_max_good: 12.8,
  start_date: 1_000_000,
  dph_total: 2.4,
  ssh_host: 'ssh1.example',
  ssh_port: 2200,
};
/** Six minutes after the start. */
const NOW = (1_000_000 + 360) * 1000;

/** What the script prints on the captured H100 (the real outputs; our fields picked from the captured line). */
function h100Output(over: Partial<Record<string, [string, number]>> = {}): string {
  const captured = /FIELDS=(\S+)/.exec(fixture('capture.sh'))![1]!.split(',');
  const values = fixture('query-csv-noheader-nounits.txt').trim().split(', ');
  const parts: Record<string, [string, number]> = {
    gpus: [GPU_FIELDS.map((f) => values[captured.indexOf(f)]).join(', '), 0],
    version: [fixture('version.txt'), 0],
    p2p: [fixture('topo-p2p-r.txt'), 0],
    topo: [fixture('topo-m.txt'), 0],
    disk: ['Filesystem 1024-blocks Used Available Capacity Mounted on\noverlay 104857600 10485760 94371840 10% /workspace', 0],
    write: ['268435456 bytes (268 MB, 256 MiB) copied, 0.25 s, 1.1 GB/s', 0],
    ...over,
  };
  return Object.entries(parts)
    .map(([s, [text, rc]]) => `@@gpu-rental-health ${NONCE} begin ${s}\n${text}\n@@gpu-rental-health ${NONCE} end ${s} ${rc}`)
    .join('\n');
}

function fakes(o: { instance?: Instance; answers?: Answer[]; run?: () => Promise<RemoteResult>; progress?: Progress } = {}) {
  const calls = { run: 0, destroy: [] as number[], forget: [] as number[], scripts: [] as string[] };
  const instance = o.instance ?? INSTANCE;
  const ask = scriptedAsk(o.answers ?? []);
  const deps: HealthDeps = {
    ask,
    instances: {
      show: () => Promise.resolve(instance),
      destroy: (id: number) => {
        calls.destroy.push(id);
        return Promise.resolve();
      },
      stop: () => Promise.reject(new Error('not asked')),
    } as unknown as HealthDeps['instances'],
    sshTarget: () => Promise.resolve({ instanceId: instance.id, alias: 'gpu-rental-7', args: [] }),
    run: (_t, script) => {
      calls.run += 1;
      calls.scripts.push(script);
      return o.run ? o.run() : Promise.resolve({ code: 0, stdout: h100Output(), stderr: '' });
    },
    after: {
      forget: (id) => {
        calls.forget.push(id);
        return Promise.resolve();
      },
      refresh: () => Promise.resolve(),
    },
    progress: o.progress ?? silentProgress(),
    nonce: () => NONCE,
    now: () => NOW,
    logger: silentLogger,
  };
  return { deps, calls, ask };
}

describe('health: Check Machine Health (scripted)', () => {
  it('the captured H100 against its offer: as offered, information, no button', async () => {
    const { deps, calls } = fakes();
    const end = await checkHealth(deps, INSTANCE);
    assert.equal(end.kind, 'checked');
    if (end.kind !== 'checked') return;
    assert.equal(end.notice.severity, 'info');
    assert.equal(end.notice.actions, undefined);
    assert.match(end.notice.text, /^GPU Rental: H100 SXM #7: 1× H100 SXM as offered\. /);
    assert.equal(calls.run, 1, 'one ssh round trip');
    assert.match(calls.scripts[0]!, /@@gpu-rental-health fixednonce begin gpus/);
  });

  it('not what was offered: a warning that says why and what it cost so far, with Destroy Instance', async () => {
    const { deps } = fakes({ instance: { ...INSTANCE, num_gpus: 2 } });
    const end = await checkHealth(deps, { ...INSTANCE, num_gpus: 2 });
    assert.ok(end.kind === 'checked');
    assert.equal(end.notice.severity, 'warning');
    assert.deepEqual(end.notice.actions, ['destroy']);
    assert.equal(healthActionLabel('destroy'), 'Destroy Instance');
    assert.match(end.notice.text, /Not what was offered \(2× H100 SXM\)\. GPUs found: 1 of 2 offered\./);
    // 6 minutes at $2.40/h.
    assert.match(end.notice.text, /It has cost about \$0\.240 so far \(6m 00s at \$2\.40\/h\)\./);
  });

  it('Destroy Instance: the modal says why and what it cost; No keeps it, Destroy destroys it once and forgets it', async () => {
    const two = { ...INSTANCE, num_gpus: 2 };
    const declined = fakes({ instance: two, answers: [{ confirm: false }] });
    const checked = await checkHealth(declined.deps, two);
    assert.ok(checked.kind === 'checked');
    assert.deepEqual(await destroyAfterCheck(declined.deps, two, checked.verdict), { kind: 'declined' });
    assert.deepEqual(declined.calls.destroy, []);
    assert.equal(declined.ask.asked[0]!.text, 'Destroy H100 SXM ×2 #7?');
    assert.match(declined.ask.asked[0]!.detail, /GPUs found: 1 of 2 offered\. It has cost about \$0\.240 so far/);

    const confirmed = fakes({ instance: two, answers: [{ confirm: true }] });
    const end = await destroyAfterCheck(confirmed.deps, two, checked.verdict);
    assert.ok(end.kind === 'acted' && end.destroyed);
    assert.deepEqual(confirmed.calls.destroy, [7]);
    assert.deepEqual(confirmed.calls.forget, [7]);
    assert.equal(end.notice.text, 'GPU Rental: destroyed H100 SXM ×2 #7.');
  });

  it('nvidia-smi missing or printing garbage: a clear "could not be checked", no destroy offered, no throw', async () => {
    const missing = fakes({
      run: () =>
        Promise.resolve({
          code: 0,
          stdout: h100Output({ gpus: ["timeout: failed to run command 'nvidia-smi': No such file or directory", 127] }),
          stderr: '',
        }),
    });
    const a = await checkHealth(missing.deps, INSTANCE);
    assert.ok(a.kind === 'checked');
    assert.equal(a.notice.severity, 'warning');
    assert.equal(a.notice.actions, undefined);
    assert.match(a.notice.text, /nvidia-smi is not on the machine, so its GPUs could not be checked/);
    const garbage = fakes({ run: () => Promise.resolve({ code: 0, stdout: '\u0000garbage\n', stderr: '' }) });
    const b = await checkHealth(garbage.deps, INSTANCE);
    assert.ok(b.kind === 'checked' && !b.verdict.readable && b.notice.actions === undefined);
  });

  it('not running: said, and nothing runs over ssh', async () => {
    const stopped = { ...INSTANCE, actual_status: 'stopped', intended_status: 'stopped' };
    const { deps, calls } = fakes({ instance: stopped });
    const end = await checkHealth(deps, stopped);
    assert.equal(end.kind, 'notRunning');
    assert.equal(calls.run, 0);
  });

  it('ssh cannot reach it: a warning with what ssh said; cancelled: nothing said', async () => {
    const refused = fakes({
      run: () => Promise.resolve({ code: 255, stdout: '', stderr: 'ssh: connect to host x port 22: Connection refused\n' }),
    });
    const end = await checkHealth(refused.deps, INSTANCE);
    assert.ok(end.kind === 'unreachable');
    assert.match(end.notice.text, /could not be checked: ssh did not reach it \(ssh: connect to host x port 22: Connection refused\)/);

    const progress = scriptedProgress({ atStart: true });
    const cancelled = fakes({ progress, run: () => Promise.reject(new RemoteCommandError('Abgebrochen.', undefined)) });
    assert.deepEqual(await checkHealth(cancelled.deps, INSTANCE), { kind: 'cancelled' }, 'told by the signal, not by the words');
    assert.equal(cancelled.calls.run, 0, 'cancelled before ssh: the script never runs');
    assert.deepEqual(cancelled.ask.asked, [], 'nothing more is asked');
    assert.deepEqual(
      progress.shown.map((p) => [p.title, p.cancellable, p.ended]),
      [['checking the GPUs and disk of H100 SXM #7…', true, 'rejected']],
    );
  });
});
