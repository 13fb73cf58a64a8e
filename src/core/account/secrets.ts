/**
 * The account's environment variables ("secrets") and a rent's own ones: what a name and a value
 * may be, how a row and a rent's confirmation show them (names only, never a value), and what a
 * refusal of the service means in words.
 */
import { ApiError } from '../api/errors';
import type { ItemPresentation } from './present';
import { l10n } from '../l10n';

/** A name as the service documents it: a letter or underscore, then letters, digits and underscores. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The only characters the service documents for a new variable's value. */
const CREATE_VALUE = /^[A-Za-z0-9_.-]+$/;
/** Whether a value holds a character it can never carry into a container's environment (a line break, NUL, DEL). */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** What a name must look like, said once for every message. */
const NAME_RULE = l10n.t('letters, digits and underscores, not starting with a digit (for example HF_TOKEN)');
/** What a new value may hold, said once for every message. */
export const CREATE_VALUE_RULE = l10n.t('letters A-Z and a-z, digits 0-9, and the three characters _ - .');

/**
 * Names the service itself sets in every container: a variable of that name, the account's (added
 * to every instance) or a rent's, would replace the instance's own key or id, which the idle
 * watchdog and stop-at-end jobs use to stop the instance. Compared upper-cased: the account's names
 * are stored so.
 */
const SERVICE_NAMES = new Set(['CONTAINER_API_KEY', 'CONTAINER_ID']);

/**
 * Why a variable name is refused, or undefined when it is fine: for the account's variables and,
 * through checkRentEnvName, a rent's, so both refuse a name the service sets with the same words.
 */
export function checkSecretName(name: string): string | undefined {
  const n = name.trim();
  if (n === '') return l10n.t('Enter a name.');
  if (!NAME.test(n)) return l10n.t('A name may use only {0}.', NAME_RULE);
  if (SERVICE_NAMES.has(n.toUpperCase()))
    return l10n.t("{0} is set by the service in every instance (the instance's own key and id); pick another name.", n);
  return undefined;
}

/** The name as the service stores it: trimmed and upper-cased. */
export function normalizeSecretName(name: string): string {
  return name.trim().toUpperCase();
}

/**
 * Why a value is refused, or undefined when it is fine. `create` holds a new variable to the
 * characters the service documents for it, and names the first one that is not among them; a
 * changed value is only checked to be non-empty and on one line, as the service documents.
 */
export function checkSecretValue(value: string, use: 'create' | 'update'): string | undefined {
  if (value === '') return l10n.t('Enter a value.');
  if (hasControl(value)) return l10n.t('A value must be on one line, without control characters.');
  if (use === 'create' && !CREATE_VALUE.test(value)) {
    const bad = [...value].find((c) => !CREATE_VALUE.test(c)) ?? '';
    const shown = bad === ' ' ? 'a space' : `"${bad}"`;
    return l10n.t("The service accepts a new variable's value only with {0}; this one has {1}.", CREATE_VALUE_RULE, shown);
  }
  return undefined;
}

/** Why a name is refused for a rent's own variable, or undefined; `taken` are the names already added to this rent. */
export function checkRentEnvName(name: string, taken: readonly string[]): string | undefined {
  const n = name.trim();
  const plain = checkSecretName(n);
  if (plain) return plain;
  if (taken.includes(n)) return l10n.t('{0} is already set for this rent; remove it first to change it.', n);
  return undefined;
}

/** Why a value is refused for a rent's own variable (it goes into the create request as given), or undefined. */
export function checkRentEnvValue(value: string): string | undefined {
  if (value === '') return l10n.t('Enter a value.');
  if (hasControl(value)) return l10n.t('A value must be on one line, without control characters.');
  return undefined;
}

/** One of the account's variables: its name, never its value. */
export function presentSecret(name: string): ItemPresentation {
  return {
    id: `secret-${name}`,
    label: name,
    description: l10n.t('value hidden'),
    tooltip: l10n.t(
      '{0}: the service adds it to the environment of every instance created from now on. Its value is not shown after it is entered; Change Value replaces it.',
      name,
    ),
    icon: 'symbol-variable',
    contextValue: 'secret',
  };
}

/** The hint on a rent's environment step: what it adds, and what the service adds by itself. */
export function rentEnvHint(accountNames: readonly string[] | undefined): string {
  const account = accountNames?.length
    ? accountNames.length === 1
      ? l10n.t("{0} from your account's variables is added by the service", accountNames[0]!)
      : l10n.t("{0} from your account's variables are added by the service", accountNames.join(', '))
    : l10n.t("Your account's variables (Account view, Environment Variables) are added by the service");
  return l10n.t('For this rent only; values are not shown, logged or kept. {0}.', account);
}

/** How the confirmation lists a rent's own variables: their names, never a value. */
export function describeRentEnv(env: Readonly<Record<string, string>> | undefined): string | undefined {
  const names = Object.keys(env ?? {});
  if (names.length === 0) return undefined;
  return l10n.t('Environment: {0} (values hidden)', names.join(', '));
}

/** The words for each refusal code the service documents for `/api/v0/secrets/`. */
const REFUSALS: Readonly<Record<string, (name: string) => string>> = {
  missing_input: () => l10n.t('the service says the name or the value is missing. Enter both and try again.'),
  empty_input: () => l10n.t('the service refused an empty name or value. Enter a value and try again.'),
  existing_key: (name) => l10n.t('{0} already exists on the account. Use Change Value on it to replace its value.', name),
  max_secrets: () => l10n.t('the account holds as many variables as the service allows. Delete one you no longer need, then add this one.'),
  invalid_characters: () =>
    l10n.t('the service refused the characters. A name may use only {0}; a new value only {1}.', NAME_RULE, CREATE_VALUE_RULE),
  input_too_long: () => l10n.t('the value is longer than the service accepts. Use a shorter value.'),
  nonexistent_key: (name) =>
    l10n.t(
      'there is no variable named {0} on the account (it may have been deleted elsewhere). Refresh the Account view and try again.',
      name,
    ),
};

/**
 * A refusal of the service with a documented code, as an error whose message says what happened
 * and what to do; anything else (a missing permission, a network fault) is returned as it was,
 * so the one error guard answers it with its usual fix.
 */
export function explainSecretError(error: unknown, name: string): unknown {
  if (!(error instanceof ApiError) || error.kind !== 'bad_request' || !error.code) return error;
  const words = REFUSALS[error.code];
  return words ? new Error(l10n.t('Could not {0}: {1}', error.action, words(name))) : error;
}
