import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { signIn } from './support';

describe('offers: search, sort, relax, load more', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'value');
  });

  it('filters with a query in the CLI language', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'gpu_name=RTX_4090 num_gpus>=2');
    await x.services.offersView.getChildren();
    const offers = x.services.offersView.offers;
    assert.ok(offers.length > 0);
    for (const o of offers) {
      assert.equal(o.gpu_name, 'RTX 4090');
      assert.ok(o.num_gpus >= 2);
    }
    const header = x.services.offersView.current[0]!;
    assert.match(String(header.description), /gpu_name=RTX_4090 num_gpus>=2/);
  });

  it('sorts by price and by performance per dollar', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'price');
    await x.services.offersView.getChildren();
    const prices = x.services.offersView.offers.map((o) => o.dph_total);
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => a - b),
    );
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'value');
    await x.services.offersView.getChildren();
    const value = x.services.offersView.offers.map((o) => o.dlperf_per_dphtotal ?? 0);
    assert.deepEqual(
      value,
      [...value].sort((a, b) => b - a),
    );
  });

  it('with no results, names the filter to relax and relaxes it in one click', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'gpu_name=RTX_4090 dph_total<0.01');
    const rows = await x.services.offersView.getChildren();
    assert.equal(x.services.offersView.offers.length, 0);
    const relax = rows.find((r) => String(r.label) === 'Remove dph_total<0.01');
    assert.ok(relax?.command, `a relax row: ${rows.map((r) => r.label).join(', ')}`);
    await vscode.commands.executeCommand(relax.command.command, ...(relax.command.arguments ?? []));
    await x.services.offersView.getChildren();
    assert.ok(x.services.offersView.offers.length > 0);
    assert.equal(x.services.offersView.search.query, 'gpu_name=RTX_4090');
  });

  it('refuses a query that does not read, saying where', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'num_gpus>>2');
    assert.equal(x.services.offersView.search.query, '', 'the search is unchanged');
  });

  it('pages large results with load more instead of fetching everything', async () => {
    const x = await signIn();
    await x.services.offersView.getChildren();
    const first = x.services.offersView.offers.length;
    assert.equal(first, 50);
    assert.ok(x.services.offersView.current.some((r) => String(r.label).startsWith('Load more')));
    await vscode.commands.executeCommand('gpuRental.loadMoreOffers');
    await x.services.offersView.getChildren();
    assert.equal(x.services.offersView.offers.length, 100);
  });
});
