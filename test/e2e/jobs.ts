// The steps the job e2e files share (dataAndJobs.e2e.ts, longRuns.e2e.ts): open a file, run it on
// the instance from the editor's title bar, read the job's terminal, unfold an instance's jobs.
import { strict as assert } from 'node:assert';
import { expect } from './expect';
import type { Workbench } from './workbench';

/** The text the terminal panel shows (the DOM renderer: gpuAcceleration is off in the e2e settings). */
export function terminalText(wb: Workbench) {
  return wb.page.locator('.terminal-wrapper.active .xterm-rows');
}

/** Opens an instance row's children (its jobs) when they are folded. */
export async function unfold(row: ReturnType<Workbench['rows']>): Promise<void> {
  const twistie = row.first().locator('.monaco-tl-twistie.collapsed');
  if (await twistie.count()) await twistie.click();
}

/**
 * Opens `file` with Quick Open and presses Run on Instance in the editor's title bar; the only
 * running instance is taken without asking, and the command box proposes `python3 <file>`, which
 * is taken. Then the upload question, answered "Upload the workspace first".
 */
export async function runFileOnInstance(wb: Workbench, file: string): Promise<void> {
  await wb.page.keyboard.press('Control+P');
  await wb.quickInput().locator('input').fill(file);
  await wb.pick(file);
  await wb.page.locator('.editor-actions [aria-label^="Run on Instance"]').first().click();
  await expect(wb.quickInput().getByText(/The command to run on the instance/)).toBeVisible();
  assert.equal(await wb.quickInput().locator('input').inputValue(), `python3 ${file}`);
  await wb.page.keyboard.press('Enter');
  await wb.pick('Upload the workspace first');
}
