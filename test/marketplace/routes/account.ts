/** `GET /api/v0/users/current/`: the account behind the key. The key itself is never echoed. */
import { round } from '../random';
import { epoch, ok, type RouteDef } from '../router';

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
      return ok({
        id: account.id,
        email: account.email,
        username: account.username,
        fullname: account.fullname,
        user: account.username,
        credit,
        // Spendable credit is `credit`; `balance` is what is owed beyond it (0 or negative).
        balance: Math.min(0, credit),
        ssh_key: sshKey?.publicKey ?? null,
        key_id: key.id,
        sid: `sid-${account.id}`,
        balance_threshold: 5,
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
      });
    },
  },
];
