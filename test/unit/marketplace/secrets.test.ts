import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_SECRETS, MAX_SECRET_VALUE } from '../../marketplace/routes/secrets';
import { call, DEMO_KEY, obj, rentOne, simulatorForSuite, startSimulator, tempDirForSuite } from '../../support';

const PATH = '/api/v0/secrets/';

describe('marketplace: environment variables (/api/v0/secrets/)', () => {
  const sim = simulatorForSuite({}, { each: true });

  const list = async (key = DEMO_KEY) => {
    const res = await call(sim, 'GET', PATH, undefined, key);
    assert.equal(res.status, 200, res.text);
    const body = obj(res);
    assert.equal(body.success, true);
    return body.secrets as Record<string, string>;
  };
  const scoped = async (api: Record<string, unknown>) => {
    const res = await call(sim, 'POST', '/api/v0/auth/apikeys/', { name: 'scoped', permissions: { api } });
    assert.equal(res.status, 200, res.text);
    return obj(res).key as string;
  };

  it('creates, lists with values in clear, updates and deletes, upper-casing the name', async () => {
    assert.deepEqual(await list(), {});
    const created = await call(sim, 'POST', PATH, { key: 'hf_token', value: 'hf_abc.123-x' });
    assert.equal(created.status, 200, created.text);
    assert.equal(obj(created).success, true);
    assert.equal(typeof obj(created).msg, 'string');
    await call(sim, 'POST', PATH, { key: 'WANDB_KEY', value: 'w1' });
    assert.deepEqual(await list(), { HF_TOKEN: 'hf_abc.123-x', WANDB_KEY: 'w1' });

    const updated = await call(sim, 'PUT', PATH, { key: 'Hf_Token', value: 'new value / with spaces' });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(obj(updated).success, true);
    assert.equal((await list()).HF_TOKEN, 'new value / with spaces');

    const deleted = await call(sim, 'DELETE', PATH, { key: 'hf_token' });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(obj(deleted).success, true);
    assert.deepEqual(await list(), { WANDB_KEY: 'w1' });
    assert.equal((await call(sim, 'GET', '/api/v0/secrets', undefined)).status, 200, 'without the trailing slash too');
  });

  it("keeps each account's variables to itself", async () => {
    const other = sim.control.addAccount({ email: 'other@example.test' });
    await call(sim, 'POST', PATH, { key: 'MINE', value: 'one' });
    await call(sim, 'POST', PATH, { key: 'MINE', value: 'two' }, other.key);
    assert.deepEqual(await list(), { MINE: 'one' });
    assert.deepEqual(await list(other.key), { MINE: 'two' });
    assert.equal(obj(await call(sim, 'DELETE', PATH, { key: 'MINE' }, other.key)).success, true);
    assert.deepEqual(await list(), { MINE: 'one' }, 'deleting in one account leaves the other');
    const update = await call(sim, 'PUT', PATH, { key: 'MINE', value: 'x' }, other.key);
    assert.equal(obj(update).error, 'nonexistent_key');
  });

  it('answers 400 with the documented error codes', async () => {
    const expect = async (method: string, body: unknown, status: number, error: string) => {
      const res = await call(sim, method, PATH, body);
      assert.equal(res.status, status, `${method} ${JSON.stringify(body)}: ${res.text}`);
      const b = obj(res);
      assert.equal(b.success, false);
      assert.equal(b.error, error, `${method} ${JSON.stringify(body)}`);
      assert.equal(typeof b.msg, 'string');
    };
    await call(sim, 'POST', PATH, { key: 'TAKEN', value: 'v' });
    await expect('POST', {}, 400, 'missing_input');
    await expect('POST', { key: 'A' }, 400, 'missing_input');
    await expect('POST', { key: 'A', value: 5 }, 400, 'missing_input');
    await expect('POST', { key: 'A', value: '' }, 400, 'missing_input');
    await expect('POST', { key: 'taken', value: 'v' }, 400, 'existing_key');
    await expect('POST', { key: '1ABC', value: 'v' }, 400, 'invalid_characters');
    await expect('POST', { key: 'A B', value: 'v' }, 400, 'invalid_characters');
    await expect('POST', { key: 'A', value: 'has space' }, 400, 'invalid_characters');
    await expect('POST', { key: 'A', value: 'x'.repeat(MAX_SECRET_VALUE + 1) }, 400, 'input_too_long');
    await expect('PUT', { key: 'TAKEN' }, 400, 'missing_input');
    await expect('PUT', { key: 'TAKEN', value: '' }, 400, 'empty_input');
    await expect('PUT', { key: '', value: 'v' }, 400, 'empty_input');
    await expect('PUT', { key: 'TAKEN', value: 'x'.repeat(MAX_SECRET_VALUE + 1) }, 400, 'input_too_long');
    await expect('PUT', { key: 'NOPE', value: 'v' }, 400, 'nonexistent_key');
    await expect('PUT', { key: 'bad-name', value: 'v' }, 400, 'invalid_characters');
    await expect('DELETE', {}, 400, 'missing_input');
    await expect('DELETE', { key: 'NOPE' }, 400, 'nonexistent_key');
    assert.deepEqual(await list(), { TAKEN: 'v' }, 'no failed call changed anything');
  });

  it(`holds at most ${MAX_SECRETS} variables per account`, async () => {
    for (let i = 0; i < MAX_SECRETS; i++) {
      const res = await call(sim, 'POST', PATH, { key: `V${i}`, value: 'v' });
      assert.equal(res.status, 200, res.text);
    }
    const over = await call(sim, 'POST', PATH, { key: 'ONE_MORE', value: 'v' });
    assert.equal(over.status, 400);
    assert.equal(obj(over).error, 'max_secrets');
    assert.equal(Object.keys(await list()).length, MAX_SECRETS);
    await call(sim, 'DELETE', PATH, { key: 'V0' });
    assert.equal((await call(sim, 'POST', PATH, { key: 'ONE_MORE', value: 'v' })).status, 200, 'room again after a delete');
  });

  it('needs user_read to list and user_write to change; an instance key gets neither', async () => {
    await call(sim, 'POST', PATH, { key: 'SEEN', value: 'v' });
    const reader = await scoped({ user_read: {} });
    assert.deepEqual(await list(reader), { SEEN: 'v' });
    for (const [method, body] of [
      ['POST', { key: 'X', value: 'v' }],
      ['PUT', { key: 'SEEN', value: 'w' }],
      ['DELETE', { key: 'SEEN' }],
    ] as const) {
      const res = await call(sim, method, PATH, body, reader);
      assert.equal(res.status, 403, `${method} with user_read only: ${res.text}`);
      assert.match(String(obj(res).msg), /user_write/);
    }
    const writer = await scoped({ user_write: {} });
    const denied = await call(sim, 'GET', PATH, undefined, writer);
    assert.equal(denied.status, 403);
    assert.match(String(obj(denied).msg), /user_read/);
    assert.equal((await call(sim, 'POST', PATH, { key: 'BY_WRITER', value: 'v' }, writer)).status, 200);
    assert.equal((await call(sim, 'PUT', PATH, { key: 'SEEN', value: 'w' }, writer)).status, 200);
    assert.deepEqual(await list(), { SEEN: 'w', BY_WRITER: 'v' });

    const { instanceKey } = await rentOne(sim);
    assert.equal((await call(sim, 'GET', PATH, undefined, instanceKey)).status, 403);
    assert.equal((await call(sim, 'GET', PATH, undefined, null)).status, 401, 'no key');
  });

  describe('with a state file', () => {
    const dir = tempDirForSuite('marketplace-secrets-', { each: true });

    it('keeps the variables across a restart, and loads a file written before they existed', async () => {
      const file = join(dir(), 'state.json');
      const kept = await startSimulator({ stateFile: file });
      await call(kept, 'POST', PATH, { key: 'KEEP', value: 'me' });
      await kept.stop();
      const again = await startSimulator({ stateFile: file });
      try {
        assert.deepEqual(obj(await call(again, 'GET', PATH)).secrets, { KEEP: 'me' });
      } finally {
        await again.stop();
      }

      const old = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      delete old.secrets;
      writeFileSync(file, JSON.stringify(old));
      const older = await startSimulator({ stateFile: file });
      try {
        assert.deepEqual(obj(await call(older, 'GET', PATH)).secrets, {});
        assert.equal((await call(older, 'POST', PATH, { key: 'NEW', value: 'v' })).status, 200);
      } finally {
        await older.stop();
      }
      assert.deepEqual((JSON.parse(readFileSync(file, 'utf8')) as { secrets: unknown[] }).secrets.length, 1);
    });
  });
});
