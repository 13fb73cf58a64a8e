import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, control, eventually, extensionApi, setApiUrl, signIn, signOut, sim } from './support';

// Welcome content shows when a view is empty; which one shows follows the gpuRental.state context
// key (package.json). These tests drive the session into each state and check that the views are
// empty and the state is the one the welcome content is keyed on.
describe('welcome states', () => {
  afterEach(async () => {
    await control('DELETE', 'faults');
    await setApiUrl(sim.url);
    await signIn();
  });

  it('no key yet: both views empty, state noKey', async () => {
    const x = await signOut();
    assert.equal(x.test.session().state, 'noKey');
    assert.deepEqual(await x.test.instanceItems(), []);
    assert.deepEqual(await x.test.offerItems(), []);
  });

  it('nothing to show: signed in, no instances', async () => {
    // A fresh account has no instances; the demo account may have some from other suites.
    const account = (await control('POST', 'accounts', { email: 'empty@example.com', credit: 10 })) as { key: string };
    const x = await signOut();
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', account.key), true);
    assert.equal(x.test.session().state, 'ready');
    assert.deepEqual(await x.test.instanceItems(), []);
    await signOut();
  });

  it('service unreachable: Retry recovers', async () => {
    const x = await signIn();
    await control('POST', 'faults', { kind: 'reset', path: '/api/v0/users/current', count: 1000 });
    await vscode.commands.executeCommand('gpuRental.refresh');
    assert.equal(x.test.session().state, 'unreachable');
    assert.deepEqual(await x.test.offerItems(), []);
    assert.match(x.test.statusBar().account.text, /\$\(warning\)/);
    await control('DELETE', 'faults');
    await vscode.commands.executeCommand('gpuRental.refresh');
    assert.equal(x.test.session().state, 'ready');
  });

  it('a revoked key shows as refused, not as an empty list', async () => {
    const created = (await api('POST', '/api/v0/auth/apikeys/', sim.key, {
      name: 'to revoke',
      permissions: { api: { user_read: {}, misc: {} } },
    })) as { id: number; key: string };
    const x = await signOut();
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created.key), true);
    await api('DELETE', `/api/v0/auth/apikeys/${created.id}/`, sim.key);
    await vscode.commands.executeCommand('gpuRental.refresh');
    assert.equal(x.test.session().state, 'rejected');
    assert.deepEqual(await x.test.offerItems(), []);
    await vscode.commands.executeCommand('gpuRental.signOut');
  });

  it('a base URL that would send the key in the clear is refused, and the change applies without a reload', async () => {
    const x = await extensionApi();
    await setApiUrl('http://example.com');
    assert.equal(x.test.session().state, 'badUrl');
    assert.deepEqual(await x.test.offerItems(), []);
    await setApiUrl(sim.url);
    await eventually(() => x.test.session().state === 'ready', 'the session to be ready again');
  });
});
