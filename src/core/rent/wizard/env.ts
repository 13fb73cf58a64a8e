import { checkRentEnvName, checkRentEnvValue, rentEnvHint } from '../../account/secrets';
import { l10n } from '../../l10n';
import { BACK, CANCEL, type PickItem, type StepContext, type Steps } from '../steps';

type EnvChoice = 'add' | 'done' | { remove: string };

/**
 * The confirmation's "Environment variables…": adds NAME=value pairs for this rent only (a value in
 * a password box), or removes one, until Done. Values are kept only in the plan that is sent; the
 * list shows names. Resolves with the variables (Back and Escape keep what was there).
 */
export async function envStep(
  steps: Steps,
  ctx: StepContext,
  current: Readonly<Record<string, string>>,
  accountNames: readonly string[] | undefined,
): Promise<Record<string, string>> {
  const env: Record<string, string> = { ...current };
  for (;;) {
    const names = Object.keys(env);
    const items: PickItem<EnvChoice>[] = [
      {
        label: l10n.t('$(check) Done'),
        description: names.length ? names.join(', ') : l10n.t('no variables for this rent'),
        value: 'done',
      },
      { label: l10n.t('$(add) Add a variable…'), description: l10n.t('NAME, then its value'), value: 'add' },
      ...names.map((name) => ({
        label: l10n.t('$(symbol-variable) {0}', name),
        description: l10n.t('value hidden · select to remove'),
        value: { remove: name } as EnvChoice,
      })),
    ];
    const picked = await steps.pick(ctx, { placeholder: rentEnvHint(accountNames), items });
    if (picked === BACK || picked === CANCEL || picked === 'done') return env;
    if (typeof picked === 'object') {
      delete env[picked.remove];
      continue;
    }
    const name = await steps.input(ctx, {
      prompt: l10n.t('Name of the variable (letters, digits and underscores), for this rent only.'),
      value: '',
      placeholder: 'MODEL_ID',
      validate: (v) => checkRentEnvName(v, Object.keys(env)),
    });
    if (typeof name !== 'string') continue;
    const value = await steps.input(ctx, {
      prompt: l10n.t('Value of {0}. It is sent with the rent and not shown again.', name.trim()),
      value: '',
      password: true,
      validate: checkRentEnvValue,
    });
    if (typeof value === 'string') env[name.trim()] = value;
  }
}
