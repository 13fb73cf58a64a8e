// Run on Instance and Stop Job as core flows: what the user is asked, in what order, with what
// wording, and that a cancel anywhere starts (or stops) nothing. A scripted user answers.
import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import type { InputPrompt } from '../../../src/core/prompts';
import type { LastJob } from '../../../src/core/jobs/memory';
import {
  lastJobText,
  planJob,
  rerunJob,
  runTarget,
  type RunJobDeps,
  type RunJobFacts,
  type RunJobGiven,
  type UploadRequest,
} from '../../../src/core/jobs/run';
import { stopJobAsked } from '../../../src/core/jobs/stop';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const instance = (fields: Partial<Instance> = {}) =>
  ({
    id: 41,
    label: 'trainer',
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    actual_status: 'running',
    intended_status: 'running',
    ...fields,
  }) as unknown as Instance;

/** A Run on Instance with a scripted user, an in-memory workspace memory, and uploads and listings recorded. */
function setup(
  answers: Answer[],
  o: {
    uploadFirst?: boolean;
    lastCommand?: string;
    otherJob?: boolean;
    uploaded?: string;
    remoteFolder?: string;
    resumable?: boolean;
    checkpointDir?: string;
    onDemand?: number;
    /** The folders that exist on the instance (as typed). */
    folders?: string[];
    lastJob?: LastJob;
  } = {},
) {
  const ask = scriptedAsk(answers);
  const inputs: InputPrompt[] = [];
  const input = ask.input.bind(ask);
  ask.input = (options) => {
    inputs.push(options);
    return input(options);
  };
  /** The details under each pick's items, in the order shown. */
  const details: string[][] = [];
  const pick = ask.pick.bind(ask);
  ask.pick = (options) => {
    details.push(options.items.map((i) => i.detail ?? ''));
    return pick(options);
  };
  const memory = {
    uploadFirst: o.uploadFirst,
    lastCommand: o.lastCommand,
    resumable: o.resumable,
    checkpointDir: o.checkpointDir,
    lastJob: o.lastJob,
  };
  const looked: Array<{ cwd: string; dir: string }> = [];
  const uploads: Array<{ instanceId: number; request: UploadRequest }> = [];
  const listed: number[] = [];
  const deps: RunJobDeps = {
    ask,
    memory: {
      lastCommand: () => memory.lastCommand,
      setLastCommand: (c) => Promise.resolve(void (memory.lastCommand = c)),
      uploadFirst: () => memory.uploadFirst,
      setUploadFirst: (v) => Promise.resolve(void (memory.uploadFirst = v)),
      resumable: () => memory.resumable,
      setResumable: (v) => Promise.resolve(void (memory.resumable = v)),
      lastCheckpointDir: () => memory.checkpointDir,
      setLastCheckpointDir: (v) => Promise.resolve(void (memory.checkpointDir = v)),
      lastJob: () => memory.lastJob,
      setLastJob: (v) => Promise.resolve(void (memory.lastJob = v)),
    },
    onDemandPrice: () => Promise.resolve(o.onDemand),
    folderExists: (_instance, cwd, dir) => {
      looked.push({ cwd, dir });
      return Promise.resolve((o.folders ?? []).includes(dir));
    },
    jobs: {
      list: (id) => Promise.resolve(void listed.push(id)),
      runsJobs: () => o.otherJob ?? false,
    },
    upload: (instanceId, request) => {
      uploads.push({ instanceId, request });
      return Promise.resolve(o.uploaded);
    },
    uploadDestination: (localDir) => `/root/${localDir.split('/').pop()}`,
    remoteFolder: o.remoteFolder ?? '/workspace',
  };
  const plan = (facts: RunJobFacts = {}, given: RunJobGiven = {}, on = instance()) => planJob(deps, on, facts, given);
  const rerun = (facts: RunJobFacts = {}, on = instance()) => rerunJob(deps, on, facts);
  return { ask, inputs, details, memory, uploads, listed, looked, plan, rerun };
}

