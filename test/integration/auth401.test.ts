import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { control, eventually, extensionApi, extensionLog, signIn } from './support';

/** The id of the account signed in now (the run's simulator account). */
async function accountId(): Promise<number> {
  const session = (await extensionApi()).test.session();
  assert.ok(session.state === 'ready' && session.user, `signed in with an account, got ${session.state}`);
  return session.user.id;
}

/** The log lines, from now on, that match `pattern`. */
async function logLine(pattern: RegExp, what: string): Promise<string> {
  return eventually(async () => (await extensionLog()).split('\n').find((l) => pattern.test(l)), what);
}

describe('401 refusals that are not a bad key, and a record without credit', function () {
  this.timeout(60_000);
  let id: number;
  before(async () => {
    await signIn();
    id = await accountId();
  });
  afterEach(async () => {
    await control('POST', `accounts/${id}/quirks`, { two_factor: false, withhold: [] });
  });

  it('Show Billing Report with a key lacking billing_read is refused naming it, and the window stays signed in', async () => {
    const x = await extensionApi();
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-401-no-billing',
      categories: ['user_read', 'instance_read', 'misc'],
    });
    assert.ok(created?.key);
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created.key), true);
    assert.match(x.test.statusBar().account.text, /^\$\(account\) \$[\d,]+\.\d\d/, 'the status bar shows the account');
    const states = x.test.recordSessionStates();
    try {
      assert.equal(await vscode.commands.executeCommand('gpuRental.showBilling'), undefined, 'refused');
      const line = await logLine(
        /forbidden: GET \/api\/v\S+ 401: Could not read (charges|invoices): this API key lacks the "billing_read" permission/,
        'the refusal in the log',
      );
      assert.ok(!line.includes(created.key), 'no key in the log');
    } finally {
      states.dispose();
    }
    assert.equal(x.test.session().state, 'ready');
    assert.ok(!states.seen.includes('rejected'), `never rejected: ${states.seen.join(', ')}`);
    assert.match(x.test.statusBar().account.text, /^\$\(account\) \$[\d,]+\.\d\d/, 'the status bar still shows the account');
    assert.doesNotMatch(x.test.statusBar().account.tooltip, /refused the API key/);
  });

  it('a two-factor refusal says so and what to do, and the window stays signed in', async () => {
    const x = await signIn();
    await control('POST', `accounts/${id}/quirks`, { two_factor: true });
    const states = x.test.recordSessionStates();
    try {
      assert.equal(
        await vscode.commands.executeCommand('gpuRental.createApiKey', { name: 'it-401-tfa', categories: ['misc'] }),
        undefined,
        'refused',
      );
      const line = await logLine(
        /forbidden: POST \/api\/v0\/auth\/apikeys\/ 401: Could not create an API key: the service allows this only after a login with two-factor authentication/,
        'the two-factor refusal in the log',
      );
      assert.match(line, /web console/);
      assert.match(line, /still signed in/);
    } finally {
      states.dispose();
    }
    assert.equal(x.test.session().state, 'ready');
    assert.ok(!states.seen.includes('rejected'), `never rejected: ${states.seen.join(', ')}`);
  });

  it('an account record without credit keeps the key usable and shows the credit as unknown', async () => {
    const x = await signIn();
    await control('POST', `accounts/${id}/quirks`, { withhold: ['credit', 'balance'] });
    await vscode.commands.executeCommand('gpuRental.refresh');
    await eventually(() => /credit unknown/.test(x.test.statusBar().account.text), 'the status bar to say the credit is unknown');
    assert.equal(x.test.session().state, 'ready');
    assert.match(x.test.statusBar().account.tooltip, /Credit: \*\*unknown\*\*/);
    await control('POST', `accounts/${id}/quirks`, { withhold: ['credit'] });
    await vscode.commands.executeCommand('gpuRental.refresh');
    await eventually(() => /Balance: \*\*/.test(x.test.statusBar().account.tooltip), 'the tooltip to show the balance the service sent');
  });
});
