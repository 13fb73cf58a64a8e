import { rentOne } from '../support/http';
import { expect } from './expect';
import { workbenchForSuite } from './workbench';

const LABELS = ['e2e-multi-a', 'e2e-multi-b', 'e2e-multi-c'];

describe('many machines: multi-select destroy with one confirmation', function () {
  this.timeout(300_000);
  // The three instances are rented through the API, as a second client would: the selection is what is tested.
  const workbench = workbenchForSuite({
    prepare: async (wb) => {
      for (const label of LABELS) await rentOne(wb.sim, { label });
    },
  });

  it('badges the view with the running instances and shows their health and total', async () => {
    const wb = workbench();
    for (const label of LABELS) await expect(wb.rows('Instances', label).filter({ hasText: /running/ }), 60_000).toBeVisible();
    await expect(wb.rows('Instances', LABELS[0]!).filter({ hasText: /GPU \d+% · \d+°C/ })).toBeVisible();
    // The container's badge on the activity bar counts the running instances.
    await expect(
      wb.page
        .locator('.activitybar .action-item[aria-label^="GPU Rental"] .badge-content, .activitybar .badge .badge-content')
        .filter({ hasText: /^3$/ })
        .first(),
    ).toBeVisible();
    await expect(
      wb
        .section('Instances')
        .locator('.pane-header .description')
        .filter({ hasText: /\$\d+\.\d+\/h/ }),
    ).toBeVisible();
  });

  it('selects three with ctrl-click, destroys them after one confirmation that lists them all', async () => {
    const wb = workbench();
    const [a, b, c] = LABELS.map((label) => wb.rows('Instances', label));
    await a!.click();
    await b!.click({ modifiers: ['Control'] });
    await c!.click({ modifiers: ['Control'] });
    // Three rows selected: the third selected row exists.
    await expect(wb.section('Instances').locator('.monaco-list-row.selected').nth(2)).toBeVisible();
    await wb.contextMenu(b!, 'Destroy Instance…');
    const dialog = wb.dialog();
    await expect(dialog.getByText('Destroy these 3 instances?')).toBeVisible();
    for (const label of LABELS)
      await expect(dialog.getByText(new RegExp(`"${label}" \\(.+\\): \\$\\d+\\.\\d+/h now → nothing`))).toBeVisible();
    await expect(dialog.getByText(/These 3 instances and their disks are deleted for good/)).toBeVisible();
    await wb.shot('e2e-multi-destroy-confirm', true);
    await dialog.getByRole('button', { name: 'Destroy 3' }).click();
    await expect(wb.section('Instances').getByText('No instances yet'), 30_000).toBeVisible();
    await expect(await wb.notificationInCenter('GPU Rental: 3 destroyed.')).toBeVisible();
    await wb.shot('e2e-multi-destroyed', true);
  });
});
