// A resumable job's host side in real bash, against a temporary jobs folder on this machine: what
// the start writes, what `resume` does after the job's processes died (as a stop of the instance
// kills them), and what the listing reads back. No ssh: the scripts are run as ssh would run them.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { folderExistsScript, hasResumeHook, resumeHook } from '../../../src/core/jobs/resumeScripts';
import { listScript, newJobId, startScript } from '../../../src/core/jobs/scripts';
import { jobPhase, parseStatusLines, type JobStatus } from '../../../src/core/jobs/status';
import type { ResumeSpec } from '../../../src/core/jobs/resumable';
import { eventually, tempDirForSuite } from '../../support';

const run = promisify(execFile);
let seq = 0;
const jobId = () => newJobId(Date.UTC(2026, 10, 26, 0, 0, seq++), () => (seq % 36) / 36);

describe('jobs: a resumable job on the host, in real bash', function () {
  // Three kills and resumes of real bash jobs a test, each waited for up to 10 s: room for a loaded machine.
  this.timeout(90_000);
  const temp = tempDirForSuite('gpu-rental-resume-test-');
  // A jobs folder per test: the listing reads every job in it, and each test polls it.
  let folders = 0;
  let jobsFolder = '';
  beforeEach(() => {
    jobsFolder = join(temp(), `jobs-${++folders}`);
  });
  const jobs = () => jobsFolder;
  const env = () => ({ ...process.env, HOME: temp() });
  const bash = (script: string, input = '') => execFileSync('bash', ['-c', script], { input, env: env(), encoding: 'utf8' });
  const dir = (id: string) => join(jobs(), id);
  const file = (id: string, name: string) => readFileSync(join(dir(id), name), 'utf8');
  const list = (): JobStatus[] => parseStatusLines(bash(listScript(jobs())));
  const status = (id: string) => list().find((s) => s.jobId === id)!;
  const resume = (id: string, ...args: string[]) =>
    run('bash', [join(dir(id), 'resume'), ...args], { env: env(), encoding: 'utf8' }).then((r) => r.stdout.trim().split('\n').pop());

  /** Starts a resumable job in `work` (made), its checkpoints in `work/ckpt` unless told. */
  function start(command: string, spec: Partial<ResumeSpec> = {}, onDemandPerHour?: number) {
    const id = jobId();
    const work = join(temp(), `work-${id}`);
    mkdirSync(work, { recursive: true });
    const full: ResumeSpec = { checkpointDir: 'ckpt', resumeCommand: `${command} --resume {latest}`, policy: { kind: 'wait' }, ...spec };
    const script = startScript({
      jobId: id,
      cwd: work,
      label: 'train.py',
      stopAtEnd: false,
      forceSetsid: true,
      jobsDir: jobs(),
      resumable: { spec: full, createCheckpointDir: true, ...(onDemandPerHour ? { onDemandPerHour } : {}) },
    });
    bash(script, command);
    return { id, work, ckpt: join(work, 'ckpt') };
  }

  /** Kills the job's wrapper and command without a word, as a stop of the instance does. */
  async function kill(id: string) {
    const read = (name: string) => (existsSync(join(dir(id), name)) ? Number(file(id, name)) : 0);
    const pid = await eventually(() => read('pid') > 0 && read('pid'), `job ${id} to write its pid`, 10_000);
    const wpid = read('wpid');
    for (const p of [wpid, -pid, pid])
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone already
      }
    return eventually(() => jobPhase(status(id)) === 'interrupted', `job ${id} to read interrupted`, 10_000);
  }

  const ended = (id: string) => eventually(() => existsSync(join(dir(id), 'exit')), `job ${id} to end`, 10_000);

  /** A file or folder in `folder` with its modification time `agoSeconds` in the past. */
  function entry(folder: string, name: string, agoSeconds: number, isDir = false) {
    const path = join(folder, name);
    if (isDir) {
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, 'weights'), 'w'.repeat(100));
    } else writeFileSync(path, 'x'.repeat(10));
    const t = Date.now() / 1000 - agoSeconds;
    utimesSync(path, t, t);
    return path;
  }

  it('the start writes the resume files and makes the checkpoint folder; the listing reads them back', async () => {
    const { id, work, ckpt } = start('sleep 30', { policy: { kind: 'raise', ceiling: 0.6 } }, 1.25);
    assert.equal(file(id, 'ckpt'), 'ckpt\n');
    assert.equal(file(id, 'resume-cmd'), 'sleep 30 --resume {latest}\n');
    assert.equal(file(id, 'policy'), 'raise 0.6\n');
    assert.equal(file(id, 'ondemand'), '1.25\n');
    assert.equal(file(id, 'cmd.orig'), 'sleep 30');
    assert.ok(existsSync(ckpt), 'the checkpoint folder was made');
    entry(ckpt, 'step-100', 60, true);
    const s = status(id);
    assert.equal(jobPhase(s), 'running');
    assert.deepEqual(s.resume?.policy, { kind: 'raise', ceiling: 0.6 });
    assert.equal(s.resume?.checkpointPath, ckpt);
    assert.equal(s.resume?.jobPath, dir(id));
    assert.equal(s.resume?.onDemandPerHour, 1.25);
    assert.equal(s.resume?.latest?.name, 'step-100');
    assert.ok((s.resume?.latest?.bytes ?? 0) >= 100, 'a folder counts its files');
    assert.equal(s.resume?.recoveryCount, 0);
    assert.equal(s.label, 'train.py');
    assert.equal(s.cwd, work);
    await kill(id);
  });

  it('the listing reads what the instance wrote into a job folder as bounded text, and a FIFO there does not block it', async () => {
    const { id } = start('sleep 30');
    // Anything on the instance may rewrite the folder: a FIFO would block a reader that opens it.
    rmSync(join(dir(id), 'label'));
    execFileSync('mkfifo', [join(dir(id), 'label')]);
    writeFileSync(join(dir(id), 'stop-answer'), `HTTP\t200\r\n${'x'.repeat(2_000)}`);
    const out = execFileSync('bash', ['-c', listScript(jobs())], { env: env(), encoding: 'utf8', timeout: 10_000 });
    const s = parseStatusLines(out).find((x) => x.jobId === id)!;
    assert.equal(s.label, id, 'no label read: the job is named by its id');
    // The first 300 bytes, tabs and line breaks taken out.
    assert.equal(s.stopAnswer, `HTTP200${'x'.repeat(290)}`);
    assert.equal(jobPhase(s), 'running');
    await kill(id);
  });

  it('resume runs the resume command with the newest entry, its name with spaces and quotes passed as one word', async () => {
    const { id, ckpt } = start('printf "%s\\n" "$@" >got; sleep 30; echo');
    writeFileSync(join(dir(id), 'resume-cmd'), 'printf "%s\\n" {latest} >got\n');
    await kill(id);
    entry(ckpt, 'step-1', 300);
    const newest = entry(ckpt, `it's a "ckpt" $(x) & y`, 100);
    entry(ckpt, 'step-0', 500);
    assert.equal(await resume(id), 'resumed');
    await ended(id);
    assert.equal(readFileSync(join(ckpt, '..', 'got'), 'utf8'), `${newest}\n`);
    const history = file(id, 'history').trim().split(' ');
    assert.equal(history[1], 'resumed');
    const lost = Number(history[2]);
    assert.ok(lost >= 100 && lost < 200, `lost counts from the newest checkpoint's time: ${lost}`);
    assert.match(file(id, 'log'), /GPU Rental: resumed \(×1\) from .*it's a "ckpt"/);
    const s = status(id);
    assert.equal(s.resume?.recoveryCount, 1);
    assert.equal(s.exitCode, 0);
  });

  it('{latest} is the newest by time, a tie going to the highest version: checkpoint-12 over checkpoint-9 and checkpoint-11', async () => {
    const { id, ckpt } = start('sleep 30');
    writeFileSync(join(dir(id), 'resume-cmd'), 'printf "%s\\n" {latest} >got\n');
    await kill(id);
    // Saved in the same second (or copied with whole seconds): the letters would put checkpoint-11 last, the versions checkpoint-12.
    const t = Math.floor(Date.now() / 1000) - 100;
    for (const n of [9, 11, 12]) {
      mkdirSync(join(ckpt, `checkpoint-${n}`));
      utimesSync(join(ckpt, `checkpoint-${n}`), t, t);
    }
    assert.equal(await resume(id), 'resumed');
    await ended(id);
    assert.equal(readFileSync(join(ckpt, '..', 'got'), 'utf8'), `${join(ckpt, 'checkpoint-12')}\n`);
  });

  it('resume checkpoint <hex> resumes from exactly that entry though another is newer; one not there is refused and nothing starts', async () => {
    const { id, ckpt } = start('sleep 30');
    writeFileSync(join(dir(id), 'resume-cmd'), 'printf "%s\\n" {latest} >got\n');
    await kill(id);
    const named = entry(ckpt, 'step\n9', 300, true);
    entry(ckpt, 'step-12', 100, true);
    const hex = (name: string) => Buffer.from(name).toString('hex');
    await assert.rejects(resume(id, 'moved', '77', 'checkpoint', hex('step-13')), /resume: no checkpoint step-13 in /);
    await assert.rejects(resume(id, 'checkpoint', hex('../x')), /checkpoint needs a name in hex, one path segment/);
    await assert.rejects(resume(id, 'checkpoint', 'zz'), /checkpoint needs a name in hex/);
    assert.equal(existsSync(join(dir(id), 'history')), false, 'nothing resumed');
    assert.equal(jobPhase(status(id)), 'interrupted');
    assert.equal(await resume(id, 'moved', '77', 'checkpoint', hex('step\n9')), 'resumed');
    await ended(id);
    assert.equal(readFileSync(join(ckpt, '..', 'got'), 'utf8'), `${named}\n`);
    assert.match(file(id, 'history'), /^\d+ moved 77 \d+\n$/);
  });

  it('an empty checkpoint folder starts the job over, with its original command, and says so in the log', async () => {
    const { id, work } = start('echo run >>runs; sleep 30');
    await eventually(() => existsSync(join(work, 'runs')), 'the first run', 10_000);
    await kill(id);
    assert.equal(await resume(id), 'resumed');
    await eventually(() => readFileSync(join(work, 'runs'), 'utf8') === 'run\nrun\n', 'the second run', 10_000);
    assert.equal(file(id, 'cmd'), 'echo run >>runs; sleep 30');
    const log = file(id, 'log');
    assert.match(log, /GPU Rental: no checkpoint in .*\/ckpt yet; starting the job over/);
    assert.match(log, /GPU Rental: resumed \(×1\) from the start/);
    assert.match(file(id, 'history'), /^\d+ resumed \d+\n$/);
    await kill(id);
  });

  it('does nothing for a job that ended, was stopped by hand, or still runs', async () => {
    const done = start('exit 0');
    await ended(done.id);
    assert.equal(await resume(done.id), 'ended');
    const running = start('sleep 30');
    assert.equal(await resume(running.id), 'running');
    const stopped = start('sleep 30');
    writeFileSync(join(dir(stopped.id), 'cancelled'), 'keep\n');
    await kill(stopped.id);
    assert.equal(await resume(stopped.id), 'cancelled');
    for (const j of [done, running, stopped]) assert.equal(existsSync(join(dir(j.id), 'history')), false, 'no recovery recorded');
    await kill(running.id);
  });

  it('two resumes at once start one wrapper; a second resume later finds it running', async () => {
    const { id, work, ckpt } = start('echo run >>runs; sleep 30', { resumeCommand: 'echo run >>runs; sleep 30 # {latest}' });
    await eventually(() => existsSync(join(work, 'runs')), 'the first run', 10_000);
    await kill(id);
    entry(ckpt, 'a', 10);
    const said = await Promise.all([resume(id), resume(id), resume(id)]);
    assert.deepEqual(said.filter((s) => s === 'resumed').length, 1, said.join(', '));
    await eventually(() => readFileSync(join(work, 'runs'), 'utf8') === 'run\nrun\n', 'the second run', 10_000);
    assert.equal(await resume(id), 'running');
    assert.equal(file(id, 'history').trim().split('\n').length, 1);
    assert.equal(existsSync(join(dir(id), 'resume.lock')), false, 'the lock is let go');
    await kill(id);
  });

  it('history lines: resumed, then moved from another instance; the listing reads them with the minutes lost', async () => {
    const { id, ckpt } = start('sleep 30', { resumeCommand: 'sleep 30 # {latest}' });
    await kill(id);
    entry(ckpt, 'step-1', 120);
    assert.equal(await resume(id), 'resumed');
    await kill(id);
    entry(ckpt, 'step-2', 30);
    assert.equal(await resume(id, 'moved', '4711'), 'resumed');
    const lines = file(id, 'history').trim().split('\n');
    assert.match(lines[0]!, /^\d+ resumed \d+$/);
    assert.match(lines[1]!, /^\d+ moved 4711 \d+$/);
    const s = status(id);
    assert.equal(s.resume?.recoveryCount, 2);
    assert.equal(s.resume?.recoveries[1]?.movedFrom, 4711);
    assert.equal(s.resume?.recoveries[0]?.movedFrom, undefined);
    assert.ok(s.resume!.recoveries[0]!.lostSeconds >= 120);
    assert.match(file(id, 'cmd'), /^sleep 30 # .*step-2$/m);
    assert.equal(await resume(id, 'moved', '1;rm -rf /').catch((e: { code: number }) => e.code), 2, 'a bad instance id is refused');
    await kill(id);
  });

  it('a job folder that came from another instance (a move) is told as a move, whoever resumes it first', async () => {
    const { id } = start('sleep 30');
    await kill(id);
    // The folder says where it ran: this machine's PID 1 has no CONTAINER_ID, so the test names the instances.
    writeFileSync(join(dir(id), 'instance'), '5\n');
    const resumeOn = (instance: string) =>
      run('bash', [join(dir(id), 'resume')], { env: { ...env(), CONTAINER_ID: instance }, encoding: 'utf8' }).then((r) =>
        r.stdout.trim().split('\n').pop(),
      );
    assert.equal(await resumeOn('6'), 'resumed');
    assert.match(file(id, 'history').trim().split('\n').pop()!, /^\d+ moved 5 \d+$/);
    assert.match(file(id, 'log'), /GPU Rental: moved from #5 and resumed \(×1\) from the start\n/, 'its log says so too');
    assert.equal(file(id, 'instance').trim(), '6', 'it runs on this instance now');
    await kill(id);
    assert.equal(await resumeOn('6'), 'resumed');
    assert.match(file(id, 'history').trim().split('\n').pop()!, /^\d+ resumed \d+$/, 'resumed where it ran: not a move');
    await kill(id);
  });

  it('a stale lock (a resume the stop cut short) does not block the next resume', async () => {
    const { id } = start('sleep 30');
    await kill(id);
    mkdirSync(join(dir(id), 'resume.lock'));
    const old = Date.now() / 1000 - 600;
    utimesSync(join(dir(id), 'resume.lock'), old, old);
    assert.equal(await resume(id), 'resumed');
    await kill(id);
  });

  it('says whether a checkpoint folder exists, relative to the job folder', () => {
    mkdirSync(join(temp(), 'proj', 'checkpoints'), { recursive: true });
    assert.equal(bash(folderExistsScript('proj', 'checkpoints')), 'yes\n');
    assert.equal(bash(folderExistsScript('~/proj', 'checkpoint')), 'no\n');
    assert.equal(bash(folderExistsScript('/nowhere', `~/proj/checkpoints`)), 'yes\n');
    assert.equal(bash(folderExistsScript('/x', `'; touch ${temp()}/pwned; '`)), 'no\n');
    assert.equal(existsSync(join(temp(), 'pwned')), false);
  });

  it('the start-up hook runs every job resume in the background, and is found in a start-up script', async () => {
    const { id, work } = start('echo run >>runs; sleep 30');
    await eventually(() => existsSync(join(work, 'runs')), 'the first run', 10_000);
    await kill(id);
    const hook = resumeHook();
    assert.ok(hasResumeHook(`${hook}echo mine`));
    assert.equal(hasResumeHook('echo mine'), false);
    assert.equal(hasResumeHook(null), false);
    // The hook reads ~/.gpu-rental/jobs: a home folder whose jobs folder is this test's.
    const home = join(temp(), 'home');
    mkdirSync(join(home, '.gpu-rental'), { recursive: true });
    execFileSync('ln', ['-sfn', jobs(), join(home, '.gpu-rental', 'jobs')]);
    execFileSync('bash', ['-c', hook.replace('sleep 5', 'sleep 0')], { env: { ...process.env, HOME: home } });
    await eventually(() => readFileSync(join(work, 'runs'), 'utf8') === 'run\nrun\n', 'the hook to resume it', 10_000);
    await kill(id);
  });
});
