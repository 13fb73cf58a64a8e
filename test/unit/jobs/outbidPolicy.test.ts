// The outbid policies of resumable jobs, against fakes of every port: what each policy sends and
// says, and what each fault leaves (the old instance kept, nothing destroyed without the user).
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/api/errors';
import type { CopyRequest } from '../../../src/core/api/copy';
import type { Instance } from '../../../src/core/api/instances';
import type { FollowTransferOptions, TransferEnd } from '../../../src/core/instances/copyProgress';
import type { PhaseWait } from '../../../src/core/instances/untilPhase';
import { OutbidPolicies, type MoveRent, type OutbidOutcome, type OutbidPolicyDeps } from '../../../src/core/jobs/outbidPolicy';
import { judgeVerify, moveFolders, readVerify, verifyScript, workPath } from '../../../src/core/jobs/outbidVerify';
import type { OutbidPolicy, ResumableJob } from '../../../src/core/jobs/resumable';
import type { RemoteResult } from '../../../src/core/ssh/remote';
import { MemoryLogger } from '../../support';
import { fileCheckpoint, manifestDigest } from '../../support/checkpoints';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { scriptedProgress } from '../../support/scriptedProgress';

const OLD: Instance = {
  id: 123,
  label: 'train',
  actual_status: 'stopped',
  intended_status: 'running',
  is_bid: true,
  dph_base: 0.3,
  min_bid: 0.4,
  storage_total_cost: 0.02,
  num_gpus: 1,
  gpu_name: 'RTX 4090',
  machine_id: 7,
};
const NEW: Instance = { id: 456, label: 'train', actual_status: 'running', intended_status: 'running', num_gpus: 1, gpu_name: 'RTX 4090' };

function job(policy: OutbidPolicy, fields: Partial<ResumableJob> = {}): ResumableJob {
  return {
    instanceId: OLD.id,
    jobId: 'j1',
    label: 'train.py',
    cwd: '/root/work',
    spec: { checkpointDir: 'ckpt', resumeCommand: 'python train.py --resume {latest}', policy },
    checkpointPath: '/root/work/ckpt',
    jobPath: '/root/.gpu-rental/jobs/j1',
    onDemandPerHour: 0.6,
    recoveries: [],
    latest: fileCheckpoint('step-2.pt', 2048, 1),
    ended: false,
    ...fields,
  };
}

const lost = (action: string) => new ApiError({ kind: 'network', action, method: 'PUT', path: '/x', outcomeUnknown: true });
const refused = (action: string, msg: string) =>
  new ApiError({ kind: 'bad_request', action, method: 'DELETE', path: '/x', status: 400, serverMessage: msg });

interface Script {
  jobs?: ResumableJob[];
  answers?: Answer[];
  rent?: MoveRent;
  wait?: PhaseWait;
  /** How each copy's follow ends, in order (default: done). */
  copies?: TransferEnd[];
  copyStart?: Error;
  /** The newest checkpoint's bytes the verify reads (default: as listed). */
  bytes?: number | null;
  /** The newest entry of the checkpoint folder on the new instance, when it is not the listed one (a listing older than the outbid). */
  newest?: { name: string; bytes: number; modifiedAt: number };
  changeBid?: Error;
  show?: (id: number) => Promise<Instance>;
  destroy?: Error;
  resume?: Error;
  /** Aborts the progress when this step's message is first reported. */
  cancelAt?: RegExp;
  /** The rent waits for this. */
  rentGate?: Promise<void>;
}

