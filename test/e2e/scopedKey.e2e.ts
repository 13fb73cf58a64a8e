import { expect } from './expect';
import { workbenchForSuite } from './workbench';

describe('scoped key: create a read-only key, switch to it, and a rent is refused with the permission it lacks', function () {
  this.timeout(300_000);
  const workbench = workbenchForSuite();

  it('creates the key from the palette: read-only categories ticked, shown once, then signs in with it', async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Create Scoped API Key…');
    const input = wb.quickInput();
    await expect(input.getByText(/what may it do\?/)).toBeVisible();
    await wb.shot('e2e-scoped-key-categories', true);
    await wb.page.keyboard.press('Enter');
    await expect(input.getByText(/limit to one instance\?/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await expect(input.getByText(/name/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    const dialog = wb.dialog();
    await expect(dialog.getByText(/it will not be shown again/)).toBeVisible();
    await wb.shot('e2e-scoped-key-once', true);
    await dialog.getByRole('button', { name: 'Sign In With It' }).click();
    await expect(await wb.notificationInCenter(/signed in to/)).toBeVisible();
    await wb.page.keyboard.press('Escape');
  });

  it('a rent with the read-only key is refused, naming the instance_write permission', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rent for \$\d/);
    await expect(await wb.notificationInCenter(/lacks the "instance_write" permission/)).toBeVisible();
    await wb.shot('e2e-scoped-key-refused', true);
  });
});
