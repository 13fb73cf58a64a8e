// Checkpoints measured the same way on both sides of a move: the listing on the old instance and
// the check after the copy on the new one run the same bash (CHECKPOINT_FUNCTIONS), here against
// temporary folders on this machine (a `cp` stands for the service's copy). Then the rules the
// check decides by: which checkpoint the job resumes from, or why the copy is refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/core/api/instances';
import { judgeVerify, readVerify, verifyScript, type VerifyReading } from '../../../src/core/jobs/outbidVerify';
import type { CheckpointInfo, ResumableJob } from '../../../src/core/jobs/resumable';
import { runResumeScript } from '../../../src/core/jobs/resumeScripts';
import { listScript, newJobId } from '../../../src/core/jobs/scripts';
import { parseStatusLines, type ResumeStatus } from '../../../src/core/jobs/status';
import { tempDirForSuite } from '../../support';
import { fileCheckpoint, manifestDigest } from '../../support/checkpoints';

const OLD: Pick<Instance, 'id'> = { id: 123 };
const T = 1_764_150_000;
let seq = 0;

describe('jobs: checkpoints measured the same way on both sides of a move', function () {
  // Each listing is some 40 short processes: slow on a busy machine.
  this.timeout(60_000);
  const temp = tempDirForSuite('gpu-rental-ckpt-test-', { each: true });
  const bash = (script: string) => execFileSync('bash', ['-c', script], { env: { ...process.env, HOME: temp() }, encoding: 'utf8' });

  /** A resumable job's folder as the start writes it (what the listing reads), working in `<temp>/old/work`, checkpoints in `ckpt`. */
  function oldInstance(at = 'old') {
    const id = newJobId(Date.UTC(2026, 10, 28, 0, 0, seq++), () => 0.5);
    const root = join(temp(), at);
    const jobs = join(root, 'jobs');
    const job = join(jobs, id);
    const work = join(root, 'work');
    const ckpt = join(work, 'ckpt');
    mkdirSync(job, { recursive: true });
    mkdirSync(ckpt, { recursive: true });
    const files: Record<string, string> = {
      cmd: 'true',
      cwd: `${work}\n`,
      ckpt: 'ckpt\n',
      policy: 'move 5\n',
      resume: '#!/bin/bash\n',
      label: 'train.py\n',
      log: '',
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(job, name), text);
    return { id, root, jobs, job, work, ckpt };
  }

  /** Writes `files` (relative path → text) under `folder`, then gives every folder and file the time `at`. */
  function write(folder: string, files: Record<string, string>, at: number): void {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(folder, path, '..'), { recursive: true });
      writeFileSync(join(folder, path), text);
    }
    for (const path of [...Object.keys(files), ...Object.keys(files).flatMap(parents)]) utimesSync(join(folder, path), at, at);
    utimesSync(folder, at, at);
  }
  const parents = (path: string) =>
    path
      .split('/')
      .slice(0, -1)
      .map((_, i, all) => all.slice(0, i + 1).join('/'));

  const listed = (jobs: string): ResumeStatus => {
    const [s] = parseStatusLines(bash(listScript(jobs)));
    assert.ok(s?.resume, 'the job is listed, resumable');
    return s.resume;
  };

  /** The job as the move has it, from the old instance's listing, its folders at `root` (the new instance after the copy). */
  function movedJob(id: string, r: ResumeStatus, root: string): ResumableJob {
    return {
      instanceId: OLD.id,
      jobId: id,
      label: 'train.py',
      cwd: join(root, 'work'),
      spec: { checkpointDir: 'ckpt', resumeCommand: 'python train.py --resume {latest}', policy: { kind: 'move', ceiling: 5 } },
      checkpointPath: join(root, 'work', 'ckpt'),
      jobPath: join(root, 'jobs', id),
      onDemandPerHour: undefined,
      recoveries: [],
      latest: r.latest,
      ended: false,
    };
  }

  /** The service's copy to `<temp>/new`: rsync -a keeps times (`cp -a`), a copy that does not (`cp -r`). */
  function copy(from: string, keepTimes: boolean, at = 'new'): string {
    const to = join(temp(), at);
    execFileSync('cp', [keepTimes ? '-a' : '-r', from, to]);
    return to;
  }

  const HF = {
    'config.json': '{"model_type": "gpt2"}',
    'model.safetensors': 'w'.repeat(4096),
    'optimizer.pt': 'o'.repeat(1000),
    'trainer_state.json': '{"global_step": 500}',
    'rng/rng_state_0.pth': 'r'.repeat(77),
  };

  it('measures a Hugging Face checkpoint folder by its files on both sides: the same bytes, count and digest, so the copy verifies', () => {
    const o = oldInstance();
    write(join(o.ckpt, 'checkpoint-250'), { 'model.safetensors': 'w'.repeat(10) }, T);
    write(join(o.ckpt, 'checkpoint-500'), HF, T + 60);
    const r = listed(o.jobs);
    const sizes = Object.entries(HF).map(([path, text]) => [path, text.length] as const);
    assert.deepEqual(r.latest, {
      name: 'checkpoint-500',
      bytes: sizes.reduce((sum, [, n]) => sum + n, 0),
      files: 5,
      digest: manifestDigest(sizes),
      modifiedAt: T + 60,
    });
    const du = Number(bash(`du -sb ${join(o.ckpt, 'checkpoint-500')}`).split('\t')[0]);
    assert.notEqual(du, r.latest!.bytes, 'du counts the folders themselves: it never matches the files');

    const to = copy(o.root, true);
    const job = movedJob(o.id, r, to);
    const read = readVerify(bash(verifyScript(job)));
    assert.deepEqual(read.listed, { bytes: r.latest!.bytes, files: 5, digest: r.latest!.digest, modifiedAt: T + 60 });
    assert.deepEqual(judgeVerify(job, read, '#456', OLD), { resumeFrom: r.latest });
  });

  it('a copy that lost a file, or holds other names of the same sizes, is refused, naming the checkpoint', () => {
    const o = oldInstance();
    write(join(o.ckpt, 'checkpoint-500'), HF, T);
    const r = listed(o.jobs);
    const to = copy(o.root, true);
    const job = movedJob(o.id, r, to);
    execFileSync('mv', [join(job.checkpointPath, 'checkpoint-500', 'rng'), join(job.checkpointPath, 'checkpoint-500', 'rnd')]);
    assert.match(problemOf(judgeVerify(job, readVerify(bash(verifyScript(job))), '#456', OLD)), /checkpoint-500 .* other names or sizes/);
    execFileSync('rm', [join(job.checkpointPath, 'checkpoint-500', 'optimizer.pt')]);
    assert.match(problemOf(judgeVerify(job, readVerify(bash(verifyScript(job))), '#456', OLD)), /checkpoint-500 has 4215 bytes/);
  });

  for (const [what, name] of [
    ['a newline', 'step\n7.pt'],
    ['a tab', 'step\t7.pt'],
    ['a control character and quotes', `it's "\u0007" $(x)`],
    ['a name ending in a newline', 'step-7\n'],
  ] as const) {
    it(`lists a checkpoint named with ${what} (the job stays listed), and the check after the copy finds it`, () => {
      const o = oldInstance();
      write(o.ckpt, { 'step-6.pt': 'x'.repeat(10) }, T);
      write(o.ckpt, { [name]: 'y'.repeat(20) }, T + 1);
      const r = listed(o.jobs);
      assert.deepEqual(r.latest, fileCheckpoint(name, 20, T + 1));
      const to = copy(o.root, true);
      const job = movedJob(o.id, r, to);
      const read = readVerify(bash(verifyScript(job)));
      assert.deepEqual(read.newest, r.latest);
      assert.deepEqual(judgeVerify(job, read, '#456', OLD), { resumeFrom: r.latest });
    });
  }

  it('picks the newest by modification time, then by version order of the names: checkpoint-12 over checkpoint-9 and checkpoint-11', () => {
    const o = oldInstance();
    const folder = (n: number, at: number) => write(join(o.ckpt, `checkpoint-${n}`), { 'model.safetensors': 'w'.repeat(n) }, at);
    folder(9, T);
    folder(12, T + 30);
    assert.equal(listed(o.jobs).latest?.name, 'checkpoint-12', 'written last');
    // The same second (a copy that keeps whole seconds, or fast saves): the version order decides, not the letters' (11 < 9).
    folder(9, T);
    folder(11, T);
    folder(12, T);
    assert.equal(listed(o.jobs).latest?.name, 'checkpoint-12', 'a tie goes to the highest version');
    folder(9, T + 60);
    assert.equal(listed(o.jobs).latest?.name, 'checkpoint-9', 'the time is the rule: what the job wrote last');
    // Hidden entries and links are never the newest.
    write(o.ckpt, { '.tmp-checkpoint-13/x': 'x' }, T + 90);
    execFileSync('ln', ['-s', 'checkpoint-12', join(o.ckpt, 'latest')]);
    assert.equal(listed(o.jobs).latest?.name, 'checkpoint-9');
  });

  it('resumes from the newest checkpoint the copy holds when it kept times and the listing is older than the outbid', () => {
    const o = oldInstance();
    write(join(o.ckpt, 'checkpoint-9'), HF, T);
    const r = listed(o.jobs);
    assert.equal(r.latest?.name, 'checkpoint-9');
    // The job saved again after the listing; the copy reads the disk as it was at the outbid.
    write(join(o.ckpt, 'checkpoint-12'), { ...HF, 'trainer_state.json': '{"global_step": 12}' }, T + 120);
    const job = movedJob(o.id, r, copy(o.root, true));
    const v = judgeVerify(job, readVerify(bash(verifyScript(job))), '#456', OLD);
    assert.ok('resumeFrom' in v);
    assert.equal(v.resumeFrom?.name, 'checkpoint-12');
    assert.equal(v.resumeFrom?.modifiedAt, T + 120);

    // A copy that did not keep times: the newest there cannot be told by time; the listed one, verified, is the one.
    const again = oldInstance('old2');
    write(join(again.ckpt, 'checkpoint-9'), HF, T);
    const r2 = listed(again.jobs);
    write(join(again.ckpt, 'checkpoint-12'), HF, T + 120);
    const job2 = movedJob(again.id, r2, copy(again.root, false, 'new2'));
    assert.deepEqual(judgeVerify(job2, readVerify(bash(verifyScript(job2))), '#456', OLD), { resumeFrom: r2.latest });
  });

  it('passes the checkpoint to resume from to the resume script in hex, and refuses what is not one name', () => {
    // The arguments are set first (`set -- …`), then resume runs with them: bash "$D/resume" "$@".
    assert.match(runResumeScript('D=x', 5, 'step\n7'), /^set -- moved 5 checkpoint 737465700a37$/m);
    assert.match(runResumeScript('D=x', undefined, 'checkpoint-12'), /^set -- checkpoint 636865636b706f696e742d3132$/m);
    assert.match(runResumeScript('D=x', 5), /^bash "\$D\/resume" "\$@" <\/dev\/null$/m);
    assert.doesNotMatch(runResumeScript('D=x', 5), /checkpoint/);
    for (const bad of ['', '.', '..', 'a/b', 'a\0b', 'x'.repeat(256)])
      assert.throws(() => runResumeScript('D=x', 5, bad), /not the name/, bad);
  });
});

