import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { control, eventually, recordNotifications, recordQuickPicks, signIn } from './support';

const NAME = `it 4090 pairs ${Date.now().toString(36)}`;

describe('saved and watched searches', () => {
  after(async () => {
    const x = await signIn();
    await x.test.store('savedSearches', undefined);
    await x.test.store('watchSeen', undefined);
    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'value');
  });

  it("saves the Offers view's search and sets it back when picked", async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'gpu_name=RTX_4090 num_gpus>=2');
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'price');
    assert.equal(await vscode.commands.executeCommand('gpuRental.saveSearch', NAME), NAME);
    assert.deepEqual(
      x.test.stored('savedSearches').find((s) => s.name === NAME),
      { name: NAME, query: 'gpu_name=RTX_4090 num_gpus>=2', sort: 'price' },
    );

    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'value');
    await vscode.commands.executeCommand('gpuRental.showSavedSearches', NAME);
    assert.deepEqual(x.test.stored('offerSearch'), { query: 'gpu_name=RTX_4090 num_gpus>=2', sort: 'price' });
  });

  it('lists saved searches in a quick pick with Watch, Rent Best Match and Delete, and picking one sets the search', async () => {
    const x = await signIn();
    await x.test.store('savedSearches', [{ name: NAME, query: 'gpu_name=RTX_4090 num_gpus>=2', sort: 'price' }]);
    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
    const { picks, restore } = recordQuickPicks();
    try {
      const shown = vscode.commands.executeCommand('gpuRental.showSavedSearches');
      const pick = await eventually(() => ((picks[0]?.items.length ?? 0) > 0 ? picks[0] : undefined), 'the Saved Searches pick');
      const item = pick.items.find((i) => i.label === NAME);
      assert.ok(item, `the search is listed: ${pick.items.map((i) => i.label).join(', ')}`);
      assert.deepEqual(
        item.buttons?.map((b) => b.tooltip),
        ['Watch', 'Rent Best Match', 'Delete'],
      );
      assert.match(item.detail ?? '', /gpu_name=RTX_4090 num_gpus>=2/);
      pick.activeItems = [item];
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await shown;
    } finally {
      restore();
    }
    await eventually(() => x.test.stored('offerSearch').query === 'gpu_name=RTX_4090 num_gpus>=2', 'the search set from the pick');
  });

  it('watches with a ceiling, says how many offers match now, and tells a new matching offer once', async () => {
    const x = await signIn();
    await x.test.store('savedSearches', [{ name: NAME, query: 'gpu_name=RTX_4090 num_gpus>=2', sort: 'price' }]);
    const notes = recordNotifications();
    const notices = x.test.recordWatchNotices();
    try {
      await vscode.commands.executeCommand('gpuRental.watchSearch', NAME, 0.7);
      const watched = x.test.stored('savedSearches').find((s) => s.name === NAME);
      assert.equal(watched?.watch?.ceilingPerHour, 0.7);
      assert.equal(watched.watch.profileId, 'default');
      const said = notes.seen.find((n) => n.message.includes(`watching "${NAME}"`));
      assert.match(said?.message ?? '', /at or under \$0\.700\/h\. (No offer matches now|\d+ offers? match(es)? now)/);
      assert.match(said!.message, /one search every 5 min/);
      assert.deepEqual(x.test.stored('watchSeen')[NAME.toLowerCase()]?.since, watched.watch.since, 'the baseline is recorded');

      const { offer } = (await control('POST', 'offers', {
        gpu_name: 'RTX 4090',
        num_gpus: 2,
        dph_total: 0.35,
        geolocation: 'Amsterdam, NL',
        allocated_storage: 10,
      })) as { offer: { id: number } };
      assert.deepEqual(await vscode.commands.executeCommand('gpuRental.checkWatchedSearches'), { searched: 1, told: 1 });
      assert.deepEqual(notices.seen, [`GPU Rental: "${NAME}": RTX 4090 ×2 at $0.350/h in NL`]);
      assert.ok(x.test.stored('watchSeen')[NAME.toLowerCase()]?.ids.includes(offer.id));

      assert.deepEqual(await vscode.commands.executeCommand('gpuRental.checkWatchedSearches'), { searched: 1, told: 0 });
      assert.equal(notices.seen.length, 1, 'told once');
      assert.ok(notes.seen.some((n) => n.message === 'GPU Rental: checked 1 watched search: no new offers.'));

      await vscode.commands.executeCommand('gpuRental.stopWatchingSearch', NAME);
      assert.equal(x.test.stored('savedSearches').find((s) => s.name === NAME)?.watch, undefined);
      assert.ok(
        x.test.stored('savedSearches').some((s) => s.name === NAME),
        'the search stays saved',
      );
    } finally {
      notes.dispose();
      notices.dispose();
    }
  });

  it('stops a watch whose profile was removed, and says so once with Watch Again', async () => {
    const x = await signIn();
    const since = Date.now();
    await x.test.store('savedSearches', [
      {
        name: NAME,
        query: 'gpu_name=RTX_4090',
        sort: 'price',
        watch: { ceilingPerHour: 1, baseUrl: x.test.session().baseUrl, profileId: 'gone', since },
      },
    ]);
    const notes = recordNotifications();
    const notices = x.test.recordWatchNotices();
    try {
      await vscode.commands.executeCommand('gpuRental.checkWatchedSearches');
      assert.deepEqual(notices.seen.length, 1);
      assert.match(notices.seen[0]!, new RegExp(`^GPU Rental: stopped watching "${NAME}": the profile it searched with was removed`));
      assert.equal(x.test.stored('savedSearches')[0]?.watch, undefined);
      await vscode.commands.executeCommand('gpuRental.checkWatchedSearches');
      assert.equal(notices.seen.length, 1, 'said once');
      assert.ok(notes.seen.some((n) => n.message.startsWith('GPU Rental: no search is watched.')));
    } finally {
      notes.dispose();
      notices.dispose();
    }
  });
});
