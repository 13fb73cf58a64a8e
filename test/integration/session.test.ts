import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, eventually, extensionLog, signIn, signOut, sim } from './support';

describe('set API key, sign out', () => {
  it('refuses a wrong key with a clear state, and does not store it', async () => {
    const x = await signOut();
    assert.equal(x.test.session().state, 'noKey');
    const accepted = await vscode.commands.executeCommand('gpuRental.setApiKey', 'not-a-real-key-7731');
    assert.equal(accepted, false);
    assert.equal(x.test.session().hasKey, false);
    assert.equal(x.test.session().state, 'noKey');
  });

  it('checks a good key, stores it and shows the account', async () => {
    const x = await signOut();
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', sim.key), true);
    const session = x.test.session();
    assert.ok(session.state === 'ready' && session.user, 'signed in with account details');
    assert.ok((session.user.credit ?? 0) > 0);
    const { account } = x.test.statusBar();
    assert.match(account.text, /^\$\(account\) \$\d+\.\d\d$/);
    assert.match(account.tooltip, /Credit: \*\*\$\d/);
    const offers = await x.test.offerItems();
    assert.ok(offers.length > 0, 'offers are listed once signed in');
    assert.match(String(offers[0]!.label), /\S/);
  });

  it('signs out: the key is removed and the views empty', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.signOut');
    assert.equal(x.test.session().hasKey, false);
    assert.equal(x.test.session().state, 'noKey');
    assert.deepEqual(await x.test.offerItems(), []);
    assert.deepEqual(await x.test.instanceItems(), []);
    assert.match(x.test.statusBar().account.text, /\$\(key\)/);
  });

  it('never writes a key, good or bad, to the log', async () => {
    const x = await signOut();
    const scoped = (await api('POST', '/api/v0/auth/apikeys/', sim.key, {
      name: 'log check',
      permissions: { api: { user_read: {} } },
    })) as { key: string };
    await vscode.commands.executeCommand('gpuRental.setApiKey', 'wrong-key-that-must-not-be-logged');
    await vscode.commands.executeCommand('gpuRental.setApiKey', scoped.key);
    assert.equal(x.test.session().state, 'ready');
    const log = await eventually(async () => {
      const text = await extensionLog();
      return text.includes('Signed in to') && text.includes('was not stored') ? text : undefined;
    }, 'the sign-in lines in the log');
    for (const secret of [sim.key, scoped.key, 'wrong-key-that-must-not-be-logged']) {
      assert.ok(!log.includes(secret), 'a key appeared in the log');
    }
  });
});