function problemOf(v: ReturnType<typeof judgeVerify>): string {
  assert.ok('problem' in v, JSON.stringify(v));
  return v.problem;
}

describe('jobs: which checkpoint a moved job resumes from', () => {
  const listedCkpt = fileCheckpoint('step-9.pt', 2048, T);
  const job = (latest: CheckpointInfo | undefined): ResumableJob => ({
    instanceId: OLD.id,
    jobId: 'j1',
    label: 'train.py',
    cwd: '/root/work',
    spec: { checkpointDir: 'ckpt', resumeCommand: 'go {latest}', policy: { kind: 'move', ceiling: 5 } },
    checkpointPath: '/root/work/ckpt',
    jobPath: '/root/.gpu-rental/jobs/j1',
    onDemandPerHour: undefined,
    recoveries: [],
    latest,
    ended: false,
  });
  const measure = ({ bytes, files, digest, modifiedAt }: CheckpointInfo) => ({ bytes, files, digest, modifiedAt });
  const reading = (r: Partial<VerifyReading>): VerifyReading => ({
    jobFolder: true,
    checkpointFolder: true,
    listed: measure(listedCkpt),
    newest: listedCkpt,
    ...r,
  });
  const newer = fileCheckpoint('step-12.pt', 2048, T + 300);
  const judge = (latest: CheckpointInfo | undefined, r: Partial<VerifyReading>) => judgeVerify(job(latest), reading(r), '#456', OLD);

  it('the job folder and the listed checkpoint must be on the new instance, with the same manifest', () => {
    assert.match(problemOf(judge(listedCkpt, { jobFolder: false })), /folder of "train\.py" .+ is not on #456/);
    assert.match(problemOf(judge(listedCkpt, { checkpointFolder: false })), /step-9\.pt is not on #456 in \/root\/work\/ckpt/);
    assert.match(problemOf(judge(listedCkpt, { listed: null, newest: null })), /step-9\.pt is not on #456/);
    assert.match(problemOf(judge(listedCkpt, { listed: null, newest: { ...newer, modifiedAt: T } })), /step-9\.pt is not on #456/);
    assert.match(problemOf(judge(listedCkpt, { listed: undefined })), /size of the newest checkpoint step-9\.pt on #456 could not be read/);
    assert.match(
      problemOf(judge(listedCkpt, { listed: { ...measure(listedCkpt), bytes: 12 } })),
      /has 12 bytes on the new instance, not 2048 as on #123/,
    );
    assert.match(
      problemOf(judge(listedCkpt, { listed: { ...measure(listedCkpt), files: 3 } })),
      /has 3 files on the new instance, not 1 as on #123/,
    );
    assert.match(
      problemOf(judge(listedCkpt, { listed: { ...measure(listedCkpt), digest: 'f'.repeat(64) } })),
      /other names or sizes than on #123/,
    );
  });

  it('resumes from the newest there when the copy kept times and it is at least as new; else from the listed one', () => {
    assert.deepEqual(judge(listedCkpt, { newest: newer }), { resumeFrom: newer });
    assert.deepEqual(judge(listedCkpt, {}), { resumeFrom: listedCkpt });
    const sameSecond = fileCheckpoint('step-10.pt', 1, T);
    assert.deepEqual(
      judge(listedCkpt, { newest: sameSecond }),
      { resumeFrom: sameSecond },
      'the tie went to it by the same rule the resume uses',
    );
    // Times not kept: the listed one has another time there; the newest there says nothing.
    const notKept = { listed: { ...measure(listedCkpt), modifiedAt: T + 9999 }, newest: { ...newer, modifiedAt: T + 9999 } };
    assert.deepEqual(judge(listedCkpt, notKept), { resumeFrom: listedCkpt });
    assert.deepEqual(judge(listedCkpt, { newest: { ...newer, modifiedAt: T - 1 } }), { resumeFrom: listedCkpt }, 'never an older one');
    assert.match(problemOf(judge(listedCkpt, { newest: undefined })), /newest checkpoint of "train\.py" on #456 could not be read/);
  });

  it('a listed checkpoint the job rotated away or rewrote after the listing: the newer one the copy holds, not a bad copy', () => {
    // Hugging Face's save_total_limit removed step-9 after the listing; step-12 is newer.
    assert.deepEqual(judge(listedCkpt, { listed: null, newest: newer }), { resumeFrom: newer });
    // A last.ckpt rewritten in place after the listing: other bytes, a later time.
    const rewritten = { ...measure(listedCkpt), bytes: 4096, digest: 'e'.repeat(64), modifiedAt: T + 300 };
    const again = { ...listedCkpt, ...rewritten };
    assert.deepEqual(judge(listedCkpt, { listed: rewritten, newest: again }), { resumeFrom: again });
    // A folder whose time moved is not "rewritten": a copy left part-way moves it too.
    const folder = { ...listedCkpt, files: 5, bytes: 5000, digest: 'a'.repeat(64) };
    assert.match(
      problemOf(judge(folder, { listed: { ...measure(folder), files: 4, bytes: 4000, modifiedAt: T + 300 }, newest: newer })),
      /has 4000 bytes on the new instance, not 5000/,
    );
    // Other bytes with the same time is a bad copy, not a newer checkpoint.
    assert.match(
      problemOf(judge(listedCkpt, { listed: { ...rewritten, modifiedAt: T }, newest: again })),
      /has 4096 bytes on the new instance, not 2048/,
    );
  });

  it('without a listed checkpoint: the newest the copy brought, else none (the job starts over)', () => {
    assert.deepEqual(judge(undefined, { listed: undefined, newest: null }), { resumeFrom: undefined });
    assert.deepEqual(judge(undefined, { listed: undefined, checkpointFolder: false, newest: null }), { resumeFrom: undefined });
    assert.deepEqual(judge(undefined, { listed: undefined, newest: newer }), { resumeFrom: newer });
    assert.match(problemOf(judge(undefined, { listed: undefined, newest: undefined })), /could not be read/);
    assert.match(problemOf(judge(undefined, { jobFolder: false })), /is not on #456/);
  });

  it('reads the marked lines, names in hex; anything odd is not read', () => {
    const hex = Buffer.from('a\tb\nc').toString('hex');
    const d = 'a'.repeat(64);
    const read = readVerify(
      [
        'noise',
        'gpu-rental-verify job yes',
        'gpu-rental-verify ckpt no',
        `gpu-rental-verify listed 5 2 ${d} ${T}`,
        `gpu-rental-verify newest ${hex} 7 1 ${d} ${T}`,
      ].join('\r\n'),
    );
    assert.deepEqual(read, {
      jobFolder: true,
      checkpointFolder: false,
      listed: { bytes: 5, files: 2, digest: d, modifiedAt: T },
      newest: { name: 'a\tb\nc', bytes: 7, files: 1, digest: d, modifiedAt: T },
    });
    assert.deepEqual(readVerify('gpu-rental-verify listed none\ngpu-rental-verify newest none'), {
      jobFolder: false,
      checkpointFolder: false,
      listed: null,
      newest: null,
    });
    for (const odd of [`newest 2f78 1 1 ${d} ${T}`, `newest ff 1 1 ${d} ${T}`, `newest 61 1 1 short ${T}`, 'newest 61 1 1'])
      assert.equal(readVerify(`gpu-rental-verify ${odd}`).newest, undefined, odd);
    assert.equal(readVerify(`gpu-rental-verify listed 1 1 ${d}`).listed, undefined);
  });
});
