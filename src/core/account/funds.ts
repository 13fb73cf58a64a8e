import type { User } from '../api/account';

/** The account's money as the service reports it, and under which name. */
export interface AccountFunds {
  amount: number;
  /** `credit` (spendable credit) when the service sent it, else `balance`. */
  field: 'credit' | 'balance';
}

/**
 * What the account has to spend: `credit` when the service sends it, else `balance`; undefined
 * when it sends neither (or the key may not read the account). Undefined means unknown: never 0
 * (which would refuse every rent) and never plenty (which would hide a low-credit warning).
 */
export function accountFunds(user: User | undefined): AccountFunds | undefined {
  if (typeof user?.credit === 'number') return { amount: user.credit, field: 'credit' };
  if (typeof user?.balance === 'number') return { amount: user.balance, field: 'balance' };
  return undefined;
}

/** The amount of accountFunds, or undefined when unknown. */
export function creditOf(user: User | undefined): number | undefined {
  return accountFunds(user)?.amount;
}
