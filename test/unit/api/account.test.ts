import assert from 'node:assert/strict';
import { isApiError } from '../../../src/core/api/errors';
import { permissionsFor } from '../../../src/core/api/permissions';
import { clientFor, DEMO_KEY, PUBLIC_KEY, startSimulator, type Marketplace } from '../../support';

describe('client: account, API keys and SSH keys (simulator)', () => {
  let sim: Marketplace;
  beforeEach(async () => {
    sim = await startSimulator();
  });
  afterEach(async () => {
    await sim.stop();
  });

  it('reads the current user, with credit and without the key', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const user = await client.account.currentUser();
    assert.ok(Number.isInteger(user.id));
    assert.ok((user.credit ?? 0) > 0);
    assert.equal(typeof user.email, 'string');
    assert.ok(!JSON.stringify(user).includes(DEMO_KEY));
  });

  it('creates a scoped key that can do what it was given and nothing else', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const created = await client.apiKeys.create({ name: 'read-only', permissions: permissionsFor(['user_read', 'instance_read']) });
    assert.ok(created.key.length > 10);
    const scoped = clientFor(sim.url, created.key).client;
    assert.equal((await scoped.account.currentUser()).id, (await client.account.currentUser()).id);
    await assert.rejects(
      scoped.offers.search({ query: { filters: {}, order: [], type: 'on-demand' }, limit: 1 }),
      (e) => isApiError(e, 'forbidden') && e.permission === 'misc',
    );
  });

  it('lists keys with their names and scopes, never their secrets', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const created = await client.apiKeys.create({ name: 'ci', permissions: permissionsFor(['misc']) });
    const keys = await client.apiKeys.list();
    const row = keys.find((k) => k.id === created.id);
    assert.ok(row, 'the new key is listed');
    assert.equal(row.name, 'ci');
    assert.deepEqual(Object.keys(row.rights?.api ?? {}), ['misc']);
    assert.ok(!JSON.stringify(keys).includes(created.key));
    const full = keys.find((k) => k.id !== created.id);
    assert.equal(full?.rights, null, 'the demo key is full-access');
  });

  it('revokes a key, after which it is rejected as auth', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const created = await client.apiKeys.create({ name: 'temp', permissions: permissionsFor(['user_read']) });
    await client.apiKeys.delete(created.id);
    assert.ok(!(await client.apiKeys.list()).some((k) => k.id === created.id));
    await assert.rejects(clientFor(sim.url, created.key).client.account.currentUser(), (e) => isApiError(e, 'auth') && e.status === 401);
  });

  it('reports deleting a key that does not exist as not found', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    await assert.rejects(client.apiKeys.delete(987654), (e) => isApiError(e, 'not_found'));
  });

  it('adds, lists and deletes account SSH keys', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const key = await client.sshKeys.create(PUBLIC_KEY);
    assert.equal(key.public_key, PUBLIC_KEY);
    assert.ok((await client.sshKeys.list()).some((k) => k.id === key.id && k.public_key === PUBLIC_KEY));
    await client.sshKeys.delete(key.id);
    assert.ok(!(await client.sshKeys.list()).some((k) => k.id === key.id));
  });

  it('refuses text that is not a public key', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    await assert.rejects(client.sshKeys.create('-----BEGIN OPENSSH PRIVATE KEY-----'), (e) => isApiError(e, 'bad_request'));
  });

  it('attaches, lists and detaches instance SSH keys', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    assert.ok(offer);
    const { instanceId } = await client.instances.create(offer.id, { image: 'pytorch/pytorch:latest', disk: 10 });
    assert.deepEqual(await client.sshKeys.listForInstance(instanceId), []);
    await client.sshKeys.attach(instanceId, PUBLIC_KEY);
    const keys = await client.sshKeys.listForInstance(instanceId);
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.public_key, PUBLIC_KEY);
    await client.sshKeys.detach(instanceId, keys[0]!.id);
    assert.deepEqual(await client.sshKeys.listForInstance(instanceId), []);
  });

  it('gives a new instance the account keys that existed when it was created', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    await client.sshKeys.create(PUBLIC_KEY);
    const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 10 });
    const keys = await client.sshKeys.listForInstance(instanceId);
    assert.deepEqual(
      keys.map((k) => k.public_key),
      [PUBLIC_KEY],
    );
  });
});
