import { rentOne } from '../support/http';
import { expect } from './expect';
import { workbenchForSuite } from './workbench';

describe('connect: one click to a shell on the instance (code-server has no Remote-SSH, so the terminal fallback)', () => {
  // The instance is rented through the API, as a second client would: connect is what is tested.
  const workbench = workbenchForSuite({
    prepare: (wb) => rentOne(wb.sim, { image: 'pytorch/pytorch:latest', disk: 16, label: 'e2e-connect' }).then(() => {}),
  });

  it('clicks Connect on the running instance, creates a key after asking, and offers the SSH terminal', async () => {
    const wb = workbench();
    const row = wb.rows('Instances', /e2e-connect/).filter({ hasText: /running/ });
    await expect(row).toBeVisible();
    await row.hover();
    await row.locator('.action-label[aria-label^="Connect"]').click();
    const dialog = wb.dialog();
    // A click that lands while the row is drawn again (its uptime ticks) reaches Connect without the
    // row, and Connect then asks which instance, as from the palette: the same instance is picked.
    const asked = wb.quickInput().getByText('Connect to which instance?');
    await dialog.getByText('No SSH key found. Create one?').or(asked).first().waitFor({ timeout: 20_000 });
    if (await asked.isVisible()) await wb.pick(/e2e-connect/);
    await expect(dialog.getByText('No SSH key found. Create one?')).toBeVisible();
    await wb.shot('e2e-connect-key', true);
    await dialog.getByRole('button', { name: 'Create Key' }).click();
    // The toast may already have hidden behind the closing dialog; the notification center keeps it.
    const offer = await wb.notificationInCenter(/no Remote-SSH extension is installed/);
    await expect(offer).toBeVisible();
    await wb.shot('e2e-connect-no-remote-ssh', true);
    await offer.getByRole('button', { name: 'Open SSH Terminal' }).click();
  });

  it('opens a terminal running ssh on the alias; a command typed there runs on the instance', async () => {
    const wb = workbench();
    const terminal = wb.page.locator('.terminal-wrapper.active .xterm');
    await expect(terminal).toBeVisible();
    await expect(
      wb.page
        .locator('.terminal-tabs-entry, .single-terminal-tab, .terminal-tab')
        .filter({ hasText: /e2e-connect/ })
        .first(),
    ).toBeVisible();
    // Wait for the remote shell's prompt, then type into it.
    await expect(terminal.locator('.xterm-rows')).toContainText(/[#$]\s*$/m);
    await terminal.click();
    await wb.page.keyboard.type('echo "remote says $((6*7)) over $SSH_CONNECTION"');
    await wb.page.keyboard.press('Enter');
    await expect(terminal.locator('.xterm-rows')).toContainText(/remote says 42 over 127\.0\.0\.1 \d+ 127\.0\.0\.1 \d+/);
    await wb.shot('e2e-connect-terminal', true);
  });
});
