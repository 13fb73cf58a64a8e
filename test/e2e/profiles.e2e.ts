import { control } from '../support/http';
import { expect } from './expect';
import { workbenchForSuite } from './workbench';

describe('profiles: a second account beside the first, switched from the status bar', function () {
  this.timeout(300_000);
  const workbench = workbenchForSuite();
  let secondKey: string;
  before(async () => {
    const second = (await control(workbench().sim, 'POST', 'accounts', { email: 'lab@example.test', credit: 42 })) as { key: string };
    secondKey = second.key;
    await expect(workbench().statusBar(/\$250\.00/)).toBeVisible();
  });

  it('adds a profile from the palette with its own key; the status bar names it and shows its credit', async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Add Profile (Another Account or Service)…');
    const input = wb.quickInput();
    await expect(input.getByText(/A name for the account/)).toBeVisible();
    await wb.page.keyboard.type('Lab');
    await wb.page.keyboard.press('Enter');
    await expect(input.getByText(/The service this account is on/)).toBeVisible();
    await wb.page.keyboard.press('Enter');
    await expect(input.getByText(/Paste an API key for .*\(profile "Lab"\)/)).toBeVisible();
    await wb.page.keyboard.type(secondKey);
    await wb.page.keyboard.press('Enter');
    await expect(wb.statusBar(/Lab · \$42\.00/)).toBeVisible();
    await wb.shot('e2e-profile-added');
  });

  it('switches back from the status bar tooltip; each profile keeps its own key', async () => {
    const wb = workbench();
    await wb.statusBar(/Lab · \$42\.00/).hover();
    const link = wb.page.locator('.monaco-hover a').filter({ hasText: 'Switch Profile' });
    await expect(link).toBeVisible();
    await wb.shot('e2e-profile-tooltip', true);
    await link.click();
    const rows = wb.quickInput().locator('.quick-input-list .monaco-list-row');
    await expect(rows.filter({ hasText: 'Lab' })).toBeVisible();
    await wb.shot('e2e-profile-switch', true);
    await rows.filter({ hasText: 'Default' }).first().click();
    await expect(wb.statusBar(/Default · \$250\.00/)).toBeVisible();
  });
});
