import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import type { Logger } from '../../core/log';
import type { ManyPrompt, NotifyDeps } from '../../core/notify/flowParts';
import { manageNotify, type ManageGiven } from '../../core/notify/manage';
import { setUpNotify, type SetUpGiven } from '../../core/notify/setUp';
import { scopeOf, type NotifyVault } from '../../core/notify/vault';
import type { Session } from '../../core/session/session';
import { notify } from '../pickers/notify';
import { asker, type Prompts } from '../pickers/prompts';
import { command, type CommandDefinition } from '../registry';

/** What the Notify Me commands use. */
export interface NotifyCommandDeps {
  readonly session: Pick<Session, 'client' | 'normalizedBaseUrl' | 'profileId'>;
  /** The signing secrets (and URLs) of the webhooks set up here, in SecretStorage. */
  readonly vault: NotifyVault;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

/**
 * Notify Me Away from VS Code: set up a webhook, and manage the account's (decided in
 * core/notify/). A signing secret goes only to the clipboard, when the user asks; it is never a
 * command's result.
 */
export function notifyCommands(s: NotifyCommandDeps): CommandDefinition[] {
  const deps = (): NotifyDeps => {
    // The client first: it says why when the base URL is unusable.
    const webhooks = s.session.client.webhooks;
    const scope = scopeOf(s.session);
    if (!scope) throw new Error(vscode.l10n.t('The base URL is not usable.'));
    return {
      ask: asker(s.prompts()),
      webhooks,
      vault: s.vault,
      scope,
      pickMany,
      copy: (text) => Promise.resolve(vscode.env.clipboard.writeText(text)),
      logger: s.logger,
    };
  };
  return [
    command(COMMANDS.notifySetUp, async (given?: SetUpGiven) => {
      const { value, notice } = await setUpNotify(deps(), given);
      void notify(notice);
      return value;
    }),
    command(COMMANDS.notifyManage, async (given?: ManageGiven) => {
      const { value, notice } = await manageNotify(deps(), given);
      void notify(notice);
      return value;
    }),
  ];
}

/** A QuickPick of several items, the `picked` ones ticked. */
async function pickMany<T>(prompt: ManyPrompt<T>): Promise<T[] | undefined> {
  const picked = await vscode.window.showQuickPick(
    prompt.items.map((item) => ({ ...item, picked: item.picked ?? false })),
    { title: prompt.title, placeHolder: prompt.placeholder, canPickMany: true, ignoreFocusOut: true },
  );
  return picked?.map((item) => item.value);
}
