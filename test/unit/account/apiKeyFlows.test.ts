import assert from 'node:assert/strict';
import type { ApiKey } from '../../../src/core/api/account';
import { createApiKey, deleteApiKey, type ApiKeyFlowDeps } from '../../../src/core/account/apiKeyFlows';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const FULL = { id: 1, name: 'laptop', rights: null } as ApiKey;
const READER = { id: 2, name: 'ci', rights: { api: { instance_read: {} } } } as ApiKey;

/** The account's API keys in memory, the requests that reached them, and what was kept and logged. */
function keys(answers: Answer[], o: { categories?: string[]; inUse?: number } = {}) {
  const sent: string[] = [];
  const kept: string[] = [];
  const logged: string[] = [];
  const ask = scriptedAsk(answers);
  const d: ApiKeyFlowDeps = {
    ask,
    apiKeys: {
      list: () => Promise.resolve([FULL, READER]),
      create: (r) => (sent.push(`create ${r.name} ${JSON.stringify(r.permissions)}`), Promise.resolve({ id: 9, key: 'SECRET-9' })),
      delete: (id) => (sent.push(`delete ${id}`), Promise.resolve()),
    },
    pickCategories: () => Promise.resolve(o.categories),
    remember: (secret, id) => (kept.push(`${secret} ${id}`), Promise.resolve()),
    inUseId: () => o.inUse,
    logger: { info: (line: string) => void logged.push(line) },
  };
  return { d, ask, sent, kept, logged };
}

describe('API key flows', () => {
  it('creates a read-only key with its suggested name, shows the secret once, and never logs it', async () => {
    const { d, ask, sent, kept, logged } = keys([{ input: 'vscode-read-only' }, { choose: 'Copy Key' }], {
      categories: ['user_read', 'misc'],
    });
    const outcome = await createApiKey(d);
    assert.deepEqual(outcome.value, { id: 9, key: 'SECRET-9', then: 'copy' });
    assert.equal(ask.asked[0]?.detail, 'GPU Rental: New API Key (3/3): name', 'no instance question without instance categories');
    assert.equal(ask.asked[1]?.text, 'GPU Rental: API key "vscode-read-only" was created. Copy it now: it will not be shown again.');
    assert.equal(ask.asked[1]?.detail, 'SECRET-9');
    assert.deepEqual(sent, ['create vscode-read-only {"api":{"user_read":{},"misc":{}}}']);
    assert.deepEqual(kept, ['SECRET-9 9']);
    assert.ok(!logged.join('\n').includes('SECRET'), 'the secret is not logged');
  });

  it('asks whether to hold instance permissions to one instance, and refuses an id that is not one', async () => {
    const { d, sent } = keys([{ input: '42' }, { input: 'held' }, { choose: undefined }], { categories: ['instance_write'] });
    assert.equal((await createApiKey(d)).value?.then, undefined);
    assert.match(sent[0]!, /"api.instance.destroy":\{"constraints":\{"id":\{"eq":42\}\}\}/);
    await assert.rejects(createApiKey(keys([{ input: 'abc' }], { categories: ['instance_read'] }).d), /the input box refuses "abc"/);
  });

  it('creates nothing when the categories are dismissed, and refuses a spec with no known category', async () => {
    const { d, sent } = keys([], { categories: undefined });
    assert.deepEqual(await createApiKey(d), { value: undefined });
    await assert.rejects(createApiKey(d, { name: 'x', categories: ['nope'] }), /Pick at least one permission category/);
    assert.deepEqual(sent, []);
  });

  it('refuses, before asking, to delete the key GPU Rental is signed in with', async () => {
    const { d, ask, sent } = keys([], { inUse: 2 });
    const outcome = await deleteApiKey(d, 2);
    assert.equal(outcome.value, false);
    assert.equal(outcome.notice?.severity, 'error');
    assert.match(outcome.notice?.text ?? '', /^GPU Rental: "ci" is the key GPU Rental is signed in with/);
    assert.deepEqual([ask.asked, sent], [[], []]);
  });

  it('deletes a picked key after a confirmation that warns a full-access key may be the one in use', async () => {
    const { d, ask, sent } = keys([{ pick: 'laptop' }, { confirm: true }, { confirm: false }]);
    const outcome = await deleteApiKey(d);
    assert.equal(outcome.notice?.text, 'GPU Rental: deleted API key "laptop".');
    assert.match(ask.asked[1]?.detail ?? '', /If it is the key GPU Rental is signed in with, GPU Rental will be signed out\.$/);
    assert.equal((await deleteApiKey(d, READER)).value, false, 'declined');
    assert.equal(ask.asked[2]?.detail, 'Anything using it (read-only: instance_read) stops working at once. This cannot be undone.');
    assert.deepEqual(sent, ['delete 1']);
  });
});