describe('jobs: Run on Instance asks', () => {
  it('suggests python3 with the file to run, then asks upload first (upload on top) and the end; the job runs in the uploaded folder', async () => {
    const t = setup([{ input: 'python3 src/train.py' }, { pick: 'Upload the workspace first' }, { pick: 'Stop the instance' }], {
      uploaded: '/root/project',
    });
    const plan = await t.plan({ script: 'src/train.py', workspaceDir: '/home/me/project' });
    assert.deepEqual(plan, { command: 'python3 src/train.py', cwd: '/root/project', stopAtEnd: true });
    assert.equal(t.inputs[0]!.value, 'python3 src/train.py');
    assert.equal(t.inputs[0]!.title, 'GPU Rental: Run on "trainer" (RTX 4090, #41)');
    assert.ok(t.inputs[0]!.validate?.('  '), 'a blank command is refused');
    assert.deepEqual(
      t.ask.asked.map((a) => a.text),
      [
        'The command to run on the instance, detached: it keeps running with this window closed.',
        'GPU Rental: Upload before the job?',
        'GPU Rental: When the job on "trainer" (RTX 4090, #41) ends',
      ],
      'three questions on an on-demand instance: not whether the job resumes',
    );
    assert.deepEqual(t.ask.asked[1]!.options, ['Upload the workspace first', 'Run without uploading']);
    assert.deepEqual(t.uploads, [{ instanceId: 41, request: { localDir: '/home/me/project', remoteDir: '/root/project', quiet: true } }]);
    assert.equal(t.memory.lastCommand, 'python3 src/train.py', 'the command is remembered');
    assert.equal(t.memory.uploadFirst, true, 'the choice is remembered');
    assert.deepEqual(t.listed, [41], "the instance's jobs are listed before the end is asked");
  });

  it('offers the last command without a Python file, and "Run without uploading" first once the user chose it', async () => {
    const t = setup([{ input: 'make train' }, { pick: 'Run without uploading' }, { pick: 'Keep the instance running' }], {
      uploadFirst: false,
      lastCommand: 'make train',
    });
    const plan = await t.plan({ workspaceDir: '/w/p' });
    assert.equal(t.inputs[0]!.value, 'make train');
    assert.deepEqual(t.ask.asked[1]!.options, ['Run without uploading', 'Upload the workspace first']);
    assert.deepEqual(plan, { command: 'make train', cwd: '/workspace', stopAtEnd: false });
    assert.equal(t.uploads.length, 0, 'nothing uploaded');
    assert.equal(t.memory.uploadFirst, false);
  });

  it('runs in the remote folder setting when nothing is uploaded, in the home folder when that is empty', async () => {
    const given = { command: 'nvidia-smi', uploadFirst: false, stopAtEnd: false, resumable: false };
    assert.equal((await setup([]).plan({}, given))?.cwd, '/workspace');
    assert.equal((await setup([], { remoteFolder: '' }).plan({}, given))?.cwd, '~');
  });

  it('asks nothing that it is given, and a given folder wins over the uploaded one', async () => {
    const t = setup([], { uploaded: '/root/x' });
    const plan = await t.plan(
      { workspaceDir: '/w/x' },
      { command: 'echo hi', uploadFirst: true, localDir: '/data/set', cwd: '/srv', stopAtEnd: true, resumable: false },
    );
    assert.deepEqual(plan, { command: 'echo hi', cwd: '/srv', stopAtEnd: true });
    assert.deepEqual(t.uploads[0]!.request, { localDir: '/data/set', remoteDir: '/root/set', quiet: true });
    assert.equal(t.ask.asked.length, 0);
  });

  it('without a workspace folder, Upload Folder is left to ask which folder', async () => {
    const t = setup([], { uploaded: '/root/picked' });
    const plan = await t.plan({}, { command: 'ls', uploadFirst: true, stopAtEnd: false, resumable: false });
    assert.deepEqual(t.uploads[0]!.request, { quiet: true });
    assert.equal(plan?.cwd, '/root/picked');
  });

  it('a cancel at any question starts nothing and asks nothing more', async () => {
    const atCommand = setup([{ input: undefined }]);
    assert.equal(await atCommand.plan({ script: 'a.py' }), undefined);
    assert.equal(atCommand.memory.lastCommand, undefined, 'nothing remembered');

    const atUpload = setup([{ input: 'ls' }, { pick: undefined }]);
    assert.equal(await atUpload.plan({ workspaceDir: '/w/p' }), undefined);
    assert.equal(atUpload.memory.uploadFirst, undefined, 'no choice remembered');
    assert.equal(atUpload.uploads.length, 0);

    const atEnd = setup([{ input: 'ls' }, { pick: 'Run without uploading' }, { pick: undefined }]);
    assert.equal(await atEnd.plan({ workspaceDir: '/w/p' }), undefined);
    for (const t of [atCommand, atUpload, atEnd]) {
      assert.equal(t.ask.left(), 0);
      assert.equal(t.memory.lastJob, undefined, 'no last job remembered');
    }
  });

  it('an upload that is cancelled or fails starts no job and does not ask about the end', async () => {
    const t = setup([{ input: 'python3 a.py' }, { pick: 'Upload the workspace first' }], { uploaded: undefined });
    assert.equal(await t.plan({ workspaceDir: '/w/p' }), undefined);
    assert.equal(t.uploads.length, 1);
    assert.deepEqual(t.listed, [], 'no listing for the end question');
  });

  it('says what the stopped disk bills when the service gives its price, that it still bills when it does not', async () => {
    const given = { command: 'ls', uploadFirst: false };
    const priced = setup([{ pick: undefined }]);
    await priced.plan({}, given, instance({ storage_total_cost: 0.0125 }));
    assert.deepEqual(priced.details[0], [
      'Works with this window closed; its disk still bills $0.013/h while it is stopped.',
      'It bills its full rate until you stop it.',
    ]);
    const unpriced = setup([{ pick: undefined }]);
    await unpriced.plan({}, given);
    assert.deepEqual(unpriced.details[0], [
      'Works with this window closed; its disk still bills while it is stopped.',
      'It bills its full rate until you stop it.',
    ]);
  });

  it('keeps the instance running on top when another job of GPU Rental runs on it', async () => {
    const t = setup([{ pick: 'Keep' }], { otherJob: true, lastJob: { command: 'ls', uploadFirst: false, stopAtEnd: true } });
    const plan = await t.plan({}, { command: 'ls', uploadFirst: false });
    assert.deepEqual(t.ask.asked[0]!.options, ['Keep the instance running', 'Stop the instance when the job ends']);
    assert.deepEqual(t.details[0], [
      'Another job of GPU Rental runs on it.',
      'Works with this window closed; its disk still bills while it is stopped.',
    ]);
    assert.equal(plan?.stopAtEnd, false);
  });
});

