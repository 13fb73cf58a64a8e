// The job lifecycle in core (JobBook): starting, listing, following, telling the end, watching the
// stop at the end, re-attaching. Over a fake remote (no ssh), a poller on a fake clock, and
// terminals that record what they are given.
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { JobBook, type Following, type JobRemote, type JobTerminal } from '../../../src/core/jobs/book';
import type { FollowerOptions } from '../../../src/core/jobs/follower';
import { JobMemory, type RememberedJob } from '../../../src/core/jobs/memory';
import { STOP_SEEN_MS, type JobNotice } from '../../../src/core/jobs/notices';
import { jobRows, presentJobRow } from '../../../src/core/jobs/rows';
import { RESUME_HOOK_BEGIN } from '../../../src/core/jobs/resumeScripts';
import { HOOK_GRACE_MS, HOOK_LOOK_MS } from '../../../src/core/jobs/resuming';
import { jobPhase, type JobStatus, type ResumeStatus } from '../../../src/core/jobs/status';
import { listPoller, MemoryLogger, settle } from '../../support';
import { fileCheckpoint } from '../../support/checkpoints';
import { jobStatus } from '../../support/jobStatus';

const ID = 41;
const up = (fields: Partial<Instance> = {}) =>
  ({ id: ID, actual_status: 'running', intended_status: 'running', ...fields }) as unknown as Instance;
const down = (fields: Partial<Instance> = {}) =>
  ({ id: ID, actual_status: 'stopped', intended_status: 'stopped', ...fields }) as unknown as Instance;

function status(jobId: string, fields: Partial<JobStatus> = {}): JobStatus {
  return jobStatus(jobId, { cwd: '/root/p', ...fields });
}

const remembered = (jobId: string, fields: Partial<RememberedJob> = {}): RememberedJob => ({
  jobId,
  instanceId: ID,
  label: 'train.py',
  startedAtMs: 0,
  terminalOpen: false,
  ended: false,
  ...fields,
});

interface FakeFollower extends Following {
  offset: number;
  readonly options: FollowerOptions;
  disposed: boolean;
  pokes: number;
}

/** An instance's jobs as the remote holds them; a listing reads them when it begins and answers when `hold` lets it. */
function fakeRemote() {
  const jobs = new Map<string, JobStatus>();
  const followers: FakeFollower[] = [];
  const started: Array<{ command: string; cwd: string; stopAtEnd: boolean; baseUrl: string | undefined }> = [];
  const resumes: Array<{ jobId: string; movedFrom: number | undefined }> = [];
  let lists = 0;
  let hold: Promise<void> = Promise.resolve();
  const remote: JobRemote = {
    start: (_t, command, o) => {
      started.push({ command, cwd: o.cwd, stopAtEnd: o.stopAtEnd, baseUrl: o.baseUrl });
      jobs.set(o.jobId, status(o.jobId, { label: o.label, cwd: o.cwd, stopAtEnd: o.stopAtEnd }));
      return Promise.resolve('tmux');
    },
    list: async () => {
      lists++;
      const seen = [...jobs.values()];
      await hold;
      return seen;
    },
    stop: () => Promise.resolve(true),
    resume: (_t, jobId, o) => {
      resumes.push({ jobId, movedFrom: o?.movedFrom });
      const s = jobs.get(jobId);
      if (s) jobs.set(jobId, { ...s, alive: true, logBytes: (s.logBytes ?? 0) + 40 });
      return Promise.resolve('resumed');
    },
    follow: (options) => {
      let finish = () => {};
      const f: FakeFollower = {
        offset: options.offset ?? 0,
        options,
        disposed: false,
        pokes: 0,
        start: () => new Promise<void>((resolve) => (finish = resolve)),
        poke: () => void f.pokes++,
        dispose: () => {
          f.disposed = true;
          finish();
        },
      };
      followers.push(f);
      return f;
    },
  };
  return {
    remote,
    jobs,
    followers,
    started,
    resumes,
    lists: () => lists,
    holdListings: () => {
      let release = () => {};
      hold = new Promise((r) => (release = r));
      return release;
    },
  };
}

