/**
 * The rent wizard: six steps with Back on each (image or template, disk, connection, label, start-up
 * script, the confirmation with the full price), asked through the Steps port. It decides what each
 * step offers and what Back, Cancel and each confirmation row do; `src/ui/pickers/rentWizard.ts` only hands
 * it VS Code's boxes.
 */
import { l10n } from '../../l10n';
import { presentOffer } from '../../offers/present';
import type { RentPlan } from '../plan';
import { BACK, CANCEL } from '../steps';
import { confirmStep } from './confirm';
import { connectionStep, diskStep } from './machine';
import { labelStep, scriptStep } from './labelAndScript';
import { sourceStep } from './source';
import { WIZARD_STEPS, wizardState, type StepMove, type WizardInput, type WizardPorts, type WizardState } from './state';

export type { WizardInput, WizardPorts } from './state';
export { IMAGE_PRESETS } from './source';
export type { VolumeChoice } from './volume';

const STEPS: ReadonlyArray<(state: WizardState) => Promise<StepMove>> = [
  sourceStep,
  diskStep,
  connectionStep,
  labelStep,
  scriptStep,
  confirmStep,
];

/** Asks for a rent of `input.offer`; resolves with the plan the user confirmed, or undefined when cancelled. */
export async function rentWizard(input: WizardInput, ports: WizardPorts): Promise<RentPlan | undefined> {
  const title = l10n.t('Rent {0} (offer {1})', presentOffer(input.offer).label, input.offer.id);
  const state = wizardState(input, ports, title);
  // Rent With Template has its template: the first step is skipped (Back still reaches it).
  let step = input.template ? 2 : 1;
  while (step <= WIZARD_STEPS) {
    const move = await STEPS[step - 1]!(state);
    if (move === CANCEL) return undefined;
    if (move === BACK) step = Math.max(1, step - 1);
    else if (move === 'next') step++;
  }
  return state.plan as RentPlan;
}
