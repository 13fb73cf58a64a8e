import * as vscode from 'vscode';
import { checkSecretName, checkSecretValue, explainSecretError, normalizeSecretName } from '../../core/account/secrets';
import { COMMANDS } from '../../core/ids';
import { inputOf } from '../prompts';
import { SecretItem } from '../views/account/secretsItems';
import type { AccountAreaDeps } from './accountDeps';
import { command, type CommandDefinition } from './registry';

/**
 * The account's environment variables: add, change a value, delete; from the Account view or the
 * palette. A value is asked for in a password box and goes to the service only: it is never
 * shown, logged, stored or passed as a command argument.
 */
export function secretCommands(s: AccountAreaDeps): CommandDefinition[] {
  return [
    command(COMMANDS.addSecret, () => addSecret(s)),
    command(COMMANDS.changeSecret, (t?: SecretItem | string) => changeSecret(s, t)),
    command(COMMANDS.deleteSecret, (t?: SecretItem | string) => deleteSecret(s, t)),
  ];
}

/** Runs a request, with the service's documented refusals put in words. */
async function worded<T>(name: string, request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    throw explainSecretError(error, name);
  }
}

/** Resolves with the name as the service stores it, or undefined when cancelled. */
async function addSecret(s: AccountAreaDeps): Promise<string | undefined> {
  const input = inputOf(s.prompts());
  // Known names turn a duplicate into a message at the name box, not a refusal after the value
  // was typed. A key that may not list them still adds: the service then says existing_key.
  const known = await s.session.client.secrets.list().catch(() => undefined);
  const typed = await input({
    title: vscode.l10n.t('GPU Rental: Add an environment variable (1/2)'),
    prompt: vscode.l10n.t('Its name. The service adds it to every instance created from now on, upper-cased.'),
    placeholder: 'HF_TOKEN',
    validate: (v) => {
      const bad = checkSecretName(v);
      if (bad) return bad;
      const name = normalizeSecretName(v);
      return known?.includes(name) ? vscode.l10n.t('{0} exists already: use Change Value on it instead.', name) : undefined;
    },
  });
  if (typed === undefined || checkSecretName(typed)) return undefined;
  const name = normalizeSecretName(typed);
  const value = await input({
    title: vscode.l10n.t('GPU Rental: Add an environment variable (2/2): {0}', name),
    prompt: vscode.l10n.t('The value of {0}. It is not shown again after this.', name),
    password: true,
    validate: (v) => checkSecretValue(v, 'create'),
  });
  if (value === undefined || checkSecretValue(value, 'create')) return undefined;
  await worded(name, s.session.client.secrets.create(name, value));
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      "GPU Rental: added {0} to the account's environment variables. Instances created from now on get it; instances that exist already do not.",
      name,
    ),
  );
  return name;
}

/** The variable named by the row or the argument, or picked from the account's. */
async function pickName(s: AccountAreaDeps, target: SecretItem | string | undefined, title: string): Promise<string | undefined> {
  if (target instanceof SecretItem) return target.name;
  if (typeof target === 'string') return normalizeSecretName(target);
  const names = await s.session.client.secrets.list();
  if (names.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('GPU Rental: the account has no environment variables. Add one with "Add Environment Variable".'),
    );
    return undefined;
  }
  return vscode.window.showQuickPick(names, { title, placeHolder: vscode.l10n.t('Values are not shown') });
}

/** Resolves true when the value was replaced. */
async function changeSecret(s: AccountAreaDeps, target: SecretItem | string | undefined): Promise<boolean> {
  const name = await pickName(s, target, vscode.l10n.t('GPU Rental: Change the value of which variable?'));
  if (!name) return false;
  const value = await inputOf(s.prompts())({
    title: vscode.l10n.t('GPU Rental: New value of {0}', name),
    prompt: vscode.l10n.t(
      'Replaces the value of {0}; instances created from now on get the new one. It is not shown again after this.',
      name,
    ),
    password: true,
    validate: (v) => checkSecretValue(v, 'update'),
  });
  if (value === undefined || checkSecretValue(value, 'update')) return false;
  await worded(name, s.session.client.secrets.update(name, value));
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'GPU Rental: changed the value of {0}. Instances created from now on get the new value; existing ones keep the old one.',
      name,
    ),
  );
  return true;
}

/** Resolves true when the variable was deleted. */
async function deleteSecret(s: AccountAreaDeps, target: SecretItem | string | undefined): Promise<boolean> {
  const name = await pickName(s, target, vscode.l10n.t('GPU Rental: Delete which variable?'));
  if (!name) return false;
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Delete the environment variable {0} from the account?', name),
      vscode.l10n.t(
        'Instances created from now on will not get it. Instances that have it already keep it. Its value cannot be read back.',
      ),
      vscode.l10n.t('Delete Variable'),
    );
  if (!ok) return false;
  await worded(name, s.session.client.secrets.delete(name));
  s.accountView.refresh();
  return true;
}
