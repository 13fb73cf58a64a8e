import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { OfferItem, OffersViewItem } from '../../src/ui/views/offersView';
import type { RentPlan } from '../../src/core/rent/plan';
import { eventually, recordQuickPicks, rentableOffers, signIn } from './support';

const offerRows = (rows: readonly OffersViewItem[]) => rows.filter((r): r is OfferItem => 'offer' in r);

/** A tooltip's text as shown: markdown escapes and the non-breaking spaces of plain text taken out. */
const tooltipText = (row: OfferItem) =>
  (row.tooltip instanceof vscode.MarkdownString ? row.tooltip.value : String(row.tooltip)).replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');

const LINE = /Price: (?:(\d+)% (under|over)|at) the 7-day median for RTX 4090 \(\$(\d+\.\d+)\/GPU\/h\)$/;

describe('price context: the offer tooltip', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
  });

  it("adds each offer's price against its GPU's 7-day median once the metrics come in", async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.searchOffers', 'gpu_name=RTX_4090');
    const rows = offerRows(await x.test.offerItems());
    assert.ok(rows.length > 0, 'RTX 4090 offers are listed');
    await eventually(() => rows.every((r) => LINE.test(tooltipText(r))), 'every RTX 4090 tooltip to carry the price line').catch(
      (error: unknown) => assert.fail(`${String(error)}; the first tooltip ends: ${tooltipText(rows[0]!).slice(-160)}`),
    );
    for (const row of rows) {
      const [, percent, relation, median] = LINE.exec(tooltipText(row))!;
      const perGpu = row.offer.dph_total / row.offer.num_gpus;
      // The median is shown rounded to a tenth of a cent: compare within that.
      const ratio = perGpu / Number(median) - 1;
      if (relation === undefined) assert.ok(Math.abs(ratio) < 0.03, `at the median: ${perGpu} against ${median}`);
      else {
        assert.equal(relation, ratio < 0 ? 'under' : 'over', `${perGpu} against ${median}`);
        assert.ok(Math.abs(Math.abs(ratio) * 100 - Number(percent)) < 1.5, `${percent}% for ${perGpu} against ${median}`);
      }
      assert.match(tooltipText(row), /\| Offer \| \d+ \|/, 'the rest of the tooltip is still there');
    }
  });
});

describe('price context: the rent confirmation', () => {
  afterEach(async () => {
    (await signIn()).test.restoreDefaults();
  });

  it('tells an automation rent how its price per GPU compares with the going rate (declined: nothing rented)', async () => {
    const x = await signIn();
    const asked: string[] = [];
    x.test.answerPrompts({ confirm: async (_message, detail) => (asked.push(detail), false) });
    const [offer] = await rentableOffers({ gpu_name: { eq: 'RTX 4090' } }, 1);
    const plan = { image: 'ubuntu:22.04', disk: 10, label: 'price-context', idleStopMinutes: 0 } satisfies RentPlan;
    assert.equal(await vscode.commands.executeCommand('gpuRental.rentOffer', offer!.id, plan), undefined);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /Price per GPU: (\d+% (under|over)|at) the 7-day median for RTX 4090 \(\$\d+\.\d+\/GPU\/h\)\./);
  });

  it("shows the comparison as a row of the wizard's confirmation step", async () => {
    await signIn();
    const [offer] = await rentableOffers({ gpu_name: { eq: 'RTX 4090' } }, 1);
    const { picks, restore } = recordQuickPicks();
    try {
      const renting = vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id);
      // Accept what each step proposes up to the confirmation, then cancel there.
      const confirmation = await eventually(async () => {
        const shown = picks.find((p) => p.step === 6);
        if (shown) return shown;
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        // Paced, so the next look sees the step the accept led to before anything is accepted there.
        await new Promise((resolve) => setTimeout(resolve, 200));
        return undefined;
      }, 'the confirmation step');
      const row = await eventually(() => confirmation.items.find((i) => / the 7-day median$/.test(i.label)), 'the price row');
      assert.match(row.description ?? '', /^per GPU; the median for RTX 4090 is \$\d+\.\d+\/GPU\/h$/);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      assert.equal(await renting, undefined, 'cancelled: nothing rented');
    } finally {
      restore();
    }
  });
});
