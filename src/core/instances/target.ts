import type { Instance } from '../api/instances';
import { l10n } from '../l10n';
import { instancePhase, type InstancePhase } from './phase';
import { presentInstance } from './present';

/** What a command run from the palette offers: no instance to act on (and why), or a pick of those it applies to. */
export type TargetChoice =
  | { kind: 'none'; message: string }
  | {
      kind: 'pick';
      title: string;
      placeholder: string;
      items: Array<{ label: string; description: string | undefined; instance: Instance }>;
    };

/**
 * The instances a command applies to, from the latest list: only those in one of `phases` (any
 * phase when undefined), each as its row reads, with its row's icon.
 */
export function targetChoice(
  instances: readonly Instance[],
  title: string,
  phases: readonly InstancePhase[] | undefined,
  nowMs: number,
): TargetChoice {
  const candidates = instances.filter((i) => !phases || phases.includes(instancePhase(i)));
  if (candidates.length === 0) {
    const message = !phases
      ? l10n.t('GPU Rental: no instance to act on.')
      : phases.length === 1
        ? l10n.t('GPU Rental: no instance to act on (it must be {0}).', phases[0]!)
        : l10n.t('GPU Rental: no instance to act on (it must be one of: {0}).', phases.join(', '));
    return { kind: 'none', message };
  }
  return {
    kind: 'pick',
    title: l10n.t('GPU Rental: {0}', title),
    placeholder: l10n.t('Pick an instance'),
    items: candidates.map((instance) => {
      const p = presentInstance(instance, { nowMs });
      return { label: `$(${p.icon.id.replace('~spin', '')}) ${p.label}`, description: p.description, instance };
    }),
  };
}