describe('jobs: Run on Instance asks whether the job resumes', () => {
  const bid = (fields: Partial<Instance> = {}) => instance({ is_bid: true, dph_base: 0.4, ...fields });
  const base = { command: 'python3 train.py', uploadFirst: false, stopAtEnd: false };

  it('asks only where it matters: on an interruptible instance (Resumable first), or on demand after a resumable job here', async () => {
    const onDemand = setup([]);
    assert.deepEqual(await onDemand.plan({}, base), { command: 'python3 train.py', cwd: '/workspace', stopAtEnd: false });
    assert.equal(onDemand.ask.asked.length, 0, 'on demand, a job runs once without asking');
    assert.equal(onDemand.memory.resumable, undefined, 'no choice remembered: none was made');
    const ranOnce = setup([], { resumable: false });
    assert.equal((await ranOnce.plan({}, base))?.resumable, undefined);
    assert.equal(ranOnce.ask.asked.length, 0);

    const remembered = setup([{ pick: 'Run once' }], { resumable: true });
    await remembered.plan({}, base);
    assert.equal(remembered.ask.asked[0]!.text, 'GPU Rental: Resumable?');
    assert.deepEqual(remembered.ask.asked[0]!.options, [
      'Resumable: resume from its newest checkpoint after a stop or an outbid',
      'Run once',
    ]);
    assert.equal(remembered.memory.resumable, false, 'the choice is remembered');
    const spot = setup([{ pick: 'Run once' }], { resumable: false });
    await spot.plan({}, base, bid());
    assert.equal(spot.ask.asked[0]!.options?.[0], 'Resumable: resume from its newest checkpoint after a stop or an outbid');
  });

  it('on demand: asks the folder (checkpoints by default) and the resume command (the command + --resume {latest}); the policy is wait', async () => {
    const t = setup([{ pick: 'Resumable' }, { input: 'checkpoints' }, { input: 'python3 train.py --resume {latest}' }], {
      folders: ['checkpoints'],
      onDemand: 1.2,
      resumable: true,
    });
    const plan = await t.plan({}, base);
    assert.deepEqual(plan?.resumable, {
      spec: { checkpointDir: 'checkpoints', resumeCommand: 'python3 train.py --resume {latest}', policy: { kind: 'wait' } },
      onDemandPerHour: 1.2,
    });
    assert.equal(t.inputs[0]!.value, 'checkpoints');
    assert.equal(t.inputs[1]!.value, 'python3 train.py --resume {latest}');
    assert.match(t.inputs[1]!.prompt!, /\{latest\} becomes the newest file or folder in the checkpoint folder/);
    assert.ok(t.inputs[1]!.validate?.(' '), 'an empty resume command is refused');
    assert.ok(t.inputs[0]!.validate?.(''), 'an empty folder is refused');
    assert.deepEqual(t.looked, [{ cwd: '/workspace', dir: 'checkpoints' }], 'the folder is looked for where the job runs');
    assert.equal(t.memory.checkpointDir, 'checkpoints', 'remembered for the next job');
    assert.equal(t.ask.left(), 0);
  });

  it('offers the last checkpoint folder used', async () => {
    const t = setup([{ pick: 'Resumable' }, { input: 'runs/ck' }, { input: 'x {latest}' }], {
      checkpointDir: 'runs/ck',
      folders: ['runs/ck'],
      resumable: true,
    });
    await t.plan({}, base);
    assert.equal(t.inputs[0]!.value, 'runs/ck');
  });

  it('interruptible: asks the policy (Wait first), and a ceiling for raise and move with the bid and the on-demand price', async () => {
    const wait = setup([{ pick: 'Resumable' }, { input: 'ck' }, { input: 'go {latest}' }, { pick: 'Wait' }], { folders: ['ck'] });
    assert.deepEqual((await wait.plan({}, base, bid()))?.resumable?.spec.policy, { kind: 'wait' });
    assert.deepEqual(wait.ask.asked[3]!.options, ['Wait', 'Raise the bid up to a ceiling', 'Move to another machine up to a ceiling']);
    assert.match(wait.details[1]![0]!, /resumes it when your bid is highest again; works with VS Code closed/);
    assert.match(wait.details[1]![1]!, /only while a VS Code window with GPU Rental is open/);
    assert.match(wait.details[1]![2]!, /only while a VS Code window with GPU Rental is open/);

    const raise = setup([{ pick: 'Resumable' }, { input: 'ck' }, { input: 'go {latest}' }, { pick: 'Raise' }, { input: '$0.60' }], {
      folders: ['ck'],
      onDemand: 1.1,
    });
    assert.deepEqual((await raise.plan({}, base, bid()))?.resumable?.spec.policy, { kind: 'raise', ceiling: 0.6 });
    assert.equal(raise.inputs[2]!.prompt, 'The most to pay for the GPU, in $/h. The bid now: $0.400/h; this machine on demand: $1.10/h.');
    assert.ok(raise.inputs[2]!.validate?.('0'), 'zero is refused');
    assert.ok(raise.inputs[2]!.validate?.('lots'), 'words are refused');

    const move = setup([{ pick: 'Resumable' }, { input: 'ck' }, { input: 'go {latest}' }, { pick: 'Move' }, { input: '0.7' }], {
      folders: ['ck'],
    });
    assert.deepEqual((await move.plan({}, base, bid()))?.resumable?.spec.policy, { kind: 'move', ceiling: 0.7 });
    assert.equal(move.inputs[2]!.prompt, 'The most to pay for the GPU, in $/h. The bid now: $0.400/h.');
  });

  it('a folder not on the instance: asks, creates it on Create It and Start, starts nothing on Cancel', async () => {
    const create = setup([{ pick: 'Resumable' }, { input: 'ckpt' }, { input: 'go {latest}' }, { choose: 'Create It and Start' }], {
      resumable: true,
    });
    const plan = await create.plan({}, base);
    assert.equal(create.ask.asked[3]!.text, 'GPU Rental: the folder ckpt does not exist on "trainer" (RTX 4090, #41) yet.');
    assert.equal(plan?.resumable?.createCheckpointDir, true);
    const cancel = setup([{ pick: 'Resumable' }, { input: 'ckpt' }, { input: 'go {latest}' }, { choose: 'Cancel' }], { resumable: true });
    assert.equal(await cancel.plan({}, base), undefined);
    const dismissed = setup([{ pick: 'Resumable' }, { input: 'ckpt' }, { input: 'go {latest}' }, { choose: undefined }], {
      resumable: true,
    });
    assert.equal(await dismissed.plan({}, base), undefined);
  });

  it('a cancel at each question starts nothing and asks nothing more', async () => {
    const scripts: Answer[][] = [
      [{ pick: undefined }],
      [{ pick: 'Resumable' }, { input: undefined }],
      [{ pick: 'Resumable' }, { input: 'ck' }, { input: undefined }],
      [{ pick: 'Resumable' }, { input: 'ck' }, { input: 'go {latest}' }, { pick: undefined }],
      [{ pick: 'Resumable' }, { input: 'ck' }, { input: 'go {latest}' }, { pick: 'Raise' }, { input: undefined }],
    ];
    for (const answers of scripts) {
      const t = setup(answers, { folders: ['ck'] });
      assert.equal(await t.plan({}, base, bid()), undefined, JSON.stringify(answers));
      assert.equal(t.ask.left(), 0);
    }
  });

  it('asks nothing that it is given, not even the missing folder', async () => {
    const t = setup([]);
    const given = {
      ...base,
      resumable: true,
      checkpointDir: '/data/ck',
      resumeCommand: 'go {latest}',
      policy: { kind: 'move' as const, ceiling: 0.5 },
      createCheckpointDir: true,
    };
    const plan = await t.plan({}, given, bid());
    assert.deepEqual(plan?.resumable, {
      spec: { checkpointDir: '/data/ck', resumeCommand: 'go {latest}', policy: { kind: 'move', ceiling: 0.5 } },
      createCheckpointDir: true,
    });
    assert.equal(t.ask.asked.length, 0);
    assert.deepEqual(t.looked, [], 'not looked for when the answer is given');
  });
});

