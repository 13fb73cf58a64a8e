import * as assert from 'node:assert/strict';
import { call, obj } from '../support/http';
import { expect } from './expect';
import { workbenchForSuite } from './workbench';

describe('rent with a volume: the confirmation attaches a new volume on the same machine, with its price', function () {
  this.timeout(300_000);
  const workbench = workbenchForSuite();

  it('asks the size (with $/h) and the mount path, shows the volume on the confirmation, and the instance mounts it', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    const input = wb.quickInput();
    await wb.pick('No volume');
    await wb.pick('New volume on this machine');
    await expect(input.getByText(/Size of the new volume in GB .* It bills \$\d+\.\d+\/h until you delete it/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await expect(input.getByText(/Where to mount it/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await expect(input.getByText(/Volume: new 50 GB volume at \/data, \$\d+\.\d+\/h until deleted/)).toBeVisible();
    await expect(input.getByText(/per day, plus the new volume \$\d+\.\d+\/h/)).toBeVisible();
    await wb.shot('e2e-rent-volume', true);
    await wb.pick(/Rent for \$\d/);
    await expect(await wb.notificationInCenter(/rented ".*" as instance #\d+/)).toBeVisible();

    const volumes = obj(await call(wb.sim, 'GET', '/api/v0/volumes/?owner=me')).volumes as Array<{
      disk_space: number;
      instances: number[];
    }>;
    assert.equal(volumes.length, 1);
    assert.equal(volumes[0]!.disk_space, 50);
    assert.equal(volumes[0]!.instances.length, 1, 'mounted by the new instance');
  });
});
