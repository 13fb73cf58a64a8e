import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import type { Offer } from '../../../src/core/api/offers';
import { rentConfirmation } from '../../../src/core/rent/confirmation';
import type { PendingRent } from '../../../src/core/rent/journal';
import { rentRequest, type RentPlan } from '../../../src/core/rent/plan';
import { call, clientFor, DEMO_KEY, failure, mockedApi, obj, priceableOffer, simulatorForSuite } from '../../support';
import { accountAt, renterFor } from '../rent/kit';

const TOKEN = 'hf_Rk29sLq8Vx3mNz7Tp4Wd';

describe("a rent's own environment variables", () => {
  const sim = simulatorForSuite();
  const plan: RentPlan = { image: 'ubuntu:22.04', disk: 10, label: 'with-env', runtype: 'ssh_proxy' };

  it('go in the create body as the `env` map, only when there are some', () => {
    assert.deepEqual(rentRequest({ ...plan, env: { HF_TOKEN: TOKEN, MODEL_ID: 'm' } }, undefined).env, { HF_TOKEN: TOKEN, MODEL_ID: 'm' });
    assert.ok(!('env' in rentRequest(plan, undefined)), 'no env key without variables');
    assert.ok(!('env' in rentRequest({ ...plan, env: {} }, undefined)));
  });

  it("show on an automation rent's confirmation by name, never by value", () => {
    const offer: Offer = priceableOffer();
    const { detail } = rentConfirmation({ offer, plan: { ...plan, env: { HF_TOKEN: TOKEN } }, credit: 100, templateMode: undefined });
    assert.match(detail, / Environment: HF_TOKEN \(values hidden\)\.$/);
    assert.ok(!detail.includes(TOKEN));
  });

  it("reach the instance's env on the service, and never the journal, the log or the renter's outcome", async () => {
    const { renter, storage, logger } = renterFor();
    const written: PendingRent[][] = [];
    const write = storage.write.bind(storage);
    storage.write = async (entries) => {
      written.push(JSON.parse(JSON.stringify(entries)) as PendingRent[]);
      await write(entries);
    };
    const [offer] = await clientFor(sim.url, DEMO_KEY).client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 1,
    });
    const label = renter.uniqueLabel();
    const outcome = await renter.rent(accountAt(sim.url), offer!, rentRequest({ ...plan, label, env: { HF_TOKEN: TOKEN } }, undefined), {
      description: 'test',
      perHour: 0.1,
    });
    assert.equal(outcome.kind, 'created');
    const id = outcome.kind === 'created' ? outcome.instanceId : -1;
    const record = obj(await call(sim, 'GET', `/api/v0/instances/${id}/`)).instances as { extra_env: Array<[string, string]> };
    assert.ok(
      record.extra_env.some(([k, v]) => k === 'HF_TOKEN' && v === TOKEN),
      'the instance has the variable',
    );
    assert.ok(written.length >= 2, 'the journal was written before and after');
    const kept = JSON.stringify(written) + JSON.stringify([...storage.keys.values()]);
    assert.ok(!kept.includes(TOKEN.slice(0, 8)), 'no value in the journal');
    assert.ok(!logger.lines.join('\n').includes(TOKEN.slice(0, 8)), 'no value in the log');
    assert.ok(!inspect(outcome, { depth: 6 }).includes(TOKEN.slice(0, 8)));
  });

  it("join the account's variables on the new instance (simulator), the rent's own winning on a name", async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    await client.secrets.create('ACCOUNT_ONLY', 'from-account');
    await client.secrets.create('BOTH', 'account-value');
    const { renter } = renterFor();
    const [offer] = await client.offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 1,
    });
    const request = rentRequest({ ...plan, label: renter.uniqueLabel(), env: { BOTH: 'rent-value' } }, undefined);
    const outcome = await renter.rent(accountAt(sim.url), offer!, request, { description: 'test', perHour: 0.1 });
    assert.equal(outcome.kind, 'created');
    const id = outcome.kind === 'created' ? outcome.instanceId : -1;
    const record = obj(await call(sim, 'GET', `/api/v0/instances/${id}/`)).instances as { extra_env: Array<[string, string]> };
    assert.deepEqual(Object.fromEntries(record.extra_env), { ACCOUNT_ONLY: 'from-account', BOTH: 'rent-value' });
    for (const name of ['ACCOUNT_ONLY', 'BOTH']) await client.secrets.delete(name);
  });

  it('are taken out of a refusal that echoes them', async () => {
    const { pool, client, logger } = mockedApi('https://api.example.test', DEMO_KEY);
    pool
      .intercept({ path: '/api/v0/asks/5/', method: 'PUT' })
      .reply(400, { success: false, error: 'invalid_args', msg: `bad env -e HF_TOKEN=${TOKEN}` });
    const error = await failure(client.instances.create(5, rentRequest({ ...plan, env: { HF_TOKEN: TOKEN } }, undefined)));
    const seen = [error.message, JSON.stringify(error), inspect(error, { depth: 5 }), ...logger.lines].join('\n');
    assert.ok(!seen.includes(TOKEN.slice(0, 8)), seen);
    assert.match(error.message, /HF_TOKEN=\[redacted\]/);
  });
});
