import assert from 'node:assert/strict';
import { isJobId, jobDir, jobLabel, newJobId, pythonCommand, startScript } from '../../../src/core/jobs/scripts';
import {
  describeJob,
  jobEndMessage,
  jobPhase,
  parseStatusLine,
  parseStatusLines,
  stopsInstance,
  stopStatusCode,
} from '../../../src/core/jobs/status';

/**
 * A status line: a plain job's 11 fields (id … folder, label), the 12 resumable ones empty unless
 * given, before the label, and the newest checkpoint's file count and digest after it.
 */
const line = (fields: string[], resume: string[] = Array<string>(12).fill(''), after: string[] = ['', '']) =>
  ['GPU-RENTAL-JOB', ...fields.slice(0, 10), ...resume, ...fields.slice(10), ...after].join('\t');
const hex = (name: string) => Buffer.from(name).toString('hex');
const DIGEST = 'ab'.repeat(32);

describe('jobs: ids, labels and status lines', () => {
  it('makes ids of time and random letters that are safe in a path, a tmux name and a shell word', () => {
    const id = newJobId(Date.UTC(2026, 10, 24, 0, 16, 11), () => 0.999);
    assert.equal(id, '20261124-001611-999999');
    assert.ok(isJobId(id));
    for (const bad of ['', '../x', 'a b', 'A1', 'x;rm', '-x']) assert.equal(isJobId(bad), false, bad);
    assert.throws(() => jobDir('../etc'), /not a job id/);
    assert.throws(() => startScript({ jobId: 'x', cwd: '/', label: 'x', stopAtEnd: true, baseUrl: "http://a'b" }), /not a usable base URL/);
    assert.throws(() => startScript({ jobId: 'x', cwd: '/', label: 'x', stopAtEnd: false, jobsDir: 'relative' }), /absolute/);
  });

  it('proposes python3 with the path relative to the uploaded folder, quoted when it needs it', () => {
    assert.equal(pythonCommand('src/train.py'), 'python3 src/train.py');
    assert.equal(pythonCommand("my runs/it's.py"), `python3 'my runs/it'\\''s.py'`);
    assert.equal(pythonCommand('-x.py'), 'python3 ./-x.py');
  });

  it('labels a Python job by its script, anything else by its first line', () => {
    assert.equal(jobLabel('python3 train.py --lr 3e-4'), 'train.py --lr 3e-4');
    assert.equal(jobLabel('/opt/conda/bin/python -u src/train.py'), 'src/train.py');
    assert.equal(jobLabel('bash run.sh\necho more'), 'bash run.sh');
    assert.equal(jobLabel('echo \u001b[31mred'), 'echo  [31mred');
    assert.equal(jobLabel('   '), 'job');
  });

  it('reads status lines, ignores anything else, and says what the row says', () => {
    const text = [
      'Warning: Permanently added',
      line(['20261124-000002-bbbbbb', '1000', '', '', '1', '1', '', '', '12', '/w', 'train.py']),
      line(['20261124-000001-aaaaaa', '1000', '4731', '0', '0', '1', 'HTTP 200', '', '40', '/w', 'eval.py\u0007']),
      line(['../bad', '1', '', '', '1', '0', '', '', '1', '/w', 'x']),
      line(['20261124-000003-cccccc', '1000', '', '', '0', '0', '', '', '-1', '/w', 'lost']),
      line(['20261124-000004-dddddd', '1000', '1004', '2', '0', '0', '', 'keep', '3', '/w', 'x']),
    ].join('\n');
    const [done, running, lost, stopped] = parseStatusLines(text);
    assert.equal(parseStatusLines(text).length, 4);
    assert.equal(jobPhase(running!), 'running');
    assert.equal(describeJob(running!, 1_723_000), 'running 12:03');
    assert.equal(jobPhase(done!), 'exited');
    assert.equal(describeJob(done!, 0), 'exited 0 after 1:02:11');
    assert.equal(done!.label, 'eval.py');
    assert.equal(stopStatusCode(done!), 200);
    assert.ok(stopsInstance(done!));
    assert.equal(jobEndMessage(done!, 123), 'GPU Rental: eval.py finished (exit 0) on #123 after 1:02:11.');
    assert.equal(describeJob(lost!, 0), 'interrupted (the instance stopped)');
    assert.equal(lost!.logBytes, undefined);
    assert.match(jobEndMessage(lost!, 7), /interrupted: the instance stopped while it ran/);
    assert.equal(describeJob(stopped!, 0), 'stopped by you after 0:04');
    assert.equal(stopsInstance(stopped!), false);
    const failed = parseStatusLine(line(['20261124-000005-eeeeee', '10', '12', '2', '0', '0', '', '', '0', '/w', 'x']))!;
    assert.equal(describeJob(failed, 0), 'failed (exit 2) after 0:02');
    assert.equal(jobEndMessage(failed, 9), 'GPU Rental: x failed (exit 2) on #9 after 0:02.');
  });

  it('shows a label and a last log line of link syntax as text in the end notices (the instance wrote them)', () => {
    const planted = '[Fix the driver](command:workbench.action.openSettings)';
    const fields = ['20261126-000001-aaaaaa', '1000', '1060', '0', '0', '', '', '', '12', '/w', planted];
    const s = parseStatusLine(line(fields))!;
    assert.doesNotMatch(jobEndMessage(s, 7), /\]\(/);
    assert.match(jobEndMessage(s, 7), /\[Fix the driver\]\\\(command:/);
  });

  it("reads a resumable job's fields, and refuses what is not believable", () => {
    const plain = ['20261126-000001-aaaaaa', '1000', '', '', '0', '0', '', '', '12', '/w', 'train.py'];
    const good = [
      'raise 0.6',
      'checkpoints',
      '/w/checkpoints',
      '/root/.gpu-rental/jobs/20261126-000001-aaaaaa',
      '2',
      '1764151200:resumed:180,1764154800:moved:123:120',
      '1.25',
      hex("step 9 'it'"),
      '2500000',
      '1764154000',
      '3600',
      '',
    ];
    const s = parseStatusLine(line(plain, good, ['3', DIGEST]))!;
    assert.equal(s.label, 'train.py', 'the label stays last');
    assert.deepEqual(s.resume, {
      policy: { kind: 'raise', ceiling: 0.6 },
      checkpointDir: 'checkpoints',
      checkpointPath: '/w/checkpoints',
      jobPath: '/root/.gpu-rental/jobs/20261126-000001-aaaaaa',
      recoveryCount: 2,
      recoveries: [
        { at: 1764151200, lostSeconds: 180 },
        { at: 1764154800, lostSeconds: 120, movedFrom: 123 },
      ],
      onDemandPerHour: 1.25,
      latest: { name: "step 9 'it'", bytes: 2500000, files: 3, digest: DIGEST, modifiedAt: 1764154000 },
      ranBeforeSeconds: 3600,
      lastLogLine: undefined,
    });
    assert.equal(parseStatusLine(line(plain))!.resume, undefined, 'a plain job');
    const changed = (i: number, value: string, after = ['3', DIGEST]) => {
      const fields = [...good];
      fields[i] = value;
      return parseStatusLine(line(plain, fields, after))!;
    };
    // A policy file it cannot read leaves the job resumable, waiting; its text is kept to show, never followed (choices.ts).
    for (const odd of ['raise lots', 'raise 500', '[x](command:y)'])
      assert.deepEqual(
        [changed(0, odd).resume?.policy, changed(0, odd).resume?.policyOnInstance],
        [{ kind: 'wait' }, odd],
        `a policy it cannot read: ${odd}`,
      );
    assert.equal(changed(2, 'relative/path').resume, undefined, 'the resolved folder must be absolute');
    assert.equal(changed(3, '').resume, undefined, 'no job folder');
    assert.deepEqual(
      changed(5, '1:resumed:5,rm -rf:x,2:moved:abc:1').resume?.recoveries,
      [{ at: 1, lostSeconds: 5 }],
      'bad entries dropped',
    );
    assert.equal(changed(4, 'x').resume?.recoveryCount, 2, 'a count it cannot read: the entries it could');
    assert.equal(changed(6, '1e9').resume?.onDemandPerHour, undefined);
    assert.equal(changed(6, '-1').resume?.onDemandPerHour, undefined);
    for (const name of ['../x', 'a/b', '..', '.', '', 'x'.repeat(256)])
      assert.equal(changed(7, hex(name)).resume?.latest, undefined, `a name ${JSON.stringify(name)} is not one path segment`);
    for (const odd of ["step 9 'it'", 'abc', '4g', hex('a\0b'), 'ff', 'c328'])
      assert.equal(changed(7, odd).resume?.latest, undefined, `${odd}: not a name in hex, in UTF-8`);
    // The name as the disk has it: a newline, a tab or a control character is part of it (what shows it makes it visible).
    for (const name of ['step\n7', 'step\t7', 'bell\u0007', 'é 名前 🙂'])
      assert.equal(changed(7, hex(name)).resume?.latest?.name, name, JSON.stringify(name));
    assert.equal(changed(7, hex('x'), ['', '']).resume?.latest, undefined, 'no file count nor digest (an older listing)');
    assert.equal(changed(7, hex('x'), ['-1', DIGEST]).resume?.latest, undefined, 'a negative count');
    assert.equal(changed(7, hex('x'), ['1', 'AB'.repeat(32)]).resume?.latest, undefined, 'a digest that is not sha256 hex');
    assert.equal(changed(8, '-5').resume?.latest, undefined, 'negative bytes');
    assert.equal(changed(9, 'yesterday').resume?.latest, undefined, 'a time that is not a number');
    assert.equal(changed(11, 'Traceback \u001b[31m(most recent)').resume?.lastLogLine, 'Traceback  [31m(most recent)');
    assert.equal(parseStatusLine(line(plain).split('\t').slice(0, 20).join('\t')), undefined, 'a line too short is no status line');
    // A line of an older listing (24 fields: its name not in hex, no count nor digest) reads without its checkpoint.
    const older = line(plain, [...good.slice(0, 7), "step 9 'it'", ...good.slice(8)], []);
    assert.equal(older.split('\t').length, 24);
    assert.equal(parseStatusLine(older)?.label, 'train.py');
    assert.equal(parseStatusLine(older)?.resume?.latest, undefined);
    assert.equal(parseStatusLine(older)?.resume?.ranBeforeSeconds, 3600);
  });
});
