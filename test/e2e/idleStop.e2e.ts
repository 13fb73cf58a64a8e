import { expect } from './expect';
import { openWorkbench, type Workbench } from './workbench';

const KEY = 'e2e-idle-key-3b7d1f';

describe('idle stop: an instance rented with a 1-minute idle stop stops itself, and the editor shows its disk still billing', function () {
  this.timeout(300_000);
  let wb: Workbench;
  before(async () => {
    // The simulator runs the start-up script as a real process: the watchdog in it calls the API.
    wb = await openWorkbench({ key: KEY, bootSeconds: 2, env: { GPU_RENTAL_API_KEY: KEY }, settings: { 'gpuRental.idleStop.minutes': 1 } });
    await wb.openSidebar();
  });
  after(() => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await wb.shot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });

  it('rents with "Idle stop after 1 min" on the confirmation', async () => {
    await wb.rentFirstOfferToConfirmation();
    await expect(wb.quickInput().getByText('Idle stop after 1 min')).toBeVisible();
    await wb.shot('e2e-idle-confirm', true);
    await wb.pick(/Rent for \$\d/);
    await expect(
      wb
        .section('Instances')
        .locator('.monaco-list-row')
        .filter({ hasText: /running/ }),
      60_000,
    ).toBeVisible();
    // The status bar shows what it burns.
    await expect(wb.statusBar(/\$\d+\.\d\d · \$\d+\.\d+\/h/)).toBeVisible();
  });

  it('left alone, it stops by itself within two minutes; the tree and status bar show the disk still billing', async () => {
    const stopped = wb
      .section('Instances')
      .locator('.monaco-list-row')
      .filter({ hasText: /stopped · \$\d+\.\d+\/h disk/ });
    await expect(stopped, 180_000).toBeVisible();
    await expect(wb.statusBar(/\$\d+\.\d\d · \$0\.0\d+\/h/)).toBeVisible();
    await wb.statusBar(/\/h/).first().hover();
    await expect(wb.page.getByText(/storage of stopped instances/)).toBeVisible();
    await wb.shot('e2e-idle-stopped', true);
  });
});
