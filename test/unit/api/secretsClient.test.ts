import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { isApiError, type ApiError } from '../../../src/core/api/errors';
import { permissionsFor } from '../../../src/core/api/permissions';
import { MAX_SECRET_VALUE, MAX_SECRETS } from '../../marketplace/routes/secrets';
import { call, clientFor, DEMO_KEY, failure, mockedApi, obj, simulatorForSuite } from '../../support';

/** Values long enough that any run of 8 of their characters would be found in a leak. */
const VALUE = 'hf_Zq8rT2vX9kLm4.Np7-Wd3';
const OTHER = 'sk-live_77AbCdEfGh11.zz';

/** Everything a person or a log could see of a failed call. */
function renderings(error: ApiError, lines: readonly string[]): string {
  return [error.message, error.toLogString(), JSON.stringify(error), inspect(error, { depth: 5 }), error.stack ?? '', ...lines].join('\n');
}

describe('client: account environment variables (simulator)', () => {
  const sim = simulatorForSuite({}, { each: true });

  /** The values the simulator holds, read around the client: the client itself never returns them. */
  const stored = async () => obj(await call(sim, 'GET', '/api/v0/secrets/')).secrets as Record<string, string>;

  it('adds, lists by name only, changes and deletes a variable', async () => {
    const { client, logger } = clientFor(sim.url, DEMO_KEY);
    assert.deepEqual(await client.secrets.list(), []);
    await client.secrets.create('hf_token', VALUE);
    await client.secrets.create('WANDB_API_KEY', OTHER);
    const names = await client.secrets.list();
    assert.deepEqual(names, ['HF_TOKEN', 'WANDB_API_KEY'], 'upper-cased by the service, sorted');
    assert.ok(!JSON.stringify(names).includes(VALUE) && !JSON.stringify(names).includes(OTHER), 'no value is returned');
    assert.equal((await stored()).HF_TOKEN, VALUE, 'the value reached the service');

    await client.secrets.update('HF_TOKEN', 'changed/with spaces=ok');
    assert.equal((await stored()).HF_TOKEN, 'changed/with spaces=ok', 'a changed value is not held to the create pattern');
    await client.secrets.delete('HF_TOKEN');
    assert.deepEqual(await client.secrets.list(), ['WANDB_API_KEY']);
    const log = logger.lines.join('\n');
    assert.ok(!log.includes(VALUE) && !log.includes(OTHER) && !log.includes('changed/with'), `no value in the log:\n${log}`);
  });

  it("maps each of the service's refusal codes to a bad request carrying the code, without the value", async () => {
    const { client, logger } = clientFor(sim.url, DEMO_KEY);
    await client.secrets.create('TAKEN', VALUE);
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['existing_key', () => client.secrets.create('taken', OTHER)],
      ['invalid_characters', () => client.secrets.create('SLASHED', `${VALUE}/x`)],
      ['invalid_characters', () => client.secrets.create('1BAD', OTHER)],
      ['missing_input', () => client.secrets.create('EMPTY', '')],
      ['empty_input', () => client.secrets.update('TAKEN', '')],
      ['input_too_long', () => client.secrets.update('TAKEN', `${OTHER}${'x'.repeat(MAX_SECRET_VALUE)}`)],
      ['nonexistent_key', () => client.secrets.update('NOT_THERE', OTHER)],
      ['nonexistent_key', () => client.secrets.delete('NOT_THERE')],
    ];
    for (const [code, send] of cases) {
      const error = await failure(send());
      assert.equal(error.kind, 'bad_request', code);
      assert.equal(error.status, 400, code);
      assert.equal(error.code, code);
      const seen = renderings(error, logger.lines);
      assert.ok(!seen.includes(VALUE.slice(0, 8)) && !seen.includes(OTHER.slice(0, 8)), `${code}: no value in\n${seen}`);
    }
    assert.equal((await stored()).TAKEN, VALUE, 'the refused requests changed nothing');
  });

  it('says max_secrets when the account holds as many variables as it may', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    for (let i = 0; i < MAX_SECRETS; i++) await client.secrets.create(`V${i}`, 'v');
    const error = await failure(client.secrets.create('ONE_MORE', VALUE));
    assert.equal(error.code, 'max_secrets');
    assert.equal((await client.secrets.list()).length, MAX_SECRETS);
  });

  it('refuses a key without user_write as a missing permission, and one without user_read the list', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const reader = await client.apiKeys.create({ name: 'reader', permissions: permissionsFor(['user_read']) });
    const readOnly = clientFor(sim.url, reader.key).client;
    assert.deepEqual(await readOnly.secrets.list(), []);
    const refused = await failure(readOnly.secrets.create('NOPE', VALUE));
    assert.ok(isApiError(refused, 'forbidden') && refused.permission === 'user_write', refused.message);
    assert.ok(!renderings(refused, []).includes(VALUE.slice(0, 8)));
    const other = await client.apiKeys.create({ name: 'billing', permissions: permissionsFor(['billing_read']) });
    const error = await failure(clientFor(sim.url, other.key).client.secrets.list());
    assert.ok(isApiError(error, 'forbidden') && error.permission === 'user_read', error.message);
  });
});

describe('client: account environment variables (odd answers)', () => {
  const BASE = 'https://api.example.test';

  it('reads names from a list of names or of {key} records, and drops values of odd types', async () => {
    const { pool, client } = mockedApi(BASE, DEMO_KEY);
    pool.intercept({ path: '/api/v0/secrets/', method: 'GET' }).reply(200, { secrets: ['B', { key: 'A', value: VALUE }, 7, ''] });
    assert.deepEqual(await client.secrets.list(), ['A', 'B']);
    pool.intercept({ path: '/api/v0/secrets/', method: 'GET' }).reply(200, { success: true, secrets: { Z: 5, Y: null } });
    assert.deepEqual(await client.secrets.list(), ['Y', 'Z']);
    pool.intercept({ path: '/api/v0/secrets/', method: 'GET' }).reply(200, { success: true });
    assert.deepEqual(await client.secrets.list(), []);
  });

  it('calls a list that is not one an invalid answer, without echoing it', async () => {
    const { pool, client } = mockedApi(BASE, DEMO_KEY);
    pool.intercept({ path: '/api/v0/secrets/', method: 'GET' }).reply(200, { secrets: VALUE });
    const error = await failure(client.secrets.list());
    assert.equal(error.kind, 'invalid_response');
    assert.ok(!renderings(error, []).includes(VALUE.slice(0, 8)));
  });

  it('takes a value the service echoes in a refusal out of the error and the log', async () => {
    const { pool, client, logger } = mockedApi(BASE, DEMO_KEY);
    pool
      .intercept({ path: '/api/v0/secrets/', method: 'POST' })
      .reply(400, { success: false, error: 'invalid_characters', msg: `value ${VALUE} has bad characters` });
    const error = await failure(client.secrets.create('ECHO', VALUE));
    assert.equal(error.code, 'invalid_characters');
    assert.match(error.message, /\[redacted\]/);
    assert.ok(!renderings(error, logger.lines).includes(VALUE.slice(0, 8)));
    pool.intercept({ path: '/api/v0/secrets/', method: 'PUT' }).reply(500, `echo ${OTHER}`);
    const server = await failure(client.secrets.update('ECHO', OTHER));
    assert.ok(!renderings(server, logger.lines).includes(OTHER.slice(0, 8)));
  });
});