function harness(script: Script) {
  const sent = {
    bids: [] as number[],
    copies: [] as CopyRequest[],
    cancels: [] as number[],
    destroyed: [] as number[],
    resumed: [] as Array<{ instanceId: number; jobId: string; movedFrom: number }>,
    checkpoints: [] as Array<string | undefined>,
    scripts: [] as string[],
    rents: 0,
  };
  const logger = new MemoryLogger();
  const ask = scriptedAsk(script.answers ?? []);
  const copyEnds = [...(script.copies ?? [])];
  const instances = new Map<number, Instance>([
    [OLD.id, OLD],
    [NEW.id, NEW],
  ]);
  // The user's Cancel is pressed as the move reports the step `cancelAt` matches.
  const progress = scriptedProgress(script.cancelAt ? { message: script.cancelAt } : undefined);
  const deps: OutbidPolicyDeps = {
    jobs: {
      resumableJobs: (id) => (id === OLD.id ? (script.jobs ?? [job({ kind: 'move', ceiling: 0.5 })]) : []),
      resume: (instanceId, jobId, o) => {
        sent.resumed.push({ instanceId, jobId, movedFrom: o.movedFrom });
        sent.checkpoints.push(o.checkpoint);
        return script.resume ? Promise.reject(script.resume) : Promise.resolve();
      },
    },
    instances: {
      show: script.show ?? ((id) => Promise.resolve(instances.get(id)!)),
      changeBid: (_id, price) => {
        sent.bids.push(price);
        return script.changeBid ? Promise.reject(script.changeBid) : Promise.resolve();
      },
      stop: () => Promise.resolve(),
      destroy: (id) => {
        sent.destroyed.push(id);
        return script.destroy ? Promise.reject(script.destroy) : Promise.resolve();
      },
    },
    copy: {
      copyBetweenInstances: (r) => {
        sent.copies.push(r);
        return script.copyStart ? Promise.reject(script.copyStart) : Promise.resolve({ message: 'started' });
      },
      cancelCopy: (id) => {
        sent.cancels.push(id);
        return Promise.resolve();
      },
    },
    poller: {
      onDidUpdate: () => ({ dispose: () => undefined }),
      refresh: () => Promise.resolve(),
      watch: () => undefined,
      setInterest: () => undefined,
    },
    rent: {
      rentLike: async () => {
        sent.rents += 1;
        await script.rentGate;
        return script.rent ?? { kind: 'rented', instanceId: NEW.id, description: 'RTX 4090 in SE', perHour: 0.45, bid: 0.42 };
      },
    },
    allowsSpend: () => Promise.resolve(true),
    sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: `root@host-${i.id}`, args: [] }),
    run: (_target, text): Promise<RemoteResult> => {
      sent.scripts.push(text);
      if (text.startsWith('mkdir')) return Promise.resolve({ code: 0, stdout: '', stderr: '' });
      const bytes = script.bytes === undefined ? 2048 : script.bytes;
      // The listed step-2.pt on the new instance, with the time it had (a copy that keeps times), and as the newest there.
      const measured = bytes === null ? 'none' : `${bytes} 1 ${manifestDigest([['', bytes]])} 1`;
      const stdout = [
        'gpu-rental-verify job yes',
        'gpu-rental-verify ckpt yes',
        `gpu-rental-verify listed ${measured}`,
        script.newest
          ? `gpu-rental-verify newest ${Buffer.from(script.newest.name).toString('hex')} ${script.newest.bytes} 1 ${manifestDigest([['', script.newest.bytes]])} ${script.newest.modifiedAt}`
          : `gpu-rental-verify newest ${bytes === null ? 'none' : `${Buffer.from('step-2.pt').toString('hex')} ${measured}`}`,
      ].join('\n');
      return Promise.resolve({ code: 0, stdout: `motd noise\n${stdout}\n`, stderr: '' });
    },
    waitForSsh: () => Promise.resolve(),
    progress,
    ask,
    logger,
    // A boot takes a moment: a Cancel pressed while it is awaited ends the wait.
    untilPhase: async (_poller, _id, _phases, o) => {
      await new Promise((resolve) => setImmediate(resolve));
      return o?.signal?.aborted ? { outcome: 'cancelled' } : (script.wait ?? { outcome: 'reached', instance: NEW, phase: 'running' });
    },
    follow: (_poller, _id, o: FollowTransferOptions) => {
      if (o.signal?.aborted) return Promise.resolve({ outcome: 'cancelled' });
      o.onProgress?.({ kind: 'progress', message: 'Remote to Remote copy: 1/2 files' });
      return Promise.resolve(copyEnds.shift() ?? { outcome: 'done', message: 'done, 2 files' });
    },
  };
  return { policies: new OutbidPolicies(deps), sent, logger, ask, progress };
}