function fakeTerminal(): JobTerminal & { shown: number } {
  const t = {
    text: '',
    isOpen: false,
    shown: 0,
    append: (chunk: Buffer) => void (t.text += chunk.toString('utf8')),
    note: (line: string) => void (t.text += `[${line}]\n`),
    show: () => {
      t.shown++;
      t.isOpen = true;
    },
    dispose: () => void (t.isOpen = false),
  };
  return t;
}

async function setup(instances: Instance[], jobs: RememberedJob[] = []) {
  const values: Record<string, unknown> = { 'gpuRental.jobs.remembered': jobs };
  const memory = new JobMemory({ get: (k) => values[k], update: (k, v) => Promise.resolve(void (values[k] = v)) });
  const p = listPoller(instances);
  await p.poller.refresh();
  const r = fakeRemote();
  const terminals = new Map<string, ReturnType<typeof fakeTerminal>>();
  const notices: JobNotice[] = [];
  const book = new JobBook({
    poller: p.poller,
    sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: 'fake', args: [] }),
    memory,
    logger: new MemoryLogger(),
    remote: r.remote,
    timers: p.clock,
    terminal: (job) => {
      const t = fakeTerminal();
      terminals.set(job.jobId, t);
      return t;
    },
  });
  book.onDidNotify((n) => notices.push(n));
  return { ...p, ...r, book, memory, terminals, notices };
}

