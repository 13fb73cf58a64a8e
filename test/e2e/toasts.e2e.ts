import { expect } from './expect';
import { workbenchForSuite } from './workbench';

// The other suites run VS Code with its smoke-test driver, under which the workbench never shows a
// toast. This one runs it as `npm start` and a user get it: a notification must pop up on its own.
describe('notifications pop up as toasts, as users see them', () => {
  const workbench = workbenchForSuite({ bootSeconds: 3, smokeTestDriver: false });

  it('"is running" pops up as a toast with Connect after a rent, without opening the notification center', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rent for \$\d/);
    const toast = wb.notification(/is running/);
    await expect(toast, 60_000).toBeVisible();
    await expect(toast.getByRole('button', { name: /Connect/ })).toBeVisible();
    await expect(wb.page.locator('.notifications-center.visible')).toBeHidden();
    await wb.shot('e2e-toast');
  });
});
