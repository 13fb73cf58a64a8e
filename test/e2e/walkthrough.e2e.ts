import type { Locator } from 'playwright-core';
import { DEMO_KEY } from '../support/keys';
import { expect } from './expect';
import { PRICED, workbenchForSuite, type Workbench } from './workbench';

/** The walkthrough's page in the editor area. */
function page(wb: Workbench): Locator {
  return wb.page.locator('.gettingStartedContainer');
}

/** A step of the walkthrough, by its title. */
function step(wb: Workbench, title: string): Locator {
  return page(wb).locator('button.getting-started-step').filter({ hasText: title });
}

/** Waits until the step shows as done (`true`) or not done (`false`). */
async function expectDone(wb: Workbench, title: string, done: boolean, timeoutMs?: number): Promise<void> {
  await expect(page(wb).locator(`button.getting-started-step[aria-checked="${done}"]`).filter({ hasText: title }), timeoutMs).toBeVisible();
}

/** Opens a step and presses the button in its text. */
async function press(wb: Workbench, stepTitle: string, button: string): Promise<void> {
  await step(wb, stepTitle).click();
  // The step opens with an animation; a click while it moves can land on the step instead of its button.
  await expect(page(wb).locator('button.getting-started-step[aria-expanded="true"]').filter({ hasText: stepTitle })).toBeVisible();
  await wb.page.waitForTimeout(500);
  const action = page(wb).getByRole('button', { name: button, exact: true });
  await expect(action).toBeVisible();
  await action.click();
}

describe('walkthrough: from a fresh profile to a running instance', () => {
  // A fresh home and no key: what a new user sees after installing.
  const workbench = workbenchForSuite({ signedIn: false, bootSeconds: 3 });

  it('opens from Welcome: Open Walkthrough…, nothing done yet', async () => {
    const wb = workbench();
    await wb.runCommand('Welcome: Open Walkthrough');
    await wb.pick('Get started with GPU Rental');
    await expect(page(wb).getByText('Get started with GPU Rental').first()).toBeVisible();
    for (const title of ['Set your API key', 'Search the offers', 'Rent a machine', 'Connect to it', 'Stop paying when you are done'])
      await expectDone(wb, title, false);
    await expect(wb.section('Instances').getByRole('button', { name: 'Set API Key' })).toBeVisible();
    // The step's image is drawn in a webview of its own.
    await expect(page(wb).locator('iframe, .getting-started-media img, .getting-started-media svg')).toBeVisible();
    await wb.page.waitForTimeout(1000);
    await wb.shot('e2e-walkthrough-start', true);
  });

  it('marks the key step done once the key is accepted, not when the step is opened', async () => {
    const wb = workbench();
    await step(wb, 'Search the offers').click();
    await expectDone(wb, 'Search the offers', false);
    await press(wb, 'Set your API key', 'Set API Key');
    const input = wb.quickInput().locator('input');
    await input.waitFor();
    await input.fill(DEMO_KEY);
    await wb.page.keyboard.press('Enter');
    await expect(wb.statusBar(/\$250\.00/)).toBeVisible();
    await expectDone(wb, 'Set your API key', true);
  });

  it('marks the search step done when offers are listed', async () => {
    const wb = workbench();
    await press(wb, 'Search the offers', 'Search Offers');
    await wb.pick('Show offers');
    await expect(wb.rows('Offers', PRICED).first()).toBeVisible();
    await expectDone(wb, 'Search the offers', true);
  });

  it('rents from the step: the rent step is done, the instance runs', async () => {
    const wb = workbench();
    await press(wb, 'Rent a machine', 'Rent an Offer');
    await wb.pick(PRICED);
    await wb.pick('ubuntu:22.04');
    await expect(wb.quickInput().getByText(/Disk size in GB/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await wb.pick(/SSH/);
    await expect(wb.quickInput().getByText(/A label to recognise/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await wb.pick('No start-up script');
    await wb.pick(/Rent for \$\d/);
    await expectDone(wb, 'Rent a machine', true);
    await expect(wb.rows('Instances', /running/), 60_000).toBeVisible();
    // The connect and stop steps wait for their own actions.
    await expectDone(wb, 'Connect to it', false);
    await expectDone(wb, 'Stop paying when you are done', false);
    await step(wb, 'Connect to it').click();
    await wb.page.waitForTimeout(1000);
    await wb.shot('e2e-walkthrough-done', true);
  });

  it('marks the stop step done when the instance is stopped from it', async () => {
    const wb = workbench();
    await press(wb, 'Stop paying when you are done', 'Stop Instance');
    await wb.pick(/running/);
    await expect(wb.rows('Instances', /stopped/), 30_000).toBeVisible();
    await expectDone(wb, 'Stop paying when you are done', true);
  });
});
