import { ONSTART_MAX_CHARS } from '../../api/limits';
import { l10n } from '../../l10n';
import { BACK, CANCEL, type PickItem } from '../steps';
import type { StepMove, WizardState } from './state';

/** Step 4: the label the instance is known (and a lost rent found) by. */
export async function labelStep(state: WizardState): Promise<StepMove> {
  const r = await state.ports.steps.input(state.ctx(4), {
    prompt: l10n.t('A label to recognise the instance by.'),
    value: state.plan.label ?? state.input.defaultLabel,
    validate: (v) =>
      v.trim() === ''
        ? l10n.t('A label is needed: it is how a lost rent is found again.')
        : v.length > 1024
          ? l10n.t('At most 1024 characters.')
          : undefined,
  });
  if (r === BACK || r === CANCEL) return r;
  state.plan.label = r.trim();
  return 'next';
}

type ScriptChoice = '' | 'type' | 'editor';

/**
 * Step 5: a start-up script: none, one typed, or the active editor's text. A script longer than the
 * service accepts is refused with a notice, and the step is asked again.
 */
export async function scriptStep(state: WizardState): Promise<StepMove> {
  const { plan, input, ports } = state;
  const ctx = state.ctx(5);
  const editor = input.activeEditor;
  const items: PickItem<ScriptChoice>[] = [
    { label: l10n.t('No start-up script'), value: '' },
    { label: l10n.t('$(edit) Type a command…'), description: l10n.t('run once the container starts'), value: 'type' },
    ...(editor
      ? [
          {
            label: l10n.t('$(file) Use {0}', editor.name),
            description: l10n.t('{0} characters from the active editor', editor.text.length),
            value: 'editor' as const,
          },
        ]
      : []),
  ];
  const picked = await ports.steps.pick(ctx, { placeholder: l10n.t('Start-up script (optional)'), items });
  if (picked === BACK || picked === CANCEL) return picked;
  const r =
    picked === 'type'
      ? await ports.steps.input(ctx, {
          prompt: l10n.t('Shell command run at start-up (use ; or && to chain).'),
          value: plan.onstart ?? '',
          validate: (v) => (v.length > ONSTART_MAX_CHARS ? l10n.t('At most {0} characters.', ONSTART_MAX_CHARS) : undefined),
        })
      : picked === 'editor' && editor
        ? editor.text
        : '';
  if (r === CANCEL) return r;
  // Back from the typed command comes back to this step's choice.
  if (r === BACK) return 'again';
  if (r.length > ONSTART_MAX_CHARS) {
    ports.notify({
      severity: 'error',
      text: l10n.t('GPU Rental: the start-up script has {0} characters; the service accepts at most {1}.', r.length, ONSTART_MAX_CHARS),
    });
    return 'again';
  }
  plan.onstart = r || undefined;
  return 'next';
}