describe('jobs: the job book', () => {
  it('starts a job, remembers it, opens its terminal, and lists again after a listing begun before the start', async () => {
    const t = await setup([up()]);
    const release = t.holdListings();
    const before = t.book.list(ID);
    const { jobId } = await t.book.run(up(), { command: 'python3 train.py', cwd: '/root/p', stopAtEnd: false, baseUrl: 'https://api' });
    assert.deepEqual(
      t.started,
      [{ command: 'python3 train.py', cwd: '/root/p', stopAtEnd: false, baseUrl: undefined }],
      'no API URL unless it stops',
    );
    assert.deepEqual(
      t.memory.jobs().map((j) => [j.jobId, j.terminalOpen, j.ended]),
      [[jobId, true, false]],
    );
    assert.equal(t.terminals.get(jobId)?.shown, 1, 'its terminal opens');
    release();
    await before;
    await settle();
    // The listing begun before the start did not show the job; the one after it does.
    assert.equal(t.lists(), 2);
    const [row] = t.book.rows(ID);
    assert.equal(row?.state, 'running');
    assert.match(row?.description ?? '', /^running /);
    assert.equal(t.book.runsJobs(ID), true);
  });

  it('tells the end once, as a warning with Show Output when it failed, and notes it in the terminal', async () => {
    const id = '20261124-000001-aaaaaa';
    const t = await setup([up()], [remembered(id, { terminalOpen: true })]);
    t.jobs.set(id, status(id));
    t.book.reattach();
    await settle();
    const follower = t.followers.find((f) => f.options.jobId === id)!;
    const end = status(id, { alive: false, exitCode: 4, endedAt: 1_004 });
    follower.options.onEnd(end);
    follower.options.onEnd(end);
    await settle();
    assert.deepEqual(t.notices, [
      {
        severity: 'warning',
        text: 'GPU Rental: train.py failed (exit 4) on #41 after 0:04.',
        actions: ['showOutput'],
        job: { instanceId: ID, jobId: id, label: 'train.py' },
      },
    ]);
    assert.equal(t.memory.job(id)?.ended, true);
    assert.match(t.terminals.get(id)!.text, /\[train\.py failed \(exit 4\) on #41 after 0:04\.\]/);
  });

  it('a job that stops its instance: says so once the poll shows it stopped, with what the disk bills', async () => {
    const id = '20261124-000002-bbbbbb';
    const t = await setup([up()], [remembered(id)]);
    t.jobs.set(id, status(id, { stopAtEnd: true }));
    t.book.reattach();
    await settle();
    t.followers[0]!.options.onEnd(status(id, { alive: false, exitCode: 0, endedAt: 1_060, stopAtEnd: true }));
    t.set([down({ storage_total_cost: 0.0125 })]);
    await t.clock.advance(5_000);
    assert.deepEqual(
      t.notices.map((n) => [n.severity, n.text]),
      [
        ['info', 'GPU Rental: train.py finished (exit 0) on #41 after 1:00.'],
        [
          'info',
          "GPU Rental: #41 was stopped by the job's end; its disk still bills $0.013/h until you destroy it. Download the outputs before you destroy it.",
        ],
      ],
    );
    await t.clock.advance(STOP_SEEN_MS);
    assert.equal(t.notices.length, 2, 'no warning once it was seen stopped');
  });

  it('a job that asked to stop its instance that is not seen stopped warns it may still bill, after three minutes', async () => {
    const id = '20261124-000003-cccccc';
    const t = await setup([up()], [remembered(id)]);
    t.jobs.set(id, status(id, { stopAtEnd: true }));
    t.book.reattach();
    await settle();
    t.followers[0]!.options.onEnd(status(id, { alive: false, exitCode: 0, endedAt: 1_060, stopAtEnd: true }));
    await t.clock.advance(STOP_SEEN_MS - 1_000);
    assert.equal(t.notices.length, 1, 'only the end so far');
    await t.clock.advance(1_000);
    assert.equal(t.notices[1]?.severity, 'warning');
    assert.match(
      t.notices[1]!.text,
      /^GPU Rental: the job on #41 asked the service to stop the instance, but it is not seen stopped after 3 minutes/,
    );
  });

  it('re-attaches when the instance runs again: an open terminal from the start, a closed one from the tail; polls meanwhile', async () => {
    const open = '20261124-000004-dddddd';
    const closed = '20261124-000005-eeeeee';
    const done = '20261124-000006-ffffff';
    const jobs = [remembered(open, { terminalOpen: true }), remembered(closed), remembered(done, { ended: true })];
    const t = await setup([down()], jobs);
    assert.equal(t.poller.active, true, 'unfinished jobs keep the poller polling');
    assert.deepEqual(
      t.book.rows(ID).map((r) => [r.jobId, r.state, r.description]),
      jobs.map((j) => [j.jobId, 'starting', 'waiting for the instance to run']),
    );
    for (const j of jobs) t.jobs.set(j.jobId, status(j.jobId, { logBytes: 1_000_000 }));
    t.set([up()]);
    await t.clock.advance(10_000);
    assert.deepEqual(
      t.followers.map((f) => [f.options.jobId, f.options.offset]),
      [
        [open, 0],
        [closed, 1_000_000 - 256 * 1024],
      ],
      'an ended job is not followed again',
    );
    assert.equal(t.terminals.get(open)?.shown, 1);
    assert.equal(t.terminals.get(closed)?.shown ?? 0, 0, 'a closed terminal stays closed');
    assert.match(
      t.terminals.get(closed)!.text,
      /the first 737856 bytes of the output are in ~\/\.gpu-rental\/jobs\/.+\/log on the instance/,
    );
  });

  it('an instance the account no longer lists: its followers stop and say so, and nothing polls for it', async () => {
    const id = '20261124-000007-gggggg';
    const t = await setup([up()], [remembered(id)]);
    t.jobs.set(id, status(id));
    t.book.reattach();
    await settle();
    assert.equal(t.followers.length, 1);
    t.set([]);
    await t.poller.refresh();
    assert.equal(t.followers[0]!.disposed, true);
    assert.match(t.terminals.get(id)!.text, /#41 is not listed by the account any more: no longer following this job/);
    assert.equal(t.poller.active, false);
  });
  it('a job listed running on an instance the poll shows stopped is interrupted at once, not while it is only stopping', async () => {
    const id = '20261124-000008-hhhhhh';
    const t = await setup([up()], [remembered(id)]);
    t.jobs.set(id, status(id));
    await t.book.list(ID);
    let changes = 0;
    t.book.onDidChange(() => changes++);
    t.set([up({ intended_status: 'stopped' })]);
    await t.poller.refresh();
    assert.equal(t.book.runsJobs(ID), true, 'a stopping instance still runs its processes');
    t.set([down()]);
    await t.poller.refresh();
    assert.deepEqual(
      t.book.statusesOf(ID).map((s) => [s.jobId, jobPhase(s)]),
      [[id, 'interrupted']],
    );
    assert.equal(t.book.runsJobs(ID), false);
    assert.equal(changes, 1, 'the rows changed once');
    await t.poller.refresh();
    assert.equal(changes, 1, 'and not again on the next poll');
  });
  it('a job that stops its instance at its end is not called interrupted when the instance stops: the stop is its own', async () => {
    const id = '20261124-000009-iiiiii';
    const t = await setup([up()], [remembered(id)]);
    t.jobs.set(id, status(id, { stopAtEnd: true }));
    await t.book.list(ID);
    t.set([down()]);
    await t.poller.refresh();
    assert.deepEqual(
      t.book.statusesOf(ID).map((s) => [s.jobId, jobPhase(s)]),
      [[id, 'running']],
    );
  });
});

describe('jobs: the rows under an instance', () => {
  it('reads a job that ran while its instance was down as interrupted, and one stopped by the user as not a success', () => {
    const running = status('20261124-000008-hhhhhh');
    const stopped = status('20261124-000009-iiiiii', { alive: false, exitCode: 0, endedAt: 1_004, cancelled: 'keep' });
    const ok = status('20261124-000010-jjjjjj', { alive: false, exitCode: 0, endedAt: 1_004 });
    const whileDown = jobRows(ID, [running, stopped, ok], [], false, 0);
    assert.deepEqual(
      whileDown.map((r) => [r.state, r.description]),
      [
        ['interrupted', 'interrupted (the instance stopped)'],
        ['failed', 'stopped by you after 0:04'],
        ['succeeded', 'exited 0 after 0:04'],
      ],
    );
    assert.deepEqual(
      whileDown.map((r) => [presentJobRow(r).contextValue, presentJobRow(r).icon.id]),
      [
        ['job-ended', 'debug-disconnect'],
        ['job-ended', 'error'],
        ['job-ended', 'pass'],
      ],
    );
    const [row] = jobRows(ID, [running], [remembered('20261124-000011-kkkkkk')], true, 1_723_000);
    assert.equal(presentJobRow(row!).contextValue, 'job-running');
    assert.equal(presentJobRow(row!).accessibilityLabel, 'Job train.py on instance 41, running, running 12:03');
    const notListed = jobRows(ID, [running], [remembered('20261124-000011-kkkkkk')], true, 0)[1];
    assert.deepEqual([notListed?.state, notListed?.description], ['starting', 'not listed yet']);
  });
});

const resumeStatus = (fields: Partial<ResumeStatus> = {}): ResumeStatus => ({
  policy: { kind: 'wait' },
  checkpointDir: 'checkpoints',
  checkpointPath: '/root/p/checkpoints',
  jobPath: '/root/.gpu-rental/jobs/x',
  recoveryCount: 0,
  recoveries: [],
  onDemandPerHour: undefined,
  latest: undefined,
  ranBeforeSeconds: 0,
  lastLogLine: undefined,
  ...fields,
});

describe('jobs: the job book resumes resumable jobs', () => {
  const id = '20261126-000001-aaaaaa';
  const hooked = { onstart: `${RESUME_HOOK_BEGIN}\n(sleep 5; …) &\n` };
  const interrupted = () => status(id, { alive: false, logBytes: 100, resume: resumeStatus() });

  /** The instance was stopped with the job interrupted; it runs again (with `fields`) at the next poll. */
  async function comesBack(fields: Partial<Instance>) {
    const t = await setup([down(fields)], [remembered(id)]);
    t.jobs.set(id, interrupted());
    await t.book.list(ID).catch(() => {});
    t.set([up(fields)]);
    await t.clock.advance(10_000);
    await settle();
    return t;
  }

  it('an instance without the start-up hook: resumes the interrupted job at once, says so in the log only, and follows it again', async () => {
    const t = await comesBack({ onstart: 'echo mine' });
    assert.deepEqual(t.resumes, [{ jobId: id, movedFrom: undefined }]);
    assert.deepEqual(t.notices, [], 'no notification');
    await settle();
    assert.ok(
      t.followers.some((f) => f.options.jobId === id),
      'followed again',
    );
  });

  it('an instance with the hook: waits a minute, and resumes only when the hook did not', async () => {
    const t = await comesBack(hooked);
    assert.deepEqual(t.resumes, [], 'the hook has a minute');
    await t.clock.advance(HOOK_GRACE_MS);
    await settle();
    assert.deepEqual(t.resumes, [{ jobId: id, movedFrom: undefined }], 'the hook did not: the book resumes it');

    const byHook = await comesBack(hooked);
    byHook.jobs.set(id, { ...interrupted(), alive: true });
    await byHook.clock.advance(HOOK_GRACE_MS);
    await settle();
    assert.deepEqual(byHook.resumes, [], 'the hook resumed it: nothing to do');
  });

  it('an instance with the hook: follows the job again as soon as the hook resumed it, not a minute later', async () => {
    const t = await comesBack(hooked);
    assert.ok(!t.followers.some((f) => f.options.jobId === id), 'a job still waiting is not followed (it would end at once)');
    t.jobs.set(id, { ...interrupted(), alive: true, logBytes: 150 });
    await t.clock.advance(HOOK_LOOK_MS);
    await settle();
    assert.ok(
      t.followers.some((f) => f.options.jobId === id),
      'followed again within a look',
    );
    assert.deepEqual(t.resumes, [], 'the hook resumed it: the book does not');
  });

  it('a job that ended or was stopped by hand is never resumed', async () => {
    for (const fields of [{ exitCode: 0, endedAt: 1_010 }, { cancelled: 'keep' as const }]) {
      const t = await setup([down()], [remembered(id)]);
      t.jobs.set(id, { ...interrupted(), ...fields });
      await t.book.list(ID).catch(() => {});
      t.set([up()]);
      await t.clock.advance(10_000);
      await t.clock.advance(HOOK_GRACE_MS);
      await settle();
      assert.deepEqual(t.resumes, []);
    }
  });

  it("its follower's end while the instance is down is not its end: no notice, remembered as running, output goes on from there", async () => {
    const t = await setup([up()], [remembered(id, { terminalOpen: true })]);
    t.jobs.set(id, status(id, { resume: resumeStatus() }));
    t.book.reattach();
    await settle();
    const first = t.followers.find((f) => f.options.jobId === id)!;
    first.offset = 70;
    first.options.onEnd(interrupted());
    first.dispose();
    await settle();
    assert.deepEqual(t.notices, []);
    assert.equal(t.memory.job(id)?.ended, false);
    assert.match(t.terminals.get(id)!.text, /resumes from its newest checkpoint when the instance runs again/);
    t.jobs.set(id, interrupted());
    assert.equal(await t.book.resume(ID, id, { movedFrom: 7 }), 'resumed');
    await settle();
    assert.deepEqual(t.resumes, [{ jobId: id, movedFrom: 7 }]);
    const again = t.followers.filter((f) => f.options.jobId === id);
    assert.equal(again.length, 2, 'followed again after the resume');
    assert.equal(again[1]!.options.offset, 70, 'from where the output stopped, nothing twice');
  });

  it('a move: the job, its choices and its terminal go to the new instance; followed there from the same byte; its end told once', async () => {
    const NEW = 42;
    const t = await setup([up()], [remembered(id, { terminalOpen: true })]);
    await t.book.choices.chose(ID, id, { policy: { kind: 'move', ceiling: 0.5 }, stopAtEnd: false });
    t.jobs.set(id, status(id, { resume: resumeStatus() }));
    t.book.reattach();
    await settle();
    const first = t.followers.find((f) => f.options.jobId === id)!;
    first.offset = 70;
    // Outbid: the old instance stops, the job waits to resume; a new instance runs.
    t.set([down(), up({ id: NEW })]);
    await t.clock.advance(10_000);
    first.options.onEnd(interrupted());
    await settle();
    const terminal = t.terminals.get(id)!;
    t.jobs.set(id, interrupted());
    assert.equal(await t.book.resume(NEW, id, { movedFrom: ID, checkpoint: 'checkpoint-12' }), 'resumed');
    await settle();
    assert.deepEqual(t.resumes, [{ jobId: id, movedFrom: ID }]);
    assert.equal(t.memory.job(id)?.instanceId, NEW, 'remembered on the new instance');
    assert.deepEqual(t.book.choices.policy(NEW, id), { kind: 'move', ceiling: 0.5 }, 'the choice went with it');
    const onNew = t.followers.filter((f) => f.options.jobId === id);
    assert.equal(onNew.length, 2, 'followed on the new instance');
    assert.equal(onNew[1]!.options.offset, 70, 'from the byte the old one had reached');
    assert.equal(t.terminals.get(id), terminal, 'in the same terminal');
    assert.match(terminal.text, /moved from #41 to #42: following the job there/);
    assert.doesNotMatch(terminal.text, /the first 70 bytes/, 'it shows them already');
    // The old instance is destroyed: nothing says the job is no longer followed.
    t.set([up({ id: NEW })]);
    await t.clock.advance(10_000);
    assert.doesNotMatch(terminal.text, /no longer following/);
    assert.equal(onNew[1]!.disposed, false);
    onNew[1]!.options.onEnd(status(id, { exitCode: 0, startedAt: 100, endedAt: 160, resume: resumeStatus() }));
    onNew[1]!.options.onEnd(status(id, { exitCode: 0, startedAt: 100, endedAt: 160, resume: resumeStatus() }));
    await settle();
    assert.deepEqual(
      t.notices.map((n) => n.text),
      ['GPU Rental: train.py finished (exit 0) on #42 after 1:00.'],
    );
  });

  it('keeps the resumable jobs of a stopped instance from its last listing', async () => {
    const t = await setup([up()], [remembered(id)]);
    t.jobs.set(id, status(id, { resume: resumeStatus({ policy: { kind: 'move', ceiling: 0.6 } }) }));
    t.jobs.set('20261126-000002-bbbbbb', status('20261126-000002-bbbbbb'));
    // Nothing chosen on this machine: the instance's copy is not followed.
    await t.book.list(ID);
    assert.deepEqual(t.book.resumableJobs(ID)[0]?.spec.policy, { kind: 'wait' });
    assert.equal(t.book.resumableJobs(ID)[0]?.policySource?.kind, 'notHere');
    await t.book.choices.chose(ID, id, { policy: { kind: 'move', ceiling: 0.6 }, stopAtEnd: false });
    await t.book.list(ID);
    t.set([down()]);
    await t.clock.advance(10_000);
    const [job, ...others] = t.book.resumableJobs(ID);
    assert.deepEqual(others, [], 'a plain job is not resumable');
    assert.equal(job?.jobId, id);
    assert.deepEqual(job?.spec.policy, { kind: 'move', ceiling: 0.6 });
    assert.equal(job?.checkpointPath, '/root/p/checkpoints');
    assert.equal(job?.ended, false);
  });

  it('a resume command that fails at once: the end notice says so, with the exit code, the last line and where the checkpoints are', async () => {
    const t = await setup([up()], [remembered(id)]);
    t.jobs.set(id, status(id, { resume: resumeStatus() }));
    t.book.reattach();
    await settle();
    const failed = status(id, {
      alive: false,
      startedAt: 2_000,
      exitCode: 2,
      endedAt: 2_003,
      resume: resumeStatus({ recoveryCount: 1, lastLogLine: 'error: unrecognized arguments: --resume' }),
    });
    t.followers.find((f) => f.options.jobId === id)!.options.onEnd(failed);
    await settle();
    assert.deepEqual(
      t.notices.map((n) => [n.severity, n.text, n.actions]),
      [
        [
          'warning',
          'GPU Rental: train.py failed at once when resumed (exit 2): "error: unrecognized arguments: --resume". Its checkpoints are on #41 in /root/p/checkpoints; fix the resume command and run it again.',
          ['showOutput'],
        ],
      ],
    );
  });
});

describe('jobs: the row of a resumable job', () => {
  const id = '20261126-000003-cccccc';

  it('says "resumed ×2" and its policy; its tooltip gives the history, minutes lost and dollars saved', () => {
    const at = Date.UTC(2026, 10, 26, 10, 0) / 1000;
    const s = status(id, {
      startedAt: 10_000,
      resume: resumeStatus({
        policy: { kind: 'raise', ceiling: 0.6 },
        recoveryCount: 2,
        recoveries: [
          { at, lostSeconds: 180 },
          { at: at + 3600, lostSeconds: 120, movedFrom: 123 },
        ],
        onDemandPerHour: 1.2,
        ranBeforeSeconds: 3 * 3600,
        latest: fileCheckpoint('step-900', 2_500_000, at + 3000),
      }),
    });
    const [row] = jobRows(ID, [s], [], true, (10_000 + 3600) * 1000);
    assert.equal(row?.description, 'running 1:00:00 · resumed ×2 · raise ≤ $0.60/h');
    const tooltip = presentJobRow(row!, 0.4).tooltip.split('\n');
    assert.deepEqual(tooltip.slice(3), [
      'Resumable: checkpoints on #41 in /root/p/checkpoints; when outbid: raise ≤ $0.60/h.',
      'Newest checkpoint: step-900, 2.5 MB, 2026-11-26 10:50 UTC.',
      'Resumed 2026-11-26 10:00 UTC; 3 min of work lost.',
      'Moved from #123 and resumed 2026-11-26 11:00 UTC; 2 min of work lost.',
      'Work lost in all: 5 min.',
      'Saved against on-demand: $3.20 ($1.20/h on demand, $0.400/h paid, for 4.0 h).',
    ]);
    assert.match(presentJobRow(row!).tooltip, /Saved against on-demand: unknown\./, 'unknown without the price paid');
  });

  it('a resumable job not resumed yet: its policy, and "unknown" saved without an on-demand price', () => {
    const s = status(id, { resume: resumeStatus({ policy: { kind: 'move', ceiling: 0.75 } }) });
    const [row] = jobRows(ID, [s], [], false, 0);
    assert.equal(row?.description, 'interrupted (the instance stopped) · move ≤ $0.75/h');
    const tooltip = presentJobRow(row!, 0.4).tooltip;
    assert.match(tooltip, /Not resumed yet\./);
    assert.match(tooltip, /Saved against on-demand: unknown\./);
    const wait = jobRows(ID, [status(id, { resume: resumeStatus() })], [], true, 1_060_000)[0];
    assert.equal(wait?.description, 'running 1:00 · wait');
  });
});
