import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { JobItem } from '../../src/ui/views/jobItems';
import { api, eventually, extensionApi, instanceStatus, recordNotifications, rentedAndRunning, signIn, sim } from './support';

/** The jobs of this suite live here on the instance, never in a home folder (the simulator's instances may share this machine's). */
const JOBS = `/tmp/gpu-rental-itest-jobs-${process.pid}`;

/** Starts `command` with Run on Instance in this suite's folder, nothing uploaded first, as automation would. */
async function runJob(id: number, command: string, stopAtEnd: boolean): Promise<{ jobId: string }> {
  return (await vscode.commands.executeCommand('gpuRental.runJob', id, {
    command,
    uploadFirst: false,
    cwd: JOBS,
    stopAtEnd,
    resumable: false,
  })) as {
    jobId: string;
  };
}

async function jobRow(id: number, jobId: string): Promise<JobItem | undefined> {
  const x = await extensionApi();
  return (await x.test.jobItems(id)).find((r): r is JobItem => 'jobId' in r && r.jobId === jobId);
}

describe('jobs: Run on Instance, live output, the tree, re-attach', function () {
  this.timeout(120_000);
  let id: number;

  before(async () => {
    const x = await signIn();
    x.test.useJobsFolder(JOBS);
    id = await rentedAndRunning();
    await x.test.refreshInstances();
  });
  beforeEach(async () => {
    const x = await signIn();
    // The first ssh call may offer to make a key: yes.
    x.test.answerPrompts({ confirm: async () => true });
    x.test.useJobsFolder(JOBS);
  });
  after(async () => {
    const x = await extensionApi();
    x.test.useJobsFolder(undefined);
    await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
    await rm(JOBS, { recursive: true, force: true });
  });

  it('runs a short script detached: its lines reach the terminal live, its row shows running then the exit code, and the end is told', async () => {
    const x = await extensionApi();
    const notes = recordNotifications();
    try {
      const command = 'for i in 1 2 3; do echo "step $i of 3"; sleep 1; done\necho "it\'s done: $(echo 42)"\nexit 4';
      const started = await runJob(id, command, false);
      assert.ok(started, `Run on Instance gave up: ${JSON.stringify(notes.seen)}`);
      assert.match(started.jobId, /^[a-z0-9-]+$/);
      await eventually(() => x.test.jobOutput(started.jobId)?.includes('step 1 of 3'), 'the first line in the terminal', 20_000);
      assert.equal(x.test.jobTerminalOpen(started.jobId), true, 'its terminal opened');
      const running = await eventually(() => jobRow(id, started.jobId), 'the job under its instance', 20_000);
      assert.equal(running.label, 'for i in 1 2 3; do echo "step $i of 3"; sleep 1; done');
      assert.ok(
        (await x.test.instanceItems()).some(
          (r) => r.id === `instance-${id}` && r.collapsibleState !== vscode.TreeItemCollapsibleState.None,
        ),
        'the instance row expands',
      );

      await eventually(() => notes.seen.find((n) => /failed \(exit 4\) on #\d+/.test(n.message)), 'the end told', 30_000);
      const output = x.test.jobOutput(started.jobId)!;
      assert.equal(output.split('step 2 of 3').length, 2, 'each line once');
      assert.match(output, /it's done: 42\r\n/);
      const ended = await eventually(async () => {
        const row = await jobRow(id, started.jobId);
        return row && /^failed \(exit 4\) after 0:0\d$/.test(String(row.description)) ? row : undefined;
      }, 'the row to show the exit code');
      assert.equal(ended.contextValue, 'job-ended');
    } finally {
      notes.dispose();
    }
  });

  it('a window that reloads while the job runs re-attaches: its terminal comes back and the output goes on, nothing twice', async () => {
    const x = await extensionApi();
    const command = 'echo before; sleep 4; echo after';
    const { jobId } = await runJob(id, command, false);
    await eventually(() => x.test.jobOutput(jobId)?.includes('before'), 'the first line', 20_000);
    x.test.reattachJobs();
    await eventually(() => x.test.jobOutput(jobId)?.includes('after'), 'the line printed after the reload', 30_000);
    const output = x.test.jobOutput(jobId)!;
    // Count the job's own line: the end note, which may already be there, names the command ("echo before; …").
    assert.equal(output.split('\r\n').filter((l) => l === 'before').length, 1, `the line from before the reload once:\n${output}`);
    assert.equal(x.test.jobTerminalOpen(jobId), true, 'the terminal that was open is open again');
  });

  it('Run Last Job Again starts the last job again on its instance and asks nothing (what it asks: test/unit/jobs/run.test.ts)', async () => {
    const x = await extensionApi();
    const asked: string[] = [];
    x.test.answerPrompts({
      confirm: async () => true,
      input: (o) => Promise.resolve(void asked.push(o.prompt)),
      pick: (o) => Promise.resolve(void asked.push(o.title)),
      choose: (message) => Promise.resolve(void asked.push(message)),
    });
    const command = 'echo "ran: $(date +%N)"';
    const first = await runJob(id, command, false);
    await eventually(() => /ran: \d/.test(x.test.jobOutput(first.jobId) ?? ''), 'the first run', 20_000);
    const again = (await vscode.commands.executeCommand('gpuRental.runLastJob', id)) as { jobId: string } | undefined;
    assert.deepEqual(asked, [], 'nothing asked');
    assert.ok(again && again.jobId !== first.jobId, 'a new job started');
    await eventually(() => /ran: \d/.test(x.test.jobOutput(again.jobId) ?? ''), 'the same command run again', 20_000);
    const row = await eventually(() => jobRow(id, again.jobId), 'its row under the same instance', 20_000);
    assert.equal(row.label, command);
  });

  it('Stop Job ends a running job and leaves the instance running; Show Output after a reload replays the log, the end told once', async () => {
    const x = await extensionApi();
    const notes = recordNotifications();
    try {
      const { jobId } = await runJob(id, 'echo waiting; sleep 60', true);
      await eventually(() => x.test.jobOutput(jobId)?.includes('waiting'), 'the first line', 20_000);
      const running = await eventually(async () => {
        const r = await jobRow(id, jobId);
        return r?.contextValue === 'job-running' ? r : undefined;
      }, 'the running row');
      assert.equal(await vscode.commands.executeCommand('gpuRental.stopJob', running), true);
      await eventually(async () => /^stopped by you after/.test(String((await jobRow(id, jobId))?.description)), 'the row to say stopped');
      await eventually(
        () => notes.seen.find((n) => /GPU Rental: echo waiting; sleep 60 on #\d+ was stopped/.test(n.message)),
        'the end told',
      );
      // Stop at end was on, but the user stopped the job: the instance keeps running.
      await new Promise((r) => setTimeout(r, 4_000));
      assert.equal(await instanceStatus(id), 'running');

      x.test.reattachJobs();
      assert.equal(x.test.jobOutput(jobId), undefined, 'a reloaded window holds no output yet');
      const row = (await jobRow(id, jobId))!;
      await vscode.commands.executeCommand('gpuRental.showJobOutput', row);
      await eventually(() => x.test.jobOutput(jobId)?.startsWith('waiting\r\n'), 'the log replayed', 20_000);
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(notes.seen.filter((n) => /sleep 60 on #\d+ was stopped after/.test(n.message)).length, 1, 'the end told once');
    } finally {
      notes.dispose();
    }
  });

  it('uploads the folder first and runs the script there; Download Outputs brings its outputs back; stop at end stops the instance', async () => {
    const x = await extensionApi();
    const project = await mkdtemp(join(tmpdir(), 'gpu-rental-itest-project-'));
    const downloads = await mkdtemp(join(tmpdir(), 'gpu-rental-itest-downloads-'));
    await writeFile(
      join(project, 'train.py'),
      [
        'import os, time',
        "os.makedirs('outputs', exist_ok=True)",
        'for epoch in range(3):',
        "    print(f'epoch {epoch} loss {1 / (epoch + 1):.3f}')",
        '    time.sleep(0.5)',
        "open('outputs/model.txt', 'w').write('weights')",
        '',
      ].join('\n'),
    );
    const notes = recordNotifications();
    try {
      const run = (stopAtEnd: boolean, uploadFirst: boolean, cwd?: string) =>
        vscode.commands.executeCommand('gpuRental.runJob', id, {
          command: 'python3 train.py',
          uploadFirst,
          localDir: project,
          cwd,
          stopAtEnd,
          resumable: false,
        }) as Promise<{
          jobId: string;
        }>;
      const first = await run(false, true);
      await eventually(() => x.test.jobOutput(first.jobId)?.includes('epoch 2 loss 0.333'), 'the last epoch', 30_000);
      const row = await eventually(
        async () => {
          const r = await jobRow(id, first.jobId);
          return r && /^exited 0/.test(String(r.description)) ? r : undefined;
        },
        'the job to end',
        20_000,
      );
      assert.equal(row.label, 'train.py');
      assert.match(row.cwd ?? '', /gpu-rental-itest-project-/);
      const local = (await vscode.commands.executeCommand('gpuRental.downloadJobOutputs', row, { localDir: downloads })) as string;
      assert.equal(await readFile(join(local, 'outputs', 'model.txt'), 'utf8'), 'weights');

      // The same folder again, now stopping the instance at the end (what is asked, and in what order, is
      // test/unit/jobs/run.test.ts's).
      const second = await run(true, false, row.cwd);
      await eventually(
        () => notes.seen.find((n) => n.message.startsWith('GPU Rental: train.py finished (exit 0)')),
        'the end told',
        30_000,
      );
      const stopped = await eventually(
        () =>
          notes.seen.find((n) =>
            /#\d+ was stopped by the job's end; its disk still bills \$[\d.]+\/h until you destroy it/.test(n.message),
          ),
        'the stop told, with what the disk still bills',
        30_000,
      );
      assert.match(stopped.message, new RegExp(`#${id} `));
      assert.equal(await instanceStatus(id), 'stopped', 'the instance stopped itself');
      assert.match(x.test.jobOutput(second.jobId) ?? '', /epoch 2 loss 0\.333/);
    } finally {
      notes.dispose();
      await rm(project, { recursive: true, force: true });
      await rm(downloads, { recursive: true, force: true });
    }
  });
});
