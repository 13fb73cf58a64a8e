import type { Session } from '../../core/session/session';
import type { Prompts } from '../prompts';
import type { AccountView } from '../views/account/accountView';

/** What the commands on the account's resources (team, volumes, serverless, templates, keys) use. */
export interface AccountAreaDeps {
  readonly session: Pick<Session, 'client'>;
  /** Refreshed after a change, so the Account view shows it. */
  readonly accountView: Pick<AccountView, 'refresh'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
}