describe('jobs: Run on Instance asks only what matters, remembers the answers, and runs the last job again in one step', () => {
  const bid = (fields: Partial<Instance> = {}) => instance({ is_bid: true, dph_base: 0.4, ...fields });
  const resumableLast: LastJob = {
    instanceId: 41,
    command: 'python3 train.py',
    uploadFirst: true,
    localDir: '/home/me/project',
    stopAtEnd: true,
    resume: { checkpointDir: 'ck', resumeCommand: 'python3 train.py --resume {latest} --fast', policy: { kind: 'move', ceiling: 0.6 } },
  };

  it('does not ask to upload without a workspace folder, nor with an empty one: nothing is uploaded', async () => {
    for (const facts of [{}, { workspaceDir: '/w/empty', workspaceEmpty: true }]) {
      const t = setup([{ input: 'nvidia-smi' }, { pick: 'Keep' }], { uploadFirst: true });
      const plan = await t.plan(facts);
      assert.deepEqual(plan, { command: 'nvidia-smi', cwd: '/workspace', stopAtEnd: false }, JSON.stringify(facts));
      assert.deepEqual(
        t.ask.asked.map((a) => a.kind),
        ['input', 'pick'],
        'the command and the end only',
      );
      assert.equal(t.ask.asked[1]!.text, 'GPU Rental: When the job on "trainer" (RTX 4090, #41) ends');
      assert.equal(t.uploads.length, 0);
      assert.equal(t.memory.uploadFirst, true, 'the upload choice is left as the user made it');
    }
  });

  it('offers the last end choice first: Keep the instance running after a job that kept it', async () => {
    const t = setup([{ pick: 'Keep' }], { lastJob: { command: 'ls', uploadFirst: false, stopAtEnd: false } });
    await t.plan({}, { command: 'ls' });
    assert.deepEqual(t.ask.asked[0]!.options, ['Keep the instance running', 'Stop the instance when the job ends']);
  });

  it('remembers the answers as the last job', async () => {
    const t = setup([{ input: 'python3 train.py' }, { pick: 'Upload' }, { pick: 'Stop' }], { uploaded: '/root/project' });
    await t.plan({ script: 'train.py', workspaceDir: '/home/me/project' });
    assert.deepEqual(t.memory.lastJob, {
      instanceId: 41,
      command: 'python3 train.py',
      uploadFirst: true,
      localDir: '/home/me/project',
      stopAtEnd: true,
    });
    const spot = setup([{ pick: 'Resumable' }, { input: 'ck' }, { input: 'go {latest}' }, { pick: 'Raise' }, { input: '0.55' }], {
      folders: ['ck'],
    });
    await spot.plan({}, { command: 'go', uploadFirst: false, cwd: '/srv', stopAtEnd: false }, bid());
    assert.deepEqual(spot.memory.lastJob, {
      instanceId: 41,
      command: 'go',
      uploadFirst: false,
      cwd: '/srv',
      stopAtEnd: false,
      resume: { checkpointDir: 'ck', resumeCommand: 'go {latest}', policy: { kind: 'raise', ceiling: 0.55 } },
    });
  });

  it('offers the last resume command for the same command, and the last policy first', async () => {
    const t = setup(
      [{ pick: 'Resumable' }, { input: 'ck' }, { input: 'python3 train.py --resume {latest} --fast' }, { pick: 'Move' }, { input: '0.6' }],
      {
        folders: ['ck'],
        lastJob: resumableLast,
      },
    );
    await t.plan({}, { command: 'python3 train.py', uploadFirst: false, stopAtEnd: false }, bid());
    assert.equal(t.inputs[1]!.value, 'python3 train.py --resume {latest} --fast');
    assert.deepEqual(t.ask.asked[3]!.options, ['Move to another machine up to a ceiling', 'Wait', 'Raise the bid up to a ceiling']);
    const other = setup([{ pick: 'Resumable' }, { input: 'ck' }, { input: 'x {latest}' }, { pick: 'Wait' }], {
      folders: ['ck'],
      lastJob: resumableLast,
    });
    await other.plan({}, { command: 'python3 eval.py', uploadFirst: false, stopAtEnd: false }, bid());
    assert.equal(other.inputs[1]!.value, 'python3 eval.py --resume {latest}', 'another command: its own resume command');
  });

  it('Run Last Job Again asks nothing: the same command, upload, end and resume, the checkpoint folder made when missing', async () => {
    const t = setup([], { lastJob: resumableLast, uploaded: '/root/project' });
    const plan = await t.rerun({ workspaceDir: '/elsewhere' }, bid());
    assert.equal(t.ask.asked.length, 0, JSON.stringify(t.ask.asked));
    assert.deepEqual(plan, {
      command: 'python3 train.py',
      cwd: '/root/project',
      stopAtEnd: true,
      resumable: {
        spec: { checkpointDir: 'ck', resumeCommand: 'python3 train.py --resume {latest} --fast', policy: { kind: 'move', ceiling: 0.6 } },
        createCheckpointDir: true,
      },
    });
    assert.deepEqual(t.uploads, [{ instanceId: 41, request: { localDir: '/home/me/project', remoteDir: '/root/project', quiet: true } }]);
    assert.deepEqual(t.looked, [], 'the folder confirmed last time is not asked about again');
    assert.deepEqual(t.memory.lastJob, resumableLast, 'the same answers stay the last job');

    const plain = setup([], { lastJob: { command: 'make train', uploadFirst: false, stopAtEnd: false } });
    assert.deepEqual(await plain.rerun(), { command: 'make train', cwd: '/workspace', stopAtEnd: false });
    assert.equal(plain.ask.asked.length, 0);
  });

  it('Run Last Job Again decides what this instance changes: on demand it waits; the end is asked when another job runs there', async () => {
    const onDemand = setup([], { lastJob: { ...resumableLast, stopAtEnd: false }, uploaded: '/root/project' });
    assert.deepEqual((await onDemand.rerun())?.resumable?.spec.policy, { kind: 'wait' }, 'a ceiling is a bid’s: on demand it waits');
    assert.equal(onDemand.ask.asked.length, 0);

    const busy = setup([{ pick: 'Keep' }], { lastJob: { command: 'ls', uploadFirst: false, stopAtEnd: true }, otherJob: true });
    const plan = await busy.rerun();
    assert.equal(busy.ask.asked.length, 1, 'stopping would end the other job too: asked');
    assert.deepEqual(busy.ask.asked[0]!.options, ['Keep the instance running', 'Stop the instance when the job ends']);
    assert.equal(plan?.stopAtEnd, false);
  });

  it('Run Last Job Again without a last job is Run on Instance', async () => {
    const t = setup([{ input: 'ls' }, { pick: 'Keep' }]);
    assert.deepEqual(await t.rerun(), { command: 'ls', cwd: '/workspace', stopAtEnd: false });
    assert.equal(t.ask.asked.length, 2);
  });

  it('names the last job in a few words', () => {
    assert.equal(lastJobText(resumableLast), 'python3 train.py (upload first, stop at the end, resumable)');
    assert.equal(
      lastJobText({ command: 'make train\nmake eval', uploadFirst: false, stopAtEnd: false }),
      'make train (no upload, keep running)',
    );
  });

  it('runs without asking which instance on the one running, or on the last job’s while it runs', () => {
    const a = instance({ id: 1 });
    const b = instance({ id: 2 });
    const stopped = instance({ id: 3, actual_status: 'exited', intended_status: 'stopped' });
    assert.equal(runTarget([a, stopped])?.id, 1, 'the only running one');
    assert.equal(runTarget([a, b]), undefined, 'two running: the user picks');
    assert.equal(runTarget([a, b], 2)?.id, 2, "the last job's instance");
    assert.equal(runTarget([a, b, stopped], 3), undefined, 'the last one is stopped: the user picks');
    assert.equal(runTarget([stopped]), undefined);
  });
});

