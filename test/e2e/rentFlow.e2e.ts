import { expect } from './expect';
import { openWorkbench, type Workbench } from './workbench';

const KEY = 'e2e-rent-key-5c2a9e';

describe('rent flow: search, rent, watch it boot, stop, destroy', () => {
  let wb: Workbench;
  before(async () => {
    // Signed in through GPU_RENTAL_API_KEY, as npm start does; boots slow enough to watch.
    wb = await openWorkbench({ key: KEY, bootSeconds: 20, env: { GPU_RENTAL_API_KEY: KEY } });
    await wb.openSidebar();
  });
  after(() => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.shot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });

  it('searches with a query in the CLI language', async () => {
    await wb.runCommand('GPU Rental: Search Offers…');
    await wb.pick('Type a query');
    const input = wb.quickInput().locator('input');
    await input.fill('gpu_name=RTX_4090 num_gpus=1');
    await wb.page.keyboard.press('Enter');
    await wb.pick('Show offers');
    const offers = wb.section('Offers');
    await expect(offers.locator('.monaco-list-row').filter({ hasText: 'gpu_name=RTX_4090 num_gpus=1' })).toBeVisible();
    await expect(offers.locator('.monaco-list-row').filter({ hasText: /^RTX 4090\$/ })).toBeVisible();
    await wb.shot('e2e-search', true);
  });

  it('rents the first offer through the six steps, with the price on the last', async () => {
    await wb.rentFirstOfferToConfirmation();
    await expect(wb.quickInput().getByText(/Rent for \$\d/)).toBeVisible();
    await expect(wb.quickInput().getByText(/Credit after a day/)).toBeVisible();
    await wb.shot('e2e-rent-confirm', true);
    await wb.pick(/Rent for \$\d/);
  });

  it('watches it boot in the status bar, through a window reload, then run', async () => {
    await expect(wb.statusBar(/(provisioning|loading) \d+:\d\d/)).toBeVisible();
    await wb.shot('e2e-booting', true);
    // A reload keeps watching: the boot is saved in global state and picked up again.
    await wb.page.reload();
    await wb.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    await expect(wb.statusBar(/(provisioning|loading) \d+:\d\d/)).toBeVisible();
    const running = wb
      .section('Instances')
      .locator('.monaco-list-row')
      .filter({ hasText: /running/ });
    await expect(running, 60_000).toBeVisible();
    await expect(await wb.notificationInCenter(/is running/)).toBeVisible();
    await wb.shot('e2e-running', true);
    await wb.page.keyboard.press('Escape');
  });

  it('stops it from the context menu: the disk is still billed', async () => {
    const row = wb.section('Instances').locator('.monaco-list-row').first();
    await wb.contextMenu(row, 'Stop Instance');
    await expect(
      wb
        .section('Instances')
        .locator('.monaco-list-row')
        .filter({ hasText: /stopped · \$\d+\.\d+\/h disk/ }),
      30_000,
    ).toBeVisible();
    await wb.shot('e2e-stopped', true);
  });

  it('destroys it after a confirmation that says what is lost', async () => {
    const row = wb.section('Instances').locator('.monaco-list-row').first();
    await wb.contextMenu(row, 'Destroy Instance…');
    const dialog = wb.page.locator('.monaco-dialog-box');
    await expect(dialog.getByText(/deleted for good/)).toBeVisible();
    await wb.shot('e2e-destroy-confirm', true);
    await dialog.getByRole('button', { name: 'Destroy' }).click();
    await expect(wb.section('Instances').getByText('No instances yet')).toBeVisible();
  });
});
