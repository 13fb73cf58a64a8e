/**
 * Add, Change Value and Delete of the account's environment variables, as core flows. A value is
 * asked for in a password box and goes to the service only: never shown, logged or stored.
 */
import type { SecretsApi } from '../api/secrets';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import { info, type Outcome } from './notice';
import { checkSecretName, checkSecretValue, explainSecretError, normalizeSecretName } from './secrets';

export interface SecretFlowDeps {
  readonly ask: Ask;
  readonly secrets: Pick<SecretsApi, 'list' | 'create' | 'update' | 'delete'>;
}

/** Runs a request, with the service's documented refusals put in words. */
async function worded<T>(name: string, request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    throw explainSecretError(error, name);
  }
}

/** Asks for a name, then its value; resolves with the name as the service stores it, or undefined when cancelled. */
export async function addSecret(d: SecretFlowDeps): Promise<Outcome<string | undefined>> {
  // Known names turn a duplicate into a message at the name box, not a refusal after the value
  // was typed. A key that may not list them still adds: the service then says existing_key.
  const known = await d.secrets.list().catch(() => undefined);
  const typed = await d.ask.input({
    title: l10n.t('GPU Rental: Add an environment variable (1/2)'),
    prompt: l10n.t('Its name. The service adds it to every instance created from now on, upper-cased.'),
    placeholder: 'HF_TOKEN',
    validate: (v) => {
      const bad = checkSecretName(v);
      if (bad) return bad;
      const name = normalizeSecretName(v);
      return known?.includes(name) ? l10n.t('{0} exists already: use Change Value on it instead.', name) : undefined;
    },
  });
  if (typed === undefined || checkSecretName(typed)) return { value: undefined };
  const name = normalizeSecretName(typed);
  const value = await d.ask.input({
    title: l10n.t('GPU Rental: Add an environment variable (2/2): {0}', name),
    prompt: l10n.t('The value of {0}. It is not shown again after this.', name),
    password: true,
    validate: (v) => checkSecretValue(v, 'create'),
  });
  if (value === undefined || checkSecretValue(value, 'create')) return { value: undefined };
  await worded(name, d.secrets.create(name, value));
  return {
    value: name,
    notice: info(
      l10n.t(
        "GPU Rental: added {0} to the account's environment variables. Instances created from now on get it; instances that exist already do not.",
        name,
      ),
    ),
  };
}

/** The variable named (a row's or an argument), or picked from the account's; a notice when it has none. */
async function variable(d: SecretFlowDeps, given: string | undefined, title: string): Promise<Outcome<string | undefined>> {
  if (given !== undefined) return { value: normalizeSecretName(given) };
  const names = await d.secrets.list();
  if (names.length === 0)
    return {
      value: undefined,
      notice: info(l10n.t('GPU Rental: the account has no environment variables. Add one with "Add Environment Variable".')),
    };
  return {
    value: await d.ask.pick({ title, placeholder: l10n.t('Values are not shown'), items: names.map((n) => ({ label: n, value: n })) }),
  };
}

/** Replaces a variable's value (asked in a password box); resolves true when it was replaced. */
export async function changeSecret(d: SecretFlowDeps, given?: string): Promise<Outcome<boolean>> {
  const picked = await variable(d, given, l10n.t('GPU Rental: Change the value of which variable?'));
  const name = picked.value;
  if (!name) return { value: false, notice: picked.notice };
  const value = await d.ask.input({
    title: l10n.t('GPU Rental: New value of {0}', name),
    prompt: l10n.t('Replaces the value of {0}; instances created from now on get the new one. It is not shown again after this.', name),
    password: true,
    validate: (v) => checkSecretValue(v, 'update'),
  });
  if (value === undefined || checkSecretValue(value, 'update')) return { value: false };
  await worded(name, d.secrets.update(name, value));
  return {
    value: true,
    notice: info(
      l10n.t(
        'GPU Rental: changed the value of {0}. Instances created from now on get the new value; existing ones keep the old one.',
        name,
      ),
    ),
  };
}

/** Deletes a variable after a confirmation; resolves true when it was deleted. */
export async function deleteSecret(d: SecretFlowDeps, given?: string): Promise<Outcome<boolean>> {
  const picked = await variable(d, given, l10n.t('GPU Rental: Delete which variable?'));
  const name = picked.value;
  if (!name) return { value: false, notice: picked.notice };
  const ok = await d.ask.confirm(
    l10n.t('Delete the environment variable {0} from the account?', name),
    l10n.t('Instances created from now on will not get it. Instances that have it already keep it. Its value cannot be read back.'),
    l10n.t('Delete Variable'),
  );
  if (!ok) return { value: false };
  await worded(name, d.secrets.delete(name));
  return { value: true };
}
