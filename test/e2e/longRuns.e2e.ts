import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from './expect';
import { runFileOnInstance, terminalText, unfold } from './jobs';
import { control, workbenchForSuite, type Workbench } from './workbench';

/**
 * Training that checkpoints as Hugging Face's Trainer does: an epoch a second, and every second
 * epoch a folder `checkpoints/checkpoint-N/` (its state, weights and a subfolder), written under a
 * hidden name and then renamed, so the newest entry is always whole. `--resume PATH` goes on from
 * the epoch after the one in PATH/trainer_state.json; a resumed run trains six more epochs and
 * ends (exit 0), so each test sees its job's end. A fresh run starts with no checkpoints.
 */
const TRAIN_PY = [
  'import json, os, shutil, sys, time',
  "out = 'checkpoints'",
  'start, resumes = 1, 0',
  "if len(sys.argv) > 2 and sys.argv[1] == '--resume':",
  "    with open(os.path.join(sys.argv[2], 'trainer_state.json')) as f:",
  '        state = json.load(f)',
  "    start, resumes = state['epoch'] + 1, state['resumes'] + 1",
  "    print(f'resumed from {os.path.basename(sys.argv[2])} at epoch {start}', flush=True)",
  'else:',
  '    shutil.rmtree(out, ignore_errors=True)',
  'os.makedirs(out, exist_ok=True)',
  'last = start + 5 if resumes else 1000',
  'for epoch in range(start, last + 1):',
  "    print(f'epoch {epoch}', flush=True)",
  '    time.sleep(1)',
  '    if epoch % 2 == 0:',
  "        tmp = os.path.join(out, f'.tmp-checkpoint-{epoch}')",
  "        os.makedirs(os.path.join(tmp, 'rng'), exist_ok=True)",
  "        with open(os.path.join(tmp, 'trainer_state.json'), 'w') as f:",
  "            json.dump({'epoch': epoch, 'resumes': resumes}, f)",
  "        with open(os.path.join(tmp, 'model.safetensors'), 'wb') as f:",
  '            f.write(os.urandom(4096 + epoch))',
  "        with open(os.path.join(tmp, 'rng', 'rng_state_0.pth'), 'wb') as f:",
  '            f.write(os.urandom(77))',
  "        os.replace(tmp, os.path.join(out, f'checkpoint-{epoch}'))",
  "print('training done', flush=True)",
  '',
].join('\n');

/** A CSV file's rows (RFC 4180: quoted fields may hold commas, quotes doubled, line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field.replace(/\r$/, ''));
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (quoted) field += c;
    else if (c === ',') endField();
    else if (c === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else field += c;
  }
  if (field || row.length) {
    endField();
    rows.push(row);
  }
  return rows;
}

interface SimInstance {
  id: number;
  phase?: string;
  status?: string;
}

async function simInstances(wb: Workbench): Promise<SimInstance[]> {
  return ((await control(wb, 'GET', 'state')) as { instances: SimInstance[] }).instances;
}

/** Unfolds the instance row until its job row that shows `text` appears (a new instance's jobs are listed a moment after it runs). */
async function jobRow(wb: Workbench, text: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const row = wb.rows('Instances', text);
  while (!(await row.count())) {
    if (Date.now() > deadline) await expect(row, 1).toBeVisible();
    await unfold(wb.rows('Instances', /running/));
    await wb.page.waitForTimeout(1_000);
  }
}

/** The notifications in the center that match `text`, once the first is there: how many said it. */
async function toldTimes(wb: Workbench, text: RegExp): Promise<number> {
  await expect(await wb.notificationInCenter(text), 120_000).toBeVisible();
  // A second notice would come within a poll or two of the first.
  await wb.page.waitForTimeout(6_000);
  const count = await (await wb.notificationInCenter(text)).count();
  await wb.runCommand('Notifications: Hide Notifications');
  return count;
}

/** Types `value` into the open input box (replacing what it proposes) and presses Enter. */
async function typeAndEnter(wb: Workbench, value: string): Promise<void> {
  const input = wb.quickInput().locator('input').first();
  await input.fill(value);
  await wb.page.keyboard.press('Enter');
}

