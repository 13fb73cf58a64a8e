import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { eventually } from '../support/eventually';
import { expect } from './expect';
import { runFileOnInstance, terminalText, unfold } from './jobs';
import { workbenchForSuite, type Workbench } from './workbench';

/**
 * A training-like script: prints one line a second for about 45 s, then writes its outputs. Long
 * enough for the window to be reloaded while it runs, short enough for the test.
 */
const TRAIN_PY = [
  'import os, time',
  "os.makedirs('outputs', exist_ok=True)",
  'for epoch in range(1, 46):',
  "    print(f'epoch {epoch}/45 loss {1 / epoch:.4f}', flush=True)",
  '    time.sleep(1)',
  "with open('outputs/model.txt', 'w') as f:",
  "    f.write('weights after 45 epochs\\n')",
  "print('training done', flush=True)",
  '',
].join('\n');

/** The highest epoch the job's terminal shows now (0 when none). */
async function lastEpoch(wb: Workbench): Promise<number> {
  const text = await terminalText(wb)
    .first()
    .innerText({ timeout: 5_000 })
    .catch(() => '');
  return Math.max(0, ...[...text.matchAll(/epoch (\d+)\/45/g)].map((m) => Number(m[1])));
}

describe('data and jobs: upload the workspace, run a job that outlives a reload, it stops its instance, download the outputs, destroy', function () {
  this.timeout(600_000);
  const workbench = workbenchForSuite({
    settings: { 'gpuRental.remoteFolder': '/workspace' },
    prepare: (wb) => {
      writeFileSync(join(wb.folder, 'train.py'), TRAIN_PY);
      writeFileSync(join(wb.folder, 'data.csv'), 'x,y\n1,2\n3,4\n');
      return Promise.resolve();
    },
  });

  it('rents an instance and uploads the workspace folder to it', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rent for \$\d/);
    const running = wb.rows('Instances', /running/).first();
    await expect(running, 90_000).toBeVisible();
    await wb.contextMenu(running, 'Upload Folder to Instance…');
    // The destination is proposed: <remote folder>/<workspace folder's name>.
    await expect(wb.quickInput().getByText(/The folder on the instance that will hold the files/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    // A fresh home has no SSH key: GPU Rental offers to make one, as on a new machine.
    await wb.dialog().getByRole('button', { name: 'Create Key' }).click();
    // The toast may have hidden by then: read the notification center, which keeps it.
    await expect(await wb.notificationInCenter(/uploaded .* to \/workspace\/.*: 2 files/), 60_000).toBeVisible();
    await wb.shot('e2e-data-uploaded', true);
    await wb.runCommand('Notifications: Hide Notifications');
  });

  it('runs train.py from the editor as a job that stops the instance at its end, with its output live', async () => {
    const wb = workbench();
    // The only running instance is taken without asking: the command box names it.
    await runFileOnInstance(wb, 'train.py');
    // The last question: on demand, a job runs once without being asked (test/e2e/longRuns.e2e.ts
    // makes one resumable on an interruptible instance).
    await wb.pick('Stop the instance when the job ends');
    await expect(terminalText(wb).getByText(/epoch 3\/45/), 60_000).toBeVisible();
    await unfold(wb.rows('Instances', /running/));
    await expect(wb.rows('Instances', /train\.py/)).toBeVisible();
    await expect(wb.rows('Instances', /train\.py/)).toContainText(/running/);
    await wb.shot('e2e-job-running', true);
  });

  it('after a window reload mid-run, the job is still running and its output resumes in its terminal', async () => {
    const wb = workbench();
    const before = await lastEpoch(wb);
    assert.ok(before >= 3 && before < 35, `the job is mid-run (epoch ${before})`);
    await wb.reload();
    await wb.openSidebar();
    await unfold(wb.rows('Instances', /running/));
    const job = wb.rows('Instances', /train\.py/).first();
    await expect(job, 60_000).toBeVisible();
    await expect(job).toContainText(/running/);
    // The job's terminal was open, so it comes back by itself and follows on from where it was.
    // Its viewport holds a few rows and catches up at once after a slow reload, so a given epoch may
    // scroll past between two looks: wait for the newest epoch it shows to have moved on instead.
    await eventually(
      async () => (await lastEpoch(wb)) >= before + 5,
      `the reattached terminal to show epoch ${before + 5} or later`,
      60_000,
    );
    await wb.shot('e2e-job-reattached', true);
  });

  it('sees the job finish and the instance stop by itself, its disk still billing', async () => {
    const wb = workbench();
    await expect(terminalText(wb).getByText('training done'), 150_000).toBeVisible();
    await expect(wb.rows('Instances', /exited 0|finished/).first(), 60_000).toBeVisible();
    await expect(wb.rows('Instances', /stopped · \$\d+\.\d+\/h disk/).first(), 120_000).toBeVisible();
    await expect(await wb.notificationInCenter(/stopped by the job's end|was stopped/), 60_000).toBeVisible();
    await wb.shot('e2e-job-stopped-instance', true);
    await wb.runCommand('Notifications: Hide Notifications');
  });

  it('starts the instance again by hand and downloads the outputs', async () => {
    const wb = workbench();
    // From the palette, which always asks which: the person picks the stopped instance and the job.
    await wb.runCommand('GPU Rental: Start Instance');
    await wb.pick(/stopped/);
    await expect(wb.rows('Instances', /running/).first(), 90_000).toBeVisible();
    await wb.runCommand('GPU Rental: Download Job Outputs');
    await wb.pick(/train\.py/);
    // code-server's own folder dialog, in the quick input. It fills in the proposed folder (the
    // workspace) a moment after it opens: accept only once it shows it, or Enter takes another.
    const path = wb.quickInput().locator('input');
    await expect(path).toBeVisible();
    for (let i = 0; i < 150 && !(await path.inputValue()).includes(basename(wb.folder)); i++) await wb.page.waitForTimeout(100);
    assert.match(await path.inputValue(), new RegExp(basename(wb.folder)), 'the workspace folder is proposed');
    await wb.page.waitForTimeout(300);
    const accept = wb.quickInput().getByRole('button', { name: 'Download Here' });
    if (await accept.count()) await accept.first().click();
    else await wb.page.keyboard.press('Enter');
    await expect(await wb.notificationInCenter(/downloaded/i), 60_000).toBeVisible();
    await wb.shot('e2e-job-downloaded', true);
    await wb.runCommand('Notifications: Hide Notifications');
    // The folder the job ran in (the uploaded workspace) comes down under its own name.
    const model = join(wb.folder, basename(wb.folder), 'outputs', 'model.txt');
    assert.match(readFileSync(model, 'utf8'), /weights after 45 epochs/);
  });

  it('destroys the instance; the confirmation says how much goes with it and offers Download First', async () => {
    const wb = workbench();
    await wb.contextMenu(wb.rows('Instances', /running/).first(), 'Destroy Instance…');
    await expect(wb.dialog()).toContainText(/holds/);
    await expect(wb.dialog().getByRole('button', { name: 'Download First' })).toBeVisible();
    await wb.shot('e2e-destroy-download-first', true);
    await wb.dialog().getByRole('button', { name: 'Destroy' }).click();
    await expect(wb.rows('Instances', /running|stopped/), 60_000).toBeHidden();
  });
});
