import { expect } from './expect';
import { openWorkbench, type Workbench } from './workbench';

const KEY = 'e2e-demo-key-1b7d3f';

describe('first run: from no key to a signed-in tree with offers', () => {
  let wb: Workbench;
  before(async () => {
    wb = await openWorkbench({ key: KEY });
  });
  after(() => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.shot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });

  it('shows the no-key welcome with a Set API Key button', async () => {
    await wb.openSidebar();
    const instances = wb.section('Instances');
    await expect(instances.getByText('Rent GPU machines by the hour')).toBeVisible();
    await expect(instances.getByRole('button', { name: 'Set API Key' })).toBeVisible();
    await expect(wb.statusBar('GPU Rental')).toBeVisible();
    await wb.shot('e2e-first-run', true);
  });

  it('refuses a wrong key in the input box, without closing it', async () => {
    await wb.section('Instances').getByRole('button', { name: 'Set API Key' }).click();
    const input = wb.quickInput().locator('input');
    await input.waitFor();
    await input.fill('not-the-right-key');
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput().getByText(/refused this key/)).toBeVisible();
    await wb.shot('e2e-wrong-key', true);
  });

  it('accepts the right key: credit in the status bar, offers in the tree', async () => {
    const input = wb.quickInput().locator('input');
    await input.fill(KEY);
    await wb.page.keyboard.press('Enter');
    await expect(wb.statusBar(/\$250\.00/)).toBeVisible();
    const offers = wb.section('Offers');
    await expect(
      offers
        .locator('.monaco-list-row')
        .filter({ hasText: /\$\d+\.\d+\/h/ })
        .first(),
    ).toBeVisible();
    await expect(wb.section('Instances').getByText('No instances yet')).toBeVisible();
    await wb.shot('e2e-signed-in', true);
  });

  it('signs out from the palette, back to the welcome', async () => {
    await wb.runCommand('GPU Rental: Sign Out');
    await expect(wb.section('Instances').getByRole('button', { name: 'Set API Key' })).toBeVisible();
    await wb.shot('e2e-signed-out');
  });
});
