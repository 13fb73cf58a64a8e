import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { control, eventually, signIn } from './support';

/** The Offer Explorer in a real window: its webview loads and says ready; the query stays in sync with the Offers view both ways. */
describe('offer explorer', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
  });

  it('opens one panel whose webview says ready, and lists more offers than the view pages', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
    await vscode.commands.executeCommand('gpuRental.openOfferExplorer');
    await eventually(
      () => x.test.explorer().readyCount > 0 && x.test.explorer().query === '',
      'the webview said ready and got offers',
      30_000,
    );
    const first = x.test.explorer();
    assert.ok(first.open);
    assert.ok(first.shown.length > 50, `more than the view's 50: ${first.shown.length}`);
    // The webview measured its first render of them and said so.
    await eventually(() => x.test.explorer().timings.render?.rows === first.shown.length, 'a render timing for the offers shown');
    // Opening again reveals the same panel rather than a second one.
    await vscode.commands.executeCommand('gpuRental.openOfferExplorer');
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label === 'Offer Explorer');
    assert.equal(tabs.length, 1);
  });

  it('sends a filter changed in the explorer to the Offers view, and follows a search changed in the view', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.openOfferExplorer');
    await eventually(() => x.test.explorer().readyCount > 0, 'the webview said ready', 30_000);

    await x.test.sendToExplorer({ type: 'setQuery', query: 'num_gpus>=2' });
    assert.equal(x.test.stored('offerSearch').query, 'num_gpus>=2');
    await eventually(() => x.test.explorer().query === 'num_gpus>=2', 'the explorer reloaded with the new query');
    assert.ok(x.test.explorer().shown.length > 0);
    assert.ok(x.test.explorer().shown.every((o) => o.num_gpus >= 2));
    const viewRows = await x.test.offerItems();
    assert.match(String(viewRows[0]?.description), /num_gpus>=2/);

    await vscode.commands.executeCommand('gpuRental.searchOffers', 'gpu_name=RTX_4090');
    await eventually(() => x.test.explorer().query === 'gpu_name=RTX_4090', 'the explorer followed the view');
    assert.ok(x.test.explorer().shown.every((o) => o.gpu_name === 'RTX 4090'));
  });

  it("copies only the offer id, and filters by a machine's other offers", async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.openOfferExplorer');
    await eventually(() => x.test.explorer().shown.length > 0, 'offers in the explorer', 30_000);
    const offer = x.test.explorer().shown[0]!;
    await x.test.sendToExplorer({ type: 'copyId', offerId: offer.id });
    assert.equal(await vscode.env.clipboard.readText(), String(offer.id));
    // A message that is not one of the protocol's is refused and changes nothing.
    await x.test.sendToExplorer({ type: 'copyId', offerId: `${offer.id}; rm -rf ~` });
    assert.equal(await vscode.env.clipboard.readText(), String(offer.id));

    assert.ok(typeof offer.machine_id === 'number');
    await x.test.sendToExplorer({ type: 'machineOffers', machineId: offer.machine_id });
    await eventually(() => x.test.explorer().query === `machine_id=${offer.machine_id}`, 'the explorer filtered by the machine');
    assert.ok(x.test.explorer().shown.every((o) => o.machine_id === offer.machine_id));
  });

  it('shows a search the service answers with garbage as failed, keeping the query, and recovers', async function () {
    // Retries of the read and the Offers view's own search share the simulator with this test.
    this.timeout(60_000);
    const x = await signIn();
    const opened = x.test.explorer().readyCount;
    await vscode.commands.executeCommand('gpuRental.openOfferExplorer');
    await eventually(() => x.test.explorer().readyCount > opened, 'the new webview said ready', 30_000);
    await control('POST', 'faults', { kind: 'malformed', path: '/api/v0/bundles', count: 0 });
    try {
      await x.test.sendToExplorer({ type: 'setQuery', query: 'num_gpus>=4' });
      await eventually(() => x.test.explorer().error, 'the explorer says the search failed', 30_000);
      assert.match(x.test.explorer().error!, /^GPU Rental: the search failed: .+ Change the query or try again\.$/);
      assert.equal(x.test.stored('offerSearch').query, 'num_gpus>=4');
    } finally {
      await control('DELETE', 'faults');
    }
    await x.test.sendToExplorer({ type: 'setQuery', query: 'num_gpus>=4' });
    await eventually(
      () => x.test.explorer().query === 'num_gpus>=4' && !x.test.explorer().error,
      'the same query found offers again',
      30_000,
    );
    assert.ok(x.test.explorer().shown.every((o) => o.num_gpus >= 4));
  });

  it('remembers the column layout the webview sends, in global state', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.openOfferExplorer');
    await eventually(() => x.test.explorer().readyCount > 0, 'the webview said ready', 30_000);
    const columns = { visible: ['gpu', 'price', 'dlperfPerDollar'], widths: { price: 90 } };
    await x.test.sendToExplorer({ type: 'layout', layout: columns });
    assert.deepEqual(x.test.stored('explorerColumns'), columns);
  });
});
