import { expect } from './expect';
import { workbenchForSuite } from './workbench';

describe('rent flow: search, rent, watch it boot, stop, destroy', () => {
  // Signed in through GPU_RENTAL_API_KEY, as npm start does; boots slow enough to watch.
  const workbench = workbenchForSuite({ bootSeconds: 20 });

  it('searches with a query in the CLI language', async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Search Offers…');
    await wb.pick('Type a query');
    const input = wb.quickInput().locator('input');
    await input.fill('gpu_name=RTX_4090 num_gpus=1');
    await wb.page.keyboard.press('Enter');
    await wb.pick('Show offers');
    await expect(wb.rows('Offers', 'gpu_name=RTX_4090 num_gpus=1')).toBeVisible();
    await expect(wb.rows('Offers', /^RTX 4090\$/)).toBeVisible();
    await wb.shot('e2e-search', true);
  });

  it('rents the first offer through the six steps, with the price on the last', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await expect(wb.quickInput().getByText(/Rent for \$\d/)).toBeVisible();
    await expect(wb.quickInput().getByText(/Credit after a day/)).toBeVisible();
    await wb.shot('e2e-rent-confirm', true);
    await wb.pick(/Rent for \$\d/);
  });

  it('watches it boot in the status bar, through a window reload, then run', async () => {
    const wb = workbench();
    await expect(wb.statusBar(/(provisioning|loading) \d+:\d\d/)).toBeVisible();
    await wb.shot('e2e-booting', true);
    // A reload keeps watching: the boot is saved in global state and picked up again.
    await wb.reload();
    await expect(wb.statusBar(/(provisioning|loading) \d+:\d\d/)).toBeVisible();
    await expect(wb.rows('Instances', /running/), 60_000).toBeVisible();
    await expect(await wb.notificationInCenter(/is running/)).toBeVisible();
    await wb.shot('e2e-running', true);
    await wb.page.keyboard.press('Escape');
  });

  it('stops it from the context menu: the disk is still billed', async () => {
    const wb = workbench();
    await wb.contextMenu(wb.rows('Instances').first(), 'Stop Instance');
    await expect(wb.rows('Instances', /stopped · \$\d+\.\d+\/h disk/), 30_000).toBeVisible();
    await wb.shot('e2e-stopped', true);
  });

  it('destroys it after a confirmation that says what is lost', async () => {
    const wb = workbench();
    await wb.contextMenu(wb.rows('Instances').first(), 'Destroy Instance…');
    const dialog = wb.dialog();
    await expect(dialog.getByText(/deleted for good/)).toBeVisible();
    await wb.shot('e2e-destroy-confirm', true);
    await dialog.getByRole('button', { name: 'Destroy' }).click();
    await expect(wb.section('Instances').getByText('No instances yet')).toBeVisible();
  });
});