describe('long runs: resumable jobs survive outbids (wait, then move), a lying machine is caught, spend exports', function () {
  this.timeout(900_000);
  let firstId = 0;
  const workbench = workbenchForSuite({
    settings: { 'gpuRental.remoteFolder': '/workspace', 'gpuRental.health.checkAfterRent': false },
    prepare: (wb) => {
      writeFileSync(join(wb.folder, 'train.py'), TRAIN_PY);
      return Promise.resolve();
    },
  });

  it('starts a resumable job on an interruptible instance', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rental: on-demand \$\d+\.\d+\/h/);
    await expect(wb.quickInput().getByText(/Bid in \$\/h for the GPU part/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput().getByText(/Interruptible: bid \$\d+\.\d+\/h/)).toBeVisible();
    await wb.pick(/Rent for \$\d/);
    await expect(wb.rows('Instances', /running/), 90_000).toBeVisible();
    firstId = (await simInstances(wb))[0]!.id;

    // The only running instance is taken without asking.
    await runFileOnInstance(wb, 'train.py');
    await wb.dialog().getByRole('button', { name: 'Create Key' }).click();
    await wb.pick('Keep the instance running');
    await wb.pick(/^Resumable/);
    await expect(wb.quickInput().getByText(/The folder the job writes its checkpoints to/)).toBeVisible();
    assert.equal(await wb.quickInput().locator('input').first().inputValue(), 'checkpoints');
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput().getByText(/The command that resumes the job/)).toBeVisible();
    assert.equal(await wb.quickInput().locator('input').first().inputValue(), 'python3 train.py --resume {latest}');
    await wb.page.keyboard.press('Enter');
    await wb.pick(/^Wait/);
    // The folder does not exist yet: a new run has none, and GPU Rental asks before it makes it.
    await wb.dialog().getByRole('button', { name: 'Create It and Start' }).click();
    await expect(terminalText(wb).getByText(/epoch 3\b/), 60_000).toBeVisible();
    await unfold(wb.rows('Instances', /running/));
    await expect(wb.rows('Instances', /train\.py/), 60_000).toContainText(/running/);
    await expect(wb.rows('Instances', /train\.py/)).toContainText(/wait/);
    await wb.shot('e2e-long-resumable-job', true);
  });

  it('outbid, then the other bids fall: the service resumes the instance and the job resumes from its checkpoint folder (wait), followed to its end', async () => {
    const wb = workbench();
    // Let a few checkpoint folders land first. The center's list draws only the rows in view: it
    // starts empty, so what this test looks for is there.
    await wb.runCommand('Notifications: Clear All Notifications');
    await wb.page.waitForTimeout(8_000);
    await control(wb, 'POST', `instances/${firstId}/outbid`, {});
    await expect(wb.rows('Instances', /outbid/), 30_000).toBeVisible();
    await control(wb, 'POST', `instances/${firstId}/bids-lowered`, {});
    // The job went on from its newest checkpoint folder on the same instance, in the same terminal.
    await expect(terminalText(wb).getByText(/resumed from checkpoint-\d+ at epoch \d+/), 120_000).toBeVisible();
    await expect(wb.rows('Instances', /resumed ×1/), 60_000).toBeVisible();
    // Its tooltip tells the recovery and the work it lost.
    await wb.hoverUntil(/train\.py/, /min of work lost/);
    await wb.shot('e2e-long-resumed-wait', true);
    // It trains on to its end there, followed in its terminal, and its end is told once.
    await expect(terminalText(wb).getByText(/training done/), 60_000).toBeVisible();
    assert.equal(await toldTimes(wb, new RegExp(`train\\.py finished \\(exit 0\\) on #${firstId}`)), 1, 'its end is told once');
  });

  it('a job with the policy "move" and Hugging Face checkpoint folders: outbid, it resumes on a new instance from the newest folder, followed to its end; the old one is destroyed', async () => {
    const wb = workbench();
    // A second run of train.py on the same instance, this time with the policy "move".
    await runFileOnInstance(wb, 'train.py');
    await wb.pick('Keep the instance running');
    await wb.pick(/^Resumable/);
    await expect(wb.quickInput().getByText(/The folder the job writes its checkpoints to/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput().getByText(/The command that resumes the job/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await wb.pick(/^Move to another machine/);
    await typeAndEnter(wb, '5');
    await expect(terminalText(wb).getByText(/epoch 7\b/), 60_000).toBeVisible();
    await expect(wb.rows('Instances', /train\.py.*move ≤ \$5\.00\/h/).first(), 30_000).toBeVisible();
    await wb.runCommand('Notifications: Clear All Notifications');
    await control(wb, 'POST', `instances/${firstId}/outbid`, {});
    // The move's notice names the checkpoint folder it resumed from.
    const moved = await wb.notificationInCenter(
      /runs now on #\d+ .* resumed from its newest checkpoint checkpoint-\d+; the outbid instance #\d+ was destroyed/,
    );
    await expect(moved, 240_000).toBeVisible();
    const [, newId, folder] = /runs now on #(\d+) .* resumed from its newest checkpoint (checkpoint-\d+);/.exec(
      await moved.first().innerText(),
    )!;
    await wb.runCommand('Notifications: Hide Notifications');
    const after = await simInstances(wb);
    assert.ok(!after.some((i) => i.id === firstId), 'the old instance is destroyed');
    // Its output goes on in the same terminal: moved, resumed from that folder, then the job's own line.
    await expect(
      terminalText(wb).getByText(new RegExp(`moved from #${firstId} to #${newId}: following the job there`)),
      60_000,
    ).toBeVisible();
    await expect(
      terminalText(wb).getByText(new RegExp(`GPU Rental: moved from #${firstId} and resumed \\(×1\\) from .*${folder}`)),
      60_000,
    ).toBeVisible();
    await expect(terminalText(wb).getByText(new RegExp(`resumed from ${folder} at epoch \\d+`)), 60_000).toBeVisible();
    await wb.shot('e2e-long-moved', true);
    // Followed to its end on the new instance, told once.
    await expect(terminalText(wb).getByText(/training done/), 90_000).toBeVisible();
    assert.equal(await toldTimes(wb, new RegExp(`train\\.py finished \\(exit 0\\) on #${newId}`)), 1, 'its end is told once');
    await jobRow(wb, /resumed ×1/, 60_000);
  });

  it('a health check flags a machine that is not what was offered', async () => {
    const wb = workbench();
    const id = (await simInstances(wb)).find((i) => i.id !== firstId)!.id;
    await control(wb, 'POST', `instances/${id}/gpu`, { name: 'NVIDIA GeForce RTX 3060' });
    await wb.runCommand('Notifications: Clear All Notifications');
    await wb.contextMenu(wb.rows('Instances', /running/).first(), 'Check Machine Health');
    const warning = await wb.notificationInCenter(/Not what was offered/);
    await expect(warning, 60_000).toBeVisible();
    // It says what the machine cost so far, and offers to destroy it in its first minutes.
    await expect(warning.getByRole('button', { name: 'Destroy Instance' })).toBeVisible();
    await wb.shot('e2e-long-health-lie', true);
    await wb.runCommand('Notifications: Hide Notifications');
  });

  it("exports last month's spend as CSV; its total is the Billing view's", async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Export Spend…');
    await wb.pick('Last month');
    await wb.pick('CSV');
    // code-server's own save dialog, in the quick input. It fills in the proposed file (in the
    // workspace folder) a moment after it opens: accept only once it shows it.
    const path = wb.quickInput().locator('input');
    await expect(path).toBeVisible();
    for (let i = 0; i < 150 && !/gpu-rental-spend-\d{4}-\d{2}\.csv$/.test(await path.inputValue()); i++) await wb.page.waitForTimeout(100);
    const file = basename(await path.inputValue());
    assert.match(file, /^gpu-rental-spend-\d{4}-\d{2}\.csv$/, 'the file is named for the month');
    await wb.page.waitForTimeout(300);
    const accept = wb.quickInput().getByRole('button', { name: 'Export' });
    if (await accept.count()) await accept.first().click();
    else await wb.page.keyboard.press('Enter');
    // See the dialog take it before looking for the answer: the palette opened to show the
    // notifications would otherwise close a dialog still deciding.
    await expect(wb.quickInput()).toBeHidden();
    await expect(await wb.notificationInCenter(/exported \d+ charge lines \(\$[\d,]+\.\d\d\)/), 60_000).toBeVisible();
    await wb.shot('e2e-long-spend-export', true);
    await wb.runCommand('Notifications: Hide Notifications');
    const rows = parseCsv(readFileSync(join(wb.folder, file), 'utf8'));
    const header = rows[0]!;
    const [kind, amount] = [header.indexOf('kind'), header.indexOf('amount_usd')];
    const charges = rows.slice(1).filter((r) => r[kind] === 'charge');
    assert.ok(charges.length > 10, `last month has charge lines (${charges.length})`);
    // Summed as a spreadsheet sums the column: in whole ten-thousandths of a dollar (the file's
    // precision), then rounded to the cent half up, so a total on a half cent is not left to float noise.
    const units = charges.reduce((sum, r) => sum + Math.round(Number(r[amount]) * 10_000), 0);
    const cents = Math.floor((units + 50) / 100);
    const total = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    // The Billing section of the Account view says last month's total.
    // The Account view, by keyboard as a person without a mouse would: its Billing section, then
    // its rows (a tree draws only the rows in view, so the focus walks down to them).
    await wb.runCommand('GPU Rental: Show Account');
    const account = wb.page.locator('.pane').filter({ has: wb.page.locator('.pane-header h3.title:text-is("Account")') });
    const focused = account.locator('.monaco-list-row.focused');
    const walkTo = async (text: RegExp) => {
      for (let i = 0; i < 60 && !text.test(await focused.innerText({ timeout: 1_000 }).catch(() => '')); i++) {
        await wb.page.keyboard.press('ArrowDown');
        await wb.page.waitForTimeout(150);
      }
      await expect(focused, 1_000).toContainText(text);
    };
    await walkTo(/^Billing/);
    await wb.page.keyboard.press('ArrowRight');
    // Its rows are read from the service as it opens: the section shows them once every read answered.
    const billingRow = account.locator('.monaco-list-row.focused[aria-expanded="true"]');
    await expect(billingRow, 30_000).toBeVisible();
    for (let i = 0; i < 60 && (await account.locator('.monaco-list-row[aria-level="2"]').count()) === 0; i++)
      await wb.page.waitForTimeout(500);
    await walkTo(/Last month/);
    const lastMonth = focused;
    const shown = /Last month \([^)]*\): \$([\d,]+\.\d\d)/.exec(await lastMonth.innerText());
    assert.ok(shown, `the Billing section shows last month's total: ${await lastMonth.innerText()}`);
    assert.equal(total, shown[1]!.replace(/,/g, ''), 'the CSV adds up to the Billing view');
    await wb.shot('e2e-long-spend-billing', true);
  });
});
