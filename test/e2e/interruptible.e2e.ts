import { expect } from './expect';
import { control, workbenchForSuite } from './workbench';

describe('interruptible rent: bid, outbid, raise the bid', function () {
  this.timeout(300_000);
  const workbench = workbenchForSuite({ bootSeconds: 3 });

  it('rents as a bid from the confirmation: the minimum and the on-demand price beside it', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rental: on-demand \$\d+\.\d+\/h/);
    // The bid box suggests a little over the minimum; Enter takes it.
    await expect(
      wb.quickInput().getByText(/Bid in \$\/h for the GPU part \(minimum now \$\d+\.\d+\/h, on demand \$\d+\.\d+\/h\)/),
    ).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput().getByText(/Interruptible: bid \$\d+\.\d+\/h \(on-demand \$\d+\.\d+\/h\)/)).toBeVisible();
    await expect(wb.quickInput().getByText(/stopped if outbid; the disk still bills/)).toBeVisible();
    await wb.shot('e2e-bid-confirm', true);
    await wb.pick(/Rent for \$\d/);
    await expect(wb.rows('Instances', /running/), 60_000).toBeVisible();
  });

  it('outbid through the control route: the row and a notification say so, with the disk still billing', async () => {
    const wb = workbench();
    const state = (await control(wb, 'GET', 'state')) as { instances: Array<{ id: number }> };
    const id = state.instances[0]!.id;
    await control(wb, 'POST', `instances/${id}/outbid`, {});
    await expect(wb.rows('Instances', /outbid · \$\d+\.\d+\/h disk/), 30_000).toBeVisible();
    // Earlier toasts (rented, running) may hold the toast area: the notification center lists them all.
    await expect(await wb.notificationInCenter(/was outbid and stopped\. Its disk still bills \$\d+\.\d+\/h\./)).toBeVisible();
    await wb.shot('e2e-outbid', true);
  });

  it('Raise Bid suggests just over the new minimum, and the instance runs again', async () => {
    const wb = workbench();
    await (await wb.notificationInCenter(/was outbid and stopped/)).getByRole('button', { name: 'Raise Bid' }).click();
    await expect(wb.quickInput().getByText(/minimum now \$\d+\.\d+\/h · on demand \$\d+\.\d+\/h/)).toBeVisible();
    // Enter only once the suggested bid is in the box, and see the box take it before looking for the answer:
    // the palette opened to show the notifications would otherwise close a box still waiting.
    await wb.quickInput().locator('input').first().waitFor();
    for (let i = 0; i < 50 && !/\d/.test(await wb.quickInput().locator('input').first().inputValue()); i++)
      await wb.page.waitForTimeout(100);
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput()).toBeHidden();
    await expect(await wb.notificationInCenter(/the bid of .* is now \$\d+\.\d+\/h: it starts again/), 45_000).toBeVisible();
    await expect(wb.rows('Instances', /running/), 60_000).toBeVisible();
    await wb.shot('e2e-bid-raised', true);
  });
});
