// What the Account view suites share: its rows, an instance to work on, answered confirmations.
import * as assert from 'node:assert/strict';
import type { AccountViewItem } from '../../../src/ui/views/account/accountView';
import { api, extensionApi, rentableOffers, signIn, sim } from '../support';

/** The rows of one top-level section of the Account view (API Keys, SSH Keys, Billing, Team, …). */
export async function section(label: string): Promise<AccountViewItem[]> {
  return (await extensionApi()).test.accountItems(label);
}

/** Rents the cheapest free offer through the API, as another client of the account would; resolves with the instance id. */
export async function rented(key = sim.key): Promise<number> {
  const [offer] = await rentableOffers({}, 1, key);
  assert.ok(offer, 'a rentable offer');
  return (
    (await api('PUT', `/api/v0/asks/${offer.id}/`, key, { client_id: 'me', image: 'ubuntu:22.04', disk: 8 })) as {
      new_contract: number;
    }
  ).new_contract;
}

/**
 * The confirmations a suite's commands ask, answered with `c.answer` (true unless a test says
 * otherwise). Before each test: signed in with the full key, nothing asked yet.
 */
export function confirmations(): { asked: string[]; answer: boolean } {
  const c = { asked: [] as string[], answer: true };
  beforeEach(async () => {
    c.asked.length = 0;
    c.answer = true;
    const x = await signIn();
    x.test.answerPrompts({ confirm: async (m) => (c.asked.push(m), c.answer) });
  });
  return c;
}
