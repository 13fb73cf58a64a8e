import { DEMO_KEY } from '../support/keys';
import { expect } from './expect';
import { PRICED, workbenchForSuite } from './workbench';

describe('first run: from no key to a signed-in tree with offers', () => {
  const workbench = workbenchForSuite({ signedIn: false, bootSeconds: 3 });

  it('shows the no-key welcome with a Set API Key button', async () => {
    const wb = workbench();
    const instances = wb.section('Instances');
    await expect(instances.getByText('Rent GPU machines by the hour')).toBeVisible();
    await expect(instances.getByRole('button', { name: 'Set API Key' })).toBeVisible();
    await expect(wb.statusBar('GPU Rental')).toBeVisible();
    await wb.shot('e2e-first-run', true);
  });

  it('refuses a wrong key in the input box, without closing it', async () => {
    const wb = workbench();
    await wb.section('Instances').getByRole('button', { name: 'Set API Key' }).click();
    const input = wb.quickInput().locator('input');
    await input.waitFor();
    await input.fill('not-the-right-key');
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput().getByText(/refused this key/)).toBeVisible();
    await wb.shot('e2e-wrong-key', true);
  });

  it('accepts the right key: credit in the status bar, offers in the tree', async () => {
    const wb = workbench();
    const input = wb.quickInput().locator('input');
    await input.fill(DEMO_KEY);
    await wb.page.keyboard.press('Enter');
    await expect(wb.statusBar(/\$250\.00/)).toBeVisible();
    await expect(wb.rows('Offers', PRICED).first()).toBeVisible();
    await expect(wb.section('Instances').getByText('No instances yet')).toBeVisible();
    await wb.shot('e2e-signed-in', true);
  });

  it('signs out from the palette, back to the welcome', async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Sign Out');
    await expect(wb.section('Instances').getByRole('button', { name: 'Set API Key' })).toBeVisible();
    await wb.shot('e2e-signed-out');
  });
});
