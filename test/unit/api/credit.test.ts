import assert from 'node:assert/strict';
import { accountFunds, creditOf } from '../../../src/core/account/funds';
import { clientFor, DEMO_KEY, startSimulator, mockedApi } from '../../support';

const BASE = 'https://api.example.test';

const mocked = () => mockedApi(BASE, 'sk-credit-0123456789abcdef');

describe('credit: optional, shown as sent', () => {
  const user = (record: object) => {
    const { pool, client } = mocked();
    pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 7, email: 'a@b.c', ...record });
    return client.account.currentUser();
  };

  it('a record with credit: the credit', async () => {
    const u = await user({ credit: 12.5, balance: 0 });
    assert.deepEqual(accountFunds(u), { amount: 12.5, field: 'credit' });
  });

  it('a record without credit, or with null: balance, and the key is usable', async () => {
    assert.deepEqual(accountFunds(await user({ balance: 3 })), { amount: 3, field: 'balance' });
    assert.deepEqual(accountFunds(await user({ credit: null, balance: 4 })), { amount: 4, field: 'balance' });
  });

  it('a record with neither: unknown (undefined), never 0', async () => {
    const u = await user({ credit: null });
    assert.equal(u.id, 7);
    assert.equal(accountFunds(u), undefined);
    assert.equal(creditOf(u), undefined);
    assert.equal(creditOf(undefined), undefined, 'a key that may not read the account');
  });

  it('the simulator can withhold credit and balance; ssh_key is a string', async () => {
    const sim = await startSimulator();
    try {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const full = await client.account.currentUser();
      assert.deepEqual(accountFunds(full), { amount: 250, field: 'credit' });
      assert.equal(full.ssh_key, '', 'no account key yet: an empty string');
      sim.control.setAccountQuirks(sim.accountId, { withhold: ['credit'] });
      assert.equal(accountFunds(await client.account.currentUser())?.field, 'balance');
      sim.control.setAccountQuirks(sim.accountId, { withhold: ['credit', 'balance'] });
      assert.equal(accountFunds(await client.account.currentUser()), undefined);
      sim.control.setAccountQuirks(sim.accountId, { withhold: [] });
      assert.equal(accountFunds(await client.account.currentUser())?.field, 'credit');
    } finally {
      await sim.stop();
    }
  });
});
