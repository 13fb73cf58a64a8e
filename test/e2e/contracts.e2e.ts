import * as assert from 'node:assert/strict';
import { expect } from './expect';
import { control, workbenchForSuite, type Workbench } from './workbench';

/** Every price increase the simulator made, with what each answer's request carried. */
interface IncreaseLog {
  pending_price_increase_id: number;
  contract_id: number;
  status: string;
  answer_body?: unknown;
}

async function increases(wb: Workbench): Promise<IncreaseLog[]> {
  return ((await control(wb, 'GET', 'price-increases')) as { price_increases: IncreaseLog[] }).price_increases;
}

describe("contracts: a host's price increase answered from the row, and a reservation", function () {
  this.timeout(300_000);
  const workbench = workbenchForSuite({ bootSeconds: 3 });
  let id = 0;

  it('a price increase caused in the simulator shows on the row and in its tooltip, and a notice offers the answers', async () => {
    const wb = workbench();
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rent for \$\d/);
    await expect(wb.rows('Instances', /running/), 60_000).toBeVisible();
    id = ((await control(wb, 'GET', 'state')) as { instances: Array<{ id: number }> }).instances[0]!.id;
    await control(wb, 'POST', `instances/${id}/price-increase`, {});
    // Refresh lists the increases at once (the poll does so once a minute).
    await wb.runCommand('GPU Rental: Refresh');
    await expect(wb.rows('Instances', /price rises to \$\d+\.\d+\/h from \d{4}-\d\d-\d\d/), 30_000).toBeVisible();
    await wb.hoverUntil(/price rises/, /Price increase\s*\$\d+\.\d+\/h → \$\d+\.\d+\/h/);
    await expect(wb.page.locator('.monaco-hover').getByText(/New price from/)).toBeVisible();
    await wb.shot('e2e-price-increase', true);
    await wb.page.mouse.move(700, 300);
    const notice = await wb.notificationInCenter(/asks \$\d+\.\d+\/h instead of \$\d+\.\d+\/h from/);
    await expect(notice).toBeVisible();
    await expect(notice.getByRole('button', { name: 'Accept…' })).toBeVisible();
    await expect(notice.getByRole('button', { name: 'Rent Like This Elsewhere…' })).toBeVisible();
    await wb.page.keyboard.press('Escape');
  });

  it('Reject from the row, confirmed with the numbers, sends exactly the id; the row then shows none pending', async () => {
    const wb = workbench();
    await wb.contextMenu(wb.rows('Instances', /price rises/).first(), 'Reject Price Increase…');
    const dialog = wb.dialog();
    await expect(dialog.getByText(/Reject the higher price for .* \(\$\d+\.\d+\/h → \$\d+\.\d+\/h\)\?/)).toBeVisible();
    await expect(dialog.getByText(/Nothing changes on the contract: it still ends on/)).toBeVisible();
    await dialog.getByRole('button', { name: 'Reject Increase' }).click();
    await expect(await wb.notificationInCenter(/rejected\. .* keeps its price; its contract still ends on/), 30_000).toBeVisible();
    await wb.page.keyboard.press('Escape');
    await expect(wb.rows('Instances', /price rises/), 30_000).toBeHidden();
    const [rejected] = await increases(wb);
    assert.equal(rejected!.status, 'rejected');
    assert.deepEqual(rejected!.answer_body, { pending_price_increase_id: rejected!.pending_price_increase_id });
  });

  it("Accept from the notice's button sends exactly the id; a second answer reads nothing pending any more", async () => {
    const wb = workbench();
    await control(wb, 'POST', `instances/${id}/price-increase`, { gpu_costpersec: 0.0002 });
    await wb.runCommand('GPU Rental: Refresh');
    const notice = await wb.notificationInCenter(/asks \$\d+\.\d+\/h instead of/);
    await expect(notice.last(), 30_000).toBeVisible();
    await notice.last().getByRole('button', { name: 'Accept…' }).click();
    const dialog = wb.dialog();
    await expect(dialog.getByText(/Accept the higher price for/)).toBeVisible();
    await expect(dialog.getByText(/the instance bills at the new price/)).toBeVisible();
    await dialog.getByRole('button', { name: 'Accept Increase' }).click();
    await expect(await wb.notificationInCenter(/accepted\. .* bills \$\d+\.\d+\/h from/), 30_000).toBeVisible();
    await wb.page.keyboard.press('Escape');
    await expect(wb.rows('Instances', /price rises/), 30_000).toBeHidden();
    const accepted = (await increases(wb)).find((r) => r.status === 'accepted');
    assert.ok(accepted, 'the simulator recorded an accepted increase');
    assert.deepEqual(accepted.answer_body, { pending_price_increase_id: accepted.pending_price_increase_id });
    // Answered already: the palette's Accept finds nothing pending any more.
    await wb.runCommand('GPU Rental: Accept Price Increase…');
    await expect(await wb.notificationInCenter(/no host asks a higher price on your instances/), 30_000).toBeVisible();
    await wb.page.keyboard.press('Escape');
  });

  it('Reserve on the running instance shows months and discount before confirming; the tooltip then shows the deposit', async () => {
    const wb = workbench();
    await wb.contextMenu(wb.rows('Instances', /running/).first(), 'Reserve (Prepay for a Discount)…');
    await expect(wb.quickInput().getByText(/one month is about \$\d+\.\d+, three about/)).toBeVisible();
    const input = wb.quickInput().locator('input').first();
    await input.fill('25');
    await wb.page.keyboard.press('Enter');
    const dialog = wb.dialog();
    await expect(dialog.getByText(/\$25\.00 covers about [\d.]+ (months?|days?|hours?) at \$\d+\.\d+\/h/)).toBeVisible();
    await expect(dialog.getByText(/locked to this host/)).toBeVisible();
    await wb.shot('e2e-reserve-confirm', true);
    await dialog.getByRole('button', { name: 'Prepay $25.00' }).click();
    await expect(
      await wb.notificationInCenter(/\$25\.00 prepaid on .* It covers [\d.]+ (months?|days?|hours?)\. Discount: [\d.]+ %\./),
      30_000,
    ).toBeVisible();
    await wb.page.keyboard.press('Escape');
    await wb.hoverUntil(/running/, /Reserved:\s*\$25\.00 deposited/);
  });
});
