import type { Outcome } from '../../core/account/notice';
import type { Session } from '../../core/session/session';
import type { Prompts } from '../pickers/prompts';
import type { AccountView } from '../views/account/accountView';
import { notify } from '../pickers/notify';

/** What the commands on the account's resources (team, volumes, serverless, templates, keys) use. */
export interface AccountAreaDeps {
  readonly session: Pick<Session, 'client'>;
  /** Refreshed after a change, so the Account view shows it. */
  readonly accountView: Pick<AccountView, 'refresh'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
}

/** Shows a core flow's outcome: the Account view reloads when something changed, the notice shows; resolves with its value. */
export function shownWith(s: Pick<AccountAreaDeps, 'accountView'>) {
  return async <T>(outcome: Promise<Outcome<T>>): Promise<T> => {
    const { value, notice } = await outcome;
    if (value) s.accountView.refresh();
    void notify(notice);
    return value;
  };
}
