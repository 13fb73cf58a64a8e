import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { OfferItem, OffersViewItem } from '../../src/ui/views/offersView';
import { signIn } from './support';

/** The offers among the view's rows (not the header, load more or relax rows). */
const offersIn = (rows: readonly OffersViewItem[]) => rows.filter((r): r is OfferItem => 'offer' in r).map((r) => r.offer);

describe('offers: search, sort, relax, load more', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'value');
  });

  it('filters with a query in the CLI language', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'gpu_name=RTX_4090 num_gpus>=2');
    const rows = await x.test.offerItems();
    const offers = offersIn(rows);
    assert.ok(offers.length > 0);
    for (const o of offers) {
      assert.equal(o.gpu_name, 'RTX 4090');
      assert.ok(o.num_gpus >= 2);
    }
    const header = rows[0]!;
    assert.match(String(header.description), /gpu_name=RTX_4090 num_gpus>=2/);
  });

  it('says a row of an interruptible search is priced at its minimum bid', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'type=bid num_gpus>=1');
    const rows = (await x.test.offerItems()).filter((r) => 'offer' in r);
    assert.ok(rows.length > 0);
    for (const r of rows) assert.match(String(r.description), /^bid from \$\d+\.\d+\/h · /);
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'num_gpus>=1');
    const onDemand = (await x.test.offerItems()).filter((r) => 'offer' in r);
    for (const r of onDemand) assert.match(String(r.description), /^\$\d+\.\d+\/h · /);
  });

  it('sorts by price and by performance per dollar', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'price');
    const prices = offersIn(await x.test.offerItems()).map((o) => o.dph_total);
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => a - b),
    );
    await vscode.commands.executeCommand('gpuRental.sortOffers', 'value');
    const value = offersIn(await x.test.offerItems()).map((o) => o.dlperf_per_dphtotal ?? 0);
    assert.deepEqual(
      value,
      [...value].sort((a, b) => b - a),
    );
  });

  it('with no results, names the filter to relax and relaxes it in one click', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'gpu_name=RTX_4090 dph_total<0.01');
    const rows = await x.test.offerItems();
    assert.equal(offersIn(rows).length, 0);
    const relax = rows.find((r) => String(r.label) === 'Remove dph_total<0.01');
    assert.ok(relax?.command, `a relax row: ${rows.map((r) => r.label).join(', ')}`);
    await vscode.commands.executeCommand(relax.command.command, ...(relax.command.arguments ?? []));
    assert.ok(offersIn(await x.test.offerItems()).length > 0);
    assert.equal(x.test.stored('offerSearch').query, 'gpu_name=RTX_4090');
  });

  it('refuses a query that does not read, saying where', async () => {
    const x = await signIn();
    const header = async () => String((await x.test.offerItems())[0]?.description);
    const before = await header();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'num_gpus>>2');
    assert.equal(x.test.stored('offerSearch').query, '', 'the search is unchanged');
    assert.equal(await header(), before, 'the view shows the same search');
  });

  it('pages large results with load more instead of fetching everything', async () => {
    const x = await signIn();
    const rows = await x.test.offerItems();
    assert.equal(offersIn(rows).length, 50);
    assert.ok(rows.some((r) => String(r.label).startsWith('Load more')));
    await vscode.commands.executeCommand('gpuRental.loadMoreOffers');
    assert.equal(offersIn(await x.test.offerItems()).length, 100);
  });
});
