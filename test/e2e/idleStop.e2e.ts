import { expect } from './expect';
import { workbenchForSuite } from './workbench';

describe('idle stop: an instance rented with a 1-minute idle stop stops itself, and the editor shows its disk still billing', function () {
  this.timeout(300_000);
  // The simulator runs the start-up script as a real process: the watchdog in it calls the API.
  const workbench = workbenchForSuite({ settings: { 'gpuRental.idleStop.minutes': 1 } });

  it('rents with "Idle stop after 1 min" on the confirmation', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await expect(wb.quickInput().getByText('Idle stop after 1 min')).toBeVisible();
    await wb.shot('e2e-idle-confirm', true);
    await wb.pick(/Rent for \$\d/);
    await expect(wb.rows('Instances', /running/), 60_000).toBeVisible();
    // The status bar shows what it burns.
    await expect(wb.statusBar(/\$\d+\.\d\d · \$\d+\.\d+\/h/)).toBeVisible();
  });

  it('left alone, it stops by itself within two minutes; the tree and status bar show the disk still billing', async () => {
    const wb = workbench();
    await expect(wb.rows('Instances', /stopped · \$\d+\.\d+\/h disk/), 180_000).toBeVisible();
    await expect(wb.statusBar(/\$\d+\.\d\d · \$0\.0\d+\/h/)).toBeVisible();
    await wb.statusBar(/\/h/).first().hover();
    await expect(wb.page.getByText(/storage of stopped instances/)).toBeVisible();
    await wb.shot('e2e-idle-stopped', true);
  });
});
