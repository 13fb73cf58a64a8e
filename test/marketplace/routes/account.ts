/**
 * `GET /api/v0/users/current/`: the account behind the key. The key itself is never echoed.
 * `ssh_key` is a string, empty when the account has none (the OpenAPI types it so). The money
 * fields can be withheld per account (`withholdUserFields`, the control route
 * `/__control/accounts/{id}/quirks`), as a service that sends only `balance`, or neither, would.
 */
import { LOW_CREDIT_THRESHOLD } from '../notifications';
import { round } from '../random';
import { epoch, ok, type RouteDef } from '../router';
import type { Store } from '../state';

export type MoneyField = 'credit' | 'balance';
const withheld = new WeakMap<Store, Map<number, ReadonlySet<MoneyField>>>();

/** Leaves `fields` out of the account's user record from now on; an empty list sends them again. */
export function withholdUserFields(store: Store, accountId: number, fields: readonly MoneyField[]): void {
  let accounts = withheld.get(store);
  if (!accounts) withheld.set(store, (accounts = new Map()));
  if (fields.length) accounts.set(accountId, new Set(fields));
  else accounts.delete(accountId);
}

export function withheldUserFields(store: Store, accountId: number): MoneyField[] {
  return [...(withheld.get(store)?.get(accountId) ?? [])];
}

export const accountRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/users/current',
    category: 'user_read',
    action: 'api.user.show',
    handler: (ctx) => {
      const { account, key, sim, now } = ctx;
      const credit = round(sim.store.balance(account.id, now), 6);
      const sshKey = sim.store.data.sshKeys.filter((k) => k.accountId === account.id && k.deletedAt === null).at(-1);
      const topUps = sim.store.data.topUps.filter((t) => t.accountId === account.id);
      const record: Record<string, unknown> = {
        id: account.id,
        email: account.email,
        username: account.username,
        fullname: account.fullname,
        user: account.username,
        credit,
        // Spendable credit is `credit`; `balance` is what is owed beyond it (0 or negative).
        balance: Math.min(0, credit),
        ssh_key: sshKey?.publicKey ?? '',
        key_id: key.id,
        sid: `sid-${account.id}`,
        // Below it, a webhook on client:low_credit is told (notifications.ts).
        balance_threshold: LOW_CREDIT_THRESHOLD,
        balance_threshold_enabled: false,
        billing_creditonly: 1,
        can_pay: true,
        has_billing: true,
        has_payout: false,
        email_verified: true,
        got_signup_credit: topUps.length > 0,
        password_resettable: true,
        last4: null,
        paypal_email: null,
        billaddress_line1: null,
        billaddress_line2: null,
        billaddress_city: null,
        billaddress_zip: null,
        billaddress_country: null,
        billed_expected: 0,
        billed_verified: 0,
        paid_expected: 0,
        paid_verified: 0,
        created_at: epoch(account.createdAt),
        rights: key.permissions ? JSON.stringify(key.permissions) : null,
      };
      for (const field of withheldUserFields(sim.store, account.id)) delete record[field];
      return ok(record);
    },
  },
];
