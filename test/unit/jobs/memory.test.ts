import assert from 'node:assert/strict';
import { JOB_MEMORY_KEYS, JobMemory, MAX_REMEMBERED_JOBS, type WorkspaceMemento } from '../../../src/core/jobs/memory';

function memento(initial: Record<string, unknown> = {}): WorkspaceMemento & { values: Record<string, unknown> } {
  const values = { ...initial };
  return {
    values,
    get: (key) => values[key],
    update: (key, value) => {
      values[key] = value;
      return Promise.resolve();
    },
  };
}

const job = (n: number, instanceId = 7) => ({
  jobId: `20261124-000000-${String(n).padStart(6, '0')}`,
  instanceId,
  label: `job ${n}`,
  startedAtMs: n,
  terminalOpen: false,
  ended: false,
});

describe('jobs: what a workspace remembers', () => {
  it('remembers jobs, changes one, and keeps the newest fifty', async () => {
    const m = memento();
    const memory = new JobMemory(m);
    await memory.remember(job(1));
    await memory.remember(job(2, 8));
    await memory.change(job(1).jobId, { terminalOpen: true });
    assert.deepEqual(memory.job(job(1).jobId), { ...job(1), terminalOpen: true });
    assert.equal(memory.jobs().length, 2);
    for (let n = 10; n < 10 + MAX_REMEMBERED_JOBS + 5; n++) await memory.remember(job(n));
    assert.equal(memory.jobs().length, MAX_REMEMBERED_JOBS);
    assert.equal(memory.jobs().at(-1)?.jobId, job(10 + MAX_REMEMBERED_JOBS + 4).jobId);
  });

  it('reads a damaged value as nothing remembered, and drops records it cannot use', () => {
    assert.deepEqual(new JobMemory(memento({ [JOB_MEMORY_KEYS.jobs]: 'nonsense' })).jobs(), []);
    const mixed = [job(1), { ...job(2), jobId: '../../etc' }, { ...job(3), instanceId: -1 }, null, { ...job(4), label: 5 }];
    const read = new JobMemory(memento({ [JOB_MEMORY_KEYS.jobs]: mixed })).jobs();
    assert.deepEqual(
      read.map((j) => [j.jobId, j.label]),
      [
        [job(1).jobId, 'job 1'],
        [job(4).jobId, job(4).jobId],
      ],
    );
  });

  it('remembers the last command and the upload choice', async () => {
    const memory = new JobMemory(memento());
    assert.equal(memory.lastCommand(), undefined);
    assert.equal(memory.uploadFirst(), undefined);
    await memory.setLastCommand('python3 train.py');
    await memory.setUploadFirst(false);
    assert.equal(memory.lastCommand(), 'python3 train.py');
    assert.equal(memory.uploadFirst(), false);
  });

  it('remembers the last job, its policy as the job file writes it, and reads a damaged one as none', async () => {
    const m = memento();
    const memory = new JobMemory(m);
    assert.equal(memory.lastJob(), undefined);
    const last = {
      instanceId: 41,
      command: 'python3 train.py',
      uploadFirst: true,
      localDir: '/home/me/p',
      stopAtEnd: false,
      resume: {
        checkpointDir: 'ck',
        resumeCommand: 'python3 train.py --resume {latest}',
        policy: { kind: 'raise' as const, ceiling: 0.6 },
      },
    };
    await memory.setLastJob(last);
    assert.deepEqual((m.values[JOB_MEMORY_KEYS.lastJob] as { resume: unknown }).resume, { ...last.resume, policy: 'raise 0.6' });
    assert.deepEqual(memory.lastJob(), last);
    await memory.setLastJob({ command: 'ls', uploadFirst: false, stopAtEnd: true });
    assert.deepEqual(memory.lastJob(), { command: 'ls', uploadFirst: false, stopAtEnd: true });
    for (const damaged of [
      'nonsense',
      { command: '', uploadFirst: false, stopAtEnd: true },
      { command: 'ls', uploadFirst: 'yes', stopAtEnd: true },
      { command: 'ls', uploadFirst: false, stopAtEnd: true, resume: { checkpointDir: 'ck', resumeCommand: 'go', policy: 'raise 9999' } },
      { command: 'ls', uploadFirst: false, stopAtEnd: true, resume: { checkpointDir: 'ck', policy: 'wait' } },
    ])
      assert.equal(new JobMemory(memento({ [JOB_MEMORY_KEYS.lastJob]: damaged })).lastJob(), undefined, JSON.stringify(damaged));
    assert.deepEqual(
      new JobMemory(
        memento({ [JOB_MEMORY_KEYS.lastJob]: { command: 'ls', uploadFirst: false, stopAtEnd: true, instanceId: -3, cwd: 7 } }),
      ).lastJob(),
      { command: 'ls', uploadFirst: false, stopAtEnd: true },
      'what cannot be used is left out',
    );
  });

  it('says which instances have remembered jobs, following every value stored, and hands out copies', async () => {
    const m = memento();
    const memory = new JobMemory(m);
    assert.equal(memory.hasJobsOn(7), false);
    await memory.remember(job(1, 7));
    assert.equal(memory.hasJobsOn(7), true);
    assert.equal(memory.hasJobsOn(8), false);
    // Another window (or an older version) stores a new list: it is read, not the last one.
    m.values[JOB_MEMORY_KEYS.jobs] = [job(2, 8)];
    assert.equal(memory.hasJobsOn(7), false);
    assert.equal(memory.hasJobsOn(8), true);
    const list = memory.jobs();
    list.pop();
    assert.equal(memory.jobs().length, 1, 'changing the list handed out changes nothing remembered');
  });
});