function acted(outcome: OutbidOutcome | undefined) {
  assert.ok(outcome && outcome.kind === 'acted', `acted, not ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('jobs: outbid policies of resumable jobs', () => {
  it('an instance without a running resumable job is left to the plain outbid notice', async () => {
    const { policies } = harness({ jobs: [job({ kind: 'move', ceiling: 1 }, { ended: true })] });
    assert.equal(await policies.onOutbid(OLD), undefined);
  });

  it('wait: one notice with the job, the policy and what the disk bills; nothing is sent', async () => {
    const { policies, sent } = harness({ jobs: [job({ kind: 'wait' })] });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.equal(
      notice.text,
      'GPU Rental: "train" (RTX 4090) was outbid and stopped. "train.py" resumes from its newest checkpoint when the service resumes the instance (policy: wait). Its disk bills $0.020/h meanwhile.',
    );
    assert.deepEqual(notice.actions, ['raiseBid', 'moveToOnDemand']);
    assert.deepEqual([sent.bids, sent.rents, sent.copies], [[], 0, []]);
  });

  it("jobs with different policies follow the first job's, and the notice says so", async () => {
    const { policies, sent } = harness({
      jobs: [job({ kind: 'wait' }), job({ kind: 'move', ceiling: 2 }, { jobId: 'j2', label: 'eval.py' })],
    });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.match(notice.text, /"train\.py", "eval\.py" resume from their newest checkpoints/);
    assert.match(notice.text, /the first job's applies \("train\.py": wait\)/);
    assert.equal(sent.rents, 0);
  });

  it('raise: bids just over the minimum when within the ceiling, says from what to what, and follows the boot', async () => {
    const { policies, sent } = harness({ jobs: [job({ kind: 'raise', ceiling: 0.5 })] });
    const outcome = acted(await policies.onOutbid(OLD));
    assert.deepEqual(sent.bids, [0.42]);
    assert.equal(outcome.boots, OLD.id);
    assert.equal(outcome.notice.severity, 'info');
    assert.match(
      outcome.notice.text,
      /raised it from \$0\.300\/h to \$0\.420\/h\. That is just over the minimum of \$0\.400\/h, within the ceiling of \$0\.500\/h/,
    );
  });

  it('raise above the ceiling: nothing is sent; the notice says what the bid would need and the ceiling', async () => {
    const { policies, sent } = harness({ jobs: [job({ kind: 'raise', ceiling: 0.41 })] });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.deepEqual(sent.bids, []);
    assert.match(notice.text, /would need to be \$0\.420\/h \(just over the minimum of \$0\.400\/h\), above the ceiling of \$0\.410\/h/);
    assert.match(notice.text, /no bid was sent and it waits/);
    assert.deepEqual(notice.actions, ['raiseBid', 'moveToOnDemand']);
  });

  it('raise whose answer is lost and whose second look fails: unknown, check; never "nothing happened"', async () => {
    const { policies, sent } = harness({
      jobs: [job({ kind: 'raise', ceiling: 1 })],
      changeBid: lost('change bid'),
      show: () => Promise.reject(lost('show')),
    });
    const outcome = acted(await policies.onOutbid(OLD));
    assert.deepEqual(sent.bids, [0.42], 'sent once, not repeated');
    assert.equal(outcome.boots, undefined);
    assert.match(outcome.notice.text, /it is not known whether the bid of .+ changed to \$0\.420\/h/);
    assert.match(outcome.notice.text, /Refresh the Instances view to check/);
  });

  it('raise refused by the service: the refusal is said', async () => {
    const { policies } = harness({ jobs: [job({ kind: 'raise', ceiling: 1 })], changeBid: refused('change bid', 'bid too low') });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.match(notice.text, /the service refused the new bid of \$0\.420\/h/);
    assert.equal(notice.severity, 'warning');
  });

  it('move: rent, wait, copy the working folder (with its checkpoints) and the job folder, verify, resume with movedFrom, then destroy the old one', async () => {
    const { policies, sent, logger, progress } = harness({});
    const { notice, move } = acted(await policies.onOutbid(OLD));
    assert.deepEqual(
      sent.copies.map((c) => [c.srcId, c.dstId, c.srcPath, c.dstPath]),
      [
        [123, 456, '/root/work/', '/root/work/'],
        [123, 456, '/root/.gpu-rental/jobs/j1/', '/root/.gpu-rental/jobs/j1/'],
      ],
    );
    assert.equal(sent.scripts[0], 'mkdir -p -- /root/work /root/.gpu-rental/jobs/j1');
    assert.deepEqual(sent.resumed, [{ instanceId: 456, jobId: 'j1', movedFrom: 123 }]);
    assert.deepEqual(sent.checkpoints, ['step-2.pt'], 'resumed from exactly the checkpoint checked');
    assert.deepEqual(sent.destroyed, [123]);
    assert.equal(notice.severity, 'info');
    // Both instances carry the label "train": they are told apart by id and machine, not by the label twice.
    assert.equal(
      notice.text,
      'GPU Rental: "train.py" runs now on #456 (RTX 4090) at $0.450/h, resumed from its newest checkpoint step-2.pt; the outbid instance #123 was destroyed.',
    );
    // The one notification while it runs says why: an outbid.
    assert.deepEqual(
      progress.shown.map((p) => [p.title, p.cancellable, p.ended]),
      [['"train" (RTX 4090) was outbid and stopped; moving "train.py" to another machine', true, 'resolved']],
    );
    assert.equal(move, undefined);
    // Each step said as it happened, and logged.
    for (const n of [1, 2, 3, 4, 5, 6])
      assert.ok(
        progress.shown[0]!.updates.some((u) => u.message?.startsWith(`step ${n} of 6`)),
        `step ${n} reported`,
      );
    assert.ok(logger.lines.some((l) => /copied \/root\/work\b/.test(l)));
  });

  it('move: the newest checkpoint is read on the copy, not from a listing older than the outbid; resumed from it and named', async () => {
    // The listing named step-2.pt; by the outbid the job had written checkpoint-12 (times kept by the copy).
    const { policies, sent } = harness({ newest: { name: 'checkpoint-12', bytes: 4096, modifiedAt: 50 } });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.deepEqual(sent.checkpoints, ['checkpoint-12']);
    assert.match(notice.text, /resumed from its newest checkpoint checkpoint-12; the outbid instance #123 was destroyed\./);
  });

  it('move of a job whose listing showed no checkpoint yet: the one the copy holds is resumed from and named, not "the start"', async () => {
    const { policies, sent } = harness({
      jobs: [job({ kind: 'move', ceiling: 0.5 }, { latest: undefined })],
      newest: { name: 'checkpoint-7', bytes: 6548, modifiedAt: 50 },
    });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.deepEqual(sent.checkpoints, ['checkpoint-7']);
    assert.match(notice.text, /resumed from its newest checkpoint checkpoint-7/);
    assert.doesNotMatch(notice.text, /it had no checkpoint/);
  });

  it('move with nothing that fits: nothing rented, the instance waits', async () => {
    const { policies, sent } = harness({ rent: { kind: 'nothingFits' } });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.match(notice.text, /fits the ceiling of \$0\.500\/h now, so nothing was rented and "train\.py" waits/);
    assert.deepEqual([sent.copies, sent.destroyed], [[], []]);
  });

  it('move whose new instance fails to boot: the old one is kept; Destroy New Instance is offered', async () => {
    const { policies, sent } = harness({ wait: { outcome: 'gaveUp', instance: undefined, phase: 'failed' } });
    const { notice, move } = acted(await policies.onOutbid(OLD));
    assert.match(notice.text, /the new instance #456 did not boot \(it is failed\)/);
    assert.match(
      notice.text,
      /the checkpoint is on #123 \(stopped, its disk bills \$0\.020\/h\) in \/root\/work\/ckpt\. The new instance #456 bills \$0\.450\/h/,
    );
    assert.deepEqual(notice.actions, ['destroyNew']);
    assert.deepEqual([sent.copies, sent.destroyed], [[], []]);
    assert.equal(move?.fresh?.id, 456);
  });

  it('move whose copy fails half-way: both kept, where the checkpoint is said; Retry Copy goes on without renting again', async () => {
    const { policies, sent } = harness({
      copies: [{ outcome: 'failed', message: 'Remote to Remote copy: failed after 1 files: no space left on device' }],
    });
    const first = acted(await policies.onOutbid(OLD));
    assert.match(first.notice.text, /the copy of \/root\/work failed: .*failed after 1 files/);
    assert.match(
      first.notice.text,
      /Nothing was destroyed: the checkpoint is on #123 \(stopped, its disk bills \$0\.020\/h\) in \/root\/work\/ckpt/,
    );
    assert.deepEqual(first.notice.actions, ['retryCopy', 'destroyNew']);
    assert.deepEqual([sent.destroyed, sent.resumed], [[], []]);
    // Retry Copy: the same new instance, the copies again, then the rest.
    const again = acted(await policies.retryCopy(first.move!));
    assert.equal(sent.rents, 1, 'rented once');
    assert.deepEqual(sent.destroyed, [123]);
    assert.match(again.notice.text, /runs now on/);
  });

  it('a copy whose start answer was lost is unknown: said so, not started again', async () => {
    const { policies, sent } = harness({ copyStart: lost('copy') });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.equal(sent.copies.length, 1);
    assert.match(notice.text, /may have started, but the service's answer was lost/);
    assert.deepEqual(sent.destroyed, []);
  });

  it('move whose verify finds another size: both kept, sizes said', async () => {
    const { policies, sent } = harness({ bytes: 1024 });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.match(notice.text, /the newest checkpoint step-2\.pt has 1024 bytes on the new instance, not 2048 as on #123/);
    assert.deepEqual([sent.resumed, sent.destroyed], [[], []]);
  });

  it('a resume that fails keeps both instances', async () => {
    const { policies, sent } = harness({ resume: new Error('resume-cmd exited 1') });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.match(notice.text, /did not resume on .+: resume-cmd exited 1/);
    assert.deepEqual(sent.destroyed, []);
  });

  it('a destroy of the old one the service refuses is said, with the job running on the new one', async () => {
    const { policies } = harness({ destroy: refused('destroy', 'instance locked') });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.equal(notice.severity, 'warning');
    assert.match(notice.text, /runs now on .+, but the service refused to destroy .+#123\)/);
  });

  it('a destroy whose answer and second look are lost is unknown', async () => {
    const { policies } = harness({
      destroy: lost('destroy'),
      // The move reads only the new instance; the destroy's second look at the old one fails.
      show: (id) => (id === OLD.id ? Promise.reject(lost('show')) : Promise.resolve(NEW)),
    });
    const { notice } = acted(await policies.onOutbid(OLD));
    assert.match(notice.text, /but it is not known whether GPU Rental destroyed .+#123\)/);
  });

  // A wait or a copy ends at once; the check over ssh finishes, and the move stops before the resume.
  for (const [during, stopsAt] of [
    [2, 2],
    [3, 3],
    [4, 5],
  ] as const) {
    it(`cancel during step ${during}: stops at step ${stopsAt}, nothing resumed or destroyed, both kept with the buttons`, async () => {
      const { policies, sent } = harness({ cancelAt: new RegExp(`^step ${during} of 6`) });
      const { notice } = acted(await policies.onOutbid(OLD));
      assert.match(notice.text, new RegExp(`cancelled at step ${stopsAt} of 6`));
      assert.deepEqual([sent.resumed, sent.destroyed], [[], []]);
      assert.deepEqual(notice.actions, ['retryCopy', 'destroyNew']);
      if (during === 3) assert.deepEqual(sent.cancels, [456], "the service's copy is cancelled too");
    });
  }

  it('Cancel while the replacement is rented: the rent is not cut short; the replacement is kept and named with what it bills, and Destroy New Instance removes it', async () => {
    const h = harness({ cancelAt: /^step 1 of 6/, answers: [{ confirm: true }] });
    const { notice, move } = acted(await h.policies.onOutbid(OLD));
    assert.ok(h.progress.cancelled(), 'the user pressed Cancel');
    assert.equal(h.progress.shown[0]!.ended, 'resolved');
    assert.equal(h.sent.rents, 1, 'the rent under way finished');
    assert.equal(notice.severity, 'warning');
    assert.match(notice.text, /^GPU Rental: the move of "train\.py" to #456 stopped: cancelled at step 2 of 6\./);
    assert.match(notice.text, /The new instance #456 bills \$0\.450\/h while it runs\./);
    assert.match(notice.text, /the checkpoint is on #123 \(stopped/);
    assert.deepEqual(notice.actions, ['retryCopy', 'destroyNew']);
    assert.equal(move?.fresh?.id, 456, 'the move keeps the replacement, for Retry Copy and Destroy New Instance');
    assert.deepEqual([h.sent.copies, h.sent.resumed, h.sent.destroyed], [[], [], []], 'nothing copied, resumed or destroyed');
    const destroyed = acted(await h.policies.destroyNew(move!));
    assert.deepEqual(h.sent.destroyed, [456], 'only the replacement goes, once asked');
    assert.equal(destroyed.notice.severity, 'info');
  });

  it('a second outbid while a move is on its way does nothing', async () => {
    let release!: () => void;
    const h = harness({ rentGate: new Promise<void>((r) => (release = r)) });
    const first = h.policies.onOutbid(OLD);
    assert.deepEqual(await h.policies.onOutbid(OLD), { kind: 'inFlight' });
    release();
    acted(await first);
    assert.equal(h.sent.rents, 1);
  });

  it('Destroy New Instance asks first; no keeps both, yes destroys only the new one', async () => {
    const h = harness({ copies: [{ outcome: 'failed', message: 'failed' }], answers: [{ confirm: false }, { confirm: true }] });
    const { move } = acted(await h.policies.onOutbid(OLD));
    const declined = acted(await h.policies.destroyNew(move!));
    assert.deepEqual(h.sent.destroyed, []);
    assert.deepEqual(declined.notice.actions, ['retryCopy', 'destroyNew']);
    const done = acted(await h.policies.destroyNew(move!));
    assert.deepEqual(h.sent.destroyed, [456]);
    assert.match(done.notice.text, /The checkpoint stays on #123 in \/root\/work\/ckpt/);
    assert.match(h.ask.asked[0]!.detail, /which is kept, stopped, with the checkpoint/);
  });
});

describe('jobs: what a move copies and checks', () => {
  it('copies the working folder, the checkpoint folder and the job folder once each, a nested one with its parent; refuses odd paths', () => {
    // The job runs on the new instance from its working folder (its code): it goes too, the checkpoints inside it with it.
    assert.deepEqual(moveFolders([job({ kind: 'wait' })]), { paths: ['/root/work', '/root/.gpu-rental/jobs/j1'] });
    assert.deepEqual(moveFolders([job({ kind: 'wait' }, { cwd: '/workspace/p', checkpointPath: '/data/ckpt' })]), {
      paths: ['/workspace/p', '/data/ckpt', '/root/.gpu-rental/jobs/j1'],
    });
    assert.deepEqual(moveFolders([job({ kind: 'wait' }, { cwd: '/workspace/p', checkpointPath: '/root/.gpu-rental/jobs/j1/ckpt/' })]), {
      paths: ['/workspace/p', '/root/.gpu-rental/jobs/j1'],
    });
    assert.deepEqual(moveFolders([job({ kind: 'wait' }, { cwd: '/workspace/p', latest: undefined })]), {
      paths: ['/workspace/p', '/root/.gpu-rental/jobs/j1'],
    });
    for (const bad of ['ckpt', '/', '/root/../etc', '/a\nb'])
      assert.ok('problem' in moveFolders([job({ kind: 'wait' }, { checkpointPath: bad })]), bad);
  });

  it("reads the working folder as the instance does: ~, ~/x and a relative one in the home folder of the job's own folder", () => {
    const at = (cwd: string, jobPath = '/root/.gpu-rental/jobs/j1') => workPath({ cwd, jobPath, jobId: 'j1' });
    assert.equal(at('/workspace/p'), '/workspace/p');
    assert.equal(at('~'), '/root');
    assert.equal(at(''), '/root');
    assert.equal(at('~/runs/a'), '/root/runs/a');
    assert.equal(at('runs/a'), '/root/runs/a');
    assert.equal(at('runs', '/home/u/.gpu-rental/jobs/j1/'), '/home/u/runs');
    assert.equal(at('runs', '/tmp/jobs/j1'), undefined, 'a jobs folder elsewhere tells no home folder');
  });

  it('quotes the paths the instance listed in the check script, and carries the checkpoint name in hex', () => {
    const script = verifyScript(job({ kind: 'wait' }, { checkpointPath: "/root/it's", latest: fileCheckpoint("a'$(rm -rf ~)", 1, 1) }));
    assert.ok(script.includes(`c='/root/it'\\''s'`), script);
    assert.ok(script.includes(`dx ${Buffer.from("a'$(rm -rf ~)").toString('hex')} &&`), script);
    assert.ok(!script.includes('rm -rf'), script);
  });

  it('judges the reading: the folder, the checkpoint, its bytes', () => {
    const j = job({ kind: 'wait' });
    const read = (text: string) =>
      readVerify(
        text
          .split(';')
          .map((l) => `gpu-rental-verify ${l}`)
          .join('\n'),
      );
    const at = (bytes: number) => `${bytes} 1 ${manifestDigest([['', bytes]])} 1`;
    const newest = `newest ${Buffer.from('step-2.pt').toString('hex')} ${at(2048)}`;
    const problem = (text: string) => {
      const v = judgeVerify(j, read(text), '#456', OLD);
      return 'problem' in v ? v.problem : `resumes from ${v.resumeFrom?.name}`;
    };
    assert.deepEqual(judgeVerify(j, read(`job yes;ckpt yes;listed ${at(2048)};${newest}`), '#456', OLD), {
      resumeFrom: { ...j.latest!, modifiedAt: 1 },
    });
    assert.match(problem(`job no;ckpt yes;listed ${at(2048)};${newest}`), /folder of "train\.py" .+ is not on #456/);
    assert.match(problem('job yes;ckpt yes;listed none;newest none'), /step-2\.pt is not on #456/);
    assert.match(problem(`job yes;ckpt yes;listed ${at(12)};${newest}`), /has 12 bytes on the new instance, not 2048/);
    assert.match(problem(`job yes;ckpt yes;listed x;${newest}`), /could not be read/);
  });
});
