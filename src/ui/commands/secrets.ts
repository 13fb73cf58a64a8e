import { addSecret, changeSecret, deleteSecret, type SecretFlowDeps } from '../../core/account/secretFlows';
import { COMMANDS } from '../../core/ids';
import { asker } from '../pickers/prompts';
import { SecretItem } from '../views/account/secretsItems';
import { shownWith, type AccountAreaDeps } from './accountDeps';
import { command, type CommandDefinition } from '../registry';

/**
 * The account's environment variables: add, change a value, delete; from the Account view or the
 * palette (decided in core/account/secretFlows.ts). A value is never passed as a command argument.
 */
export function secretCommands(s: AccountAreaDeps): CommandDefinition[] {
  const deps = (): SecretFlowDeps => ({ ask: asker(s.prompts()), secrets: s.session.client.secrets });
  const name = (t?: SecretItem | string) => (t instanceof SecretItem ? t.name : t);
  const shown = shownWith(s);
  return [
    command(COMMANDS.addSecret, () => shown(addSecret(deps()))),
    command(COMMANDS.changeSecret, (t?: SecretItem | string) => shown(changeSecret(deps(), name(t)))),
    command(COMMANDS.deleteSecret, (t?: SecretItem | string) => shown(deleteSecret(deps(), name(t)))),
  ];
}
