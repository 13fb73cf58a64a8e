/**
 * The port a multi-step flow (the rent wizard) asks through: one quick pick or input box per step,
 * each with Back (from step 2) and Cancel (Escape). No vscode types: `src/ui/pickers/steps.ts` answers
 * it with createQuickPick and createInputBox; unit tests answer it from a script.
 */

/** What a step returns besides its value: the user went back a step, or cancelled the whole flow. */
export const BACK = Symbol('back');
export const CANCEL = Symbol('cancel');
export type StepResult<T> = T | typeof BACK | typeof CANCEL;

/** The box's title and where it stands ("2/6"). */
export interface StepContext {
  title: string;
  step: number;
  totalSteps: number;
}

/** One row of a pick step. A row without a value only informs: accepting it does nothing. */
export interface PickItem<T> {
  label: string;
  description?: string;
  detail?: string;
  /** A separator line (with `label` as its heading, when not empty), never picked. */
  separator?: boolean;
  value?: T;
}

export interface PickStepOptions<T> {
  placeholder: string;
  items: PickItem<T>[];
  /** Text that matches no item is accepted as a value of its own when this gives one. */
  acceptTyped?: (text: string) => T | undefined;
  /** The item with this value is the one Enter takes at first. */
  activeValue?: T;
}

export interface InputStepOptions {
  prompt: string;
  value: string;
  placeholder?: string;
  /** Why the text is refused; the box is not accepted until this says nothing. */
  validate?: (value: string) => string | undefined;
  /** A sentence shown after the prompt as the user types (e.g. a price). */
  describe?: (value: string) => string;
  password?: boolean;
}

/** The steps of a multi-step flow, as the user answers them. */
export interface Steps {
  pick<T>(ctx: StepContext, options: PickStepOptions<T>): Promise<StepResult<T>>;
  input(ctx: StepContext, options: InputStepOptions): Promise<StepResult<string>>;
}

/** Whether a step's answer ends the way forward: Back or Cancel. */
export function isStepExit(r: unknown): r is typeof BACK | typeof CANCEL {
  return r === BACK || r === CANCEL;
}
