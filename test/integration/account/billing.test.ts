import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, control, eventually, signIn } from '../support';
import { rented, section } from './kit';

describe('account: billing', function () {
  this.timeout(60_000);
  beforeEach(signIn);

  it('shows charges and credits with totals in the Account view and as a readable report', async () => {
    // An account of its own: the view lists the five largest sources, which on the run's account
    // are whatever earlier suites left running longest.
    const account = (await control('POST', 'accounts', { email: 'billing@example.com', credit: 100 })) as { id: number; key: string };
    await control('POST', `accounts/${account.id}/credit`, { amount: 25 });
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', account.key), true);
    const id = await rented(account.key);
    await eventually(
      async () =>
        ((await api('GET', `/api/v0/instances/${id}/?owner=me`, account.key)) as { instances: { actual_status: string | null } }).instances
          .actual_status === 'running',
      'running',
      20_000,
    );
    await new Promise((r) => setTimeout(r, 1_500));
    const rows = await section('Billing');
    assert.match(String(rows[0]?.label), /^Charges, last 30 days: \$\d+\.\d+/);
    assert.ok(
      rows.some((r) => String(r.label).includes(`instance-${id}`)),
      'the instance has a line',
    );
    assert.match(String(rows.find((r) => String(r.label).startsWith('Credits'))?.label), /Credits and payments: \$[\d,]+\.\d\d/);

    const report = await vscode.commands.executeCommand<string>('gpuRental.showBilling');
    assert.match(report, /^# GPU Rental billing, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d/);
    assert.match(report, new RegExp(`\\| instance-${id} \\| \\d+ \\| \\$`));
    assert.match(report, /\| \*\*Total\*\* \| \d+ \| \*\*\$/);
    assert.equal(vscode.window.activeTextEditor?.document.languageId, 'markdown');
    assert.equal(vscode.window.activeTextEditor?.document.isUntitled, true, 'nothing written to disk');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await api('DELETE', `/api/v0/instances/${id}/`, account.key);
  });

  it('a key without billing_read sees why', async () => {
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-no-billing',
      categories: ['user_read'],
    });
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created!.key), true);
    const [note] = await section('Billing');
    assert.match(String(note?.label), /lacks 'billing_read'/);
  });
});
