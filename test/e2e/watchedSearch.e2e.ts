import { expect } from './expect';
import { control, workbenchForSuite, type Workbench } from './workbench';

/** Sets the Offers view's search by typing a query, as a person does from Search Offers. */
async function search(wb: Workbench, query: string): Promise<void> {
  await wb.runCommand('GPU Rental: Search Offers');
  await wb.pick('Type a query…');
  const input = wb.quickInput().locator('input');
  await input.fill(query);
  await wb.page.keyboard.press('Enter');
  await wb.pick('Show offers');
  await expect(wb.rows('Offers', query)).toBeVisible();
}

/** Saves the current search under `name` from the palette. */
async function save(wb: Workbench, name: string): Promise<void> {
  await wb.runCommand('GPU Rental: Save Search…');
  await expect(wb.quickInput().getByText(/A name for this search/)).toBeVisible();
  await answer(wb, name);
  await seen(wb, `saved the search "${name}"`);
}

/** Types `text` into the open input box as a person does, accepts it, and waits for the box to close. */
async function answer(wb: Workbench, text: string): Promise<void> {
  const input = wb.quickInput().locator('input');
  await input.fill('');
  await input.pressSequentially(text);
  await wb.page.keyboard.press('Enter');
  await expect(wb.quickInput()).toBeHidden();
}

/** Waits for a notification in the notification center (a toast may be hidden behind the quick input), then clears them all. */
async function seen(wb: Workbench, text: string | RegExp): Promise<void> {
  await expect(await wb.notificationInCenter(text)).toBeVisible();
  await wb.runCommand('Notifications: Clear All Notifications');
}

describe('watched search: save, watch, get told when a matching offer is listed', function () {
  this.timeout(300_000);
  const workbench = workbenchForSuite();

  it('saves searches and picks one back from Saved Searches', async () => {
    const wb = workbench();
    await search(wb, 'gpu_name=H100_SXM');
    await save(wb, 'H100 nodes');
    await search(wb, 'gpu_name=RTX_4090 num_gpus>=2');
    await save(wb, '4090 pairs');
    await search(wb, 'num_gpus>=8');
    await wb.runCommand('GPU Rental: Saved Searches…');
    await expect(wb.quickInput().getByText('4090 pairs')).toBeVisible();
    await expect(wb.quickInput().getByText('H100 nodes')).toBeVisible();
    await wb.quickInput().locator('.monaco-list-row').filter({ hasText: '4090 pairs' }).hover();
    await wb.shot('e2e-saved-searches', true);
    await wb.pick('4090 pairs');
    await expect(wb.rows('Offers', 'gpu_name=RTX_4090 num_gpus>=2')).toBeVisible();
  });

  it('watches a search with a ceiling, showing the cheapest match now, and says how many offers match', async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Watch Search…');
    await wb.pick('4090 pairs');
    await expect(wb.quickInput().getByText(/The cheapest match now: RTX 4090 ×\d+ at \$\d+\.\d+\/h/)).toBeVisible();
    await answer(wb, '0.70');
    await seen(wb, /watching "4090 pairs" for offers at or under \$0\.700\/h\. (No offer matches now|\d+ offers? match(es)? now)/);
  });

  it('tells a new matching offer listed by the simulator, with Rent, Show and Stop Watching', async () => {
    const wb = workbench();
    await control(wb, 'POST', 'offers', {
      gpu_name: 'RTX 4090',
      num_gpus: 2,
      dph_total: 0.35,
      geolocation: 'Amsterdam, NL',
      allocated_storage: 10,
    });
    // The watcher's own clock runs in minutes; Check Watched Searches Now looks at once.
    await wb.runCommand('GPU Rental: Check Watched Searches Now');
    const told = await wb.notificationInCenter('"4090 pairs": RTX 4090 ×2 at $0.350/h in NL');
    await expect(told).toBeVisible();
    for (const name of ['Rent', 'Show', 'Stop Watching']) await expect(told.getByRole('button', { name })).toBeVisible();
    await wb.shot('e2e-watch-notified', true);
    await wb.runCommand('Notifications: Clear All Notifications');
    // Told once: looking again finds nothing new.
    await wb.runCommand('GPU Rental: Check Watched Searches Now');
    await seen(wb, 'checked 1 watched search: no new offers');
  });
});
