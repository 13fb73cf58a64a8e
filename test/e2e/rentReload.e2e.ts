import { call, control, obj } from '../support/http';
import { expect } from './expect';
import { workbenchForSuite } from './workbench';

/** The service holds the create this long before it makes the instance. */
const CREATE_DELAY_MS = 25_000;

/**
 * A window reloaded while a rent's answer is still on its way. The rent was written to the
 * journal before it was sent; the reloaded window finds it, says it is not confirmed, checks the
 * account, and announces the instance once the service has made it. Nothing is rented twice.
 */
describe('rent survives a window reload mid-rent', () => {
  const workbench = workbenchForSuite();

  it('reloads during the rent, then shows the rent as unconfirmed and announces the instance once made', async () => {
    const wb = workbench();
    await control(wb.sim, 'POST', 'faults', { kind: 'latency', ms: CREATE_DELAY_MS, method: 'PUT', path: '/api/v0/asks/', count: 1 });
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rent for \$\d/);
    await expect(wb.statusBar(/Renting .*…/)).toBeVisible();
    // The request is on its way (the service holds it); the window goes.
    await wb.page.waitForTimeout(2_000);
    await wb.reload();
    await expect(wb.statusBar(/Rent of .* not confirmed — checking/), 60_000).toBeVisible();
    await wb.shot('e2e-rent-unconfirmed', true);
    // Settled once the service has made it: the check ends, and the outcome is announced.
    await expect(wb.statusBar(/not confirmed/), CREATE_DELAY_MS + 90_000).toBeHidden();
    await expect(await wb.notificationInCenter(/went through: it is instance #\d+/)).toBeVisible();
    await wb.shot('e2e-rent-reconciled', true);
    await wb.page.keyboard.press('Escape');
    const all = obj(await call(wb.sim, 'GET', '/api/v0/instances/?owner=me')).instances as unknown[];
    if (all.length !== 1) throw new Error(`expected exactly one instance after the reloaded rent, found ${all.length}`);
    await expect(wb.rows('Instances', /running|loading|provisioning/), 30_000).toBeVisible();
  });
});