describe('jobs: Stop Job asks', () => {
  const job = { instanceId: 41, jobId: '20261124-001611-k3f9q2', label: 'train.py' };

  it('says the instance keeps running at its rate, stops the job alone, and says so', async () => {
    const ask = scriptedAsk([{ confirm: true }]);
    const stops: unknown[] = [];
    const outcome = await stopJobAsked(
      {
        ask,
        jobs: {
          stop: (...a) => {
            stops.push(a);
            return Promise.resolve(true);
          },
        },
      },
      job,
      { dph_total: 0.42 },
    );
    assert.equal(ask.asked[0]!.text, 'Stop train.py on #41?');
    assert.match(ask.asked[0]!.detail, /The instance keeps running \(\$0\.420\/h\), even when the job was to stop it at its end/);
    assert.deepEqual(stops, [[41, job.jobId, false]], 'the instance is never stopped by Stop Job');
    assert.deepEqual(outcome, {
      stopped: true,
      message: 'GPU Rental: train.py was stopped. #41 keeps running ($0.420/h); stop or destroy it when you are done.',
    });
  });

  it('a cancel stops nothing; a job that had ended already is said so', async () => {
    let stops = 0;
    const jobs = {
      stop: () => {
        stops++;
        return Promise.resolve(false);
      },
    };
    assert.equal(await stopJobAsked({ ask: scriptedAsk([{ confirm: false }]), jobs }, job, undefined), undefined);
    assert.equal(stops, 0);
    const ask = scriptedAsk([{ confirm: true }]);
    const outcome = await stopJobAsked({ ask, jobs }, job, undefined);
    assert.doesNotMatch(ask.asked[0]!.detail, /\/h/, 'no rate when the poll does not know it');
    assert.deepEqual(outcome, { stopped: false, message: 'GPU Rental: train.py had already ended.' });
  });
});
