import {
  BACK,
  CANCEL,
  type InputStepOptions,
  type PickStepOptions,
  type StepContext,
  type StepResult,
  type Steps,
} from '../../../src/core/rent/steps';

/** One answer of a scripted wizard user, in the order the steps are asked. */
export type StepAnswer =
  /** Picks the row whose label contains this text (it must have a value: information rows cannot be picked). */
  | { pick: string }
  /** Types this into the input box (the box's validation must accept it). */
  | { input: string }
  /** Accepts what the step proposes: the input's value, or the pick's active row (else its first row with a value). */
  | 'accept'
  | 'back'
  | 'cancel';

/** A step the wizard asked, as the user saw it. */
export interface AskedStep {
  kind: 'pick' | 'input';
  step: number;
  title: string;
  /** The pick's placeholder or the input's prompt (with what `describe` adds for the proposed value). */
  text: string;
  /** The input's proposed value. */
  value?: string;
  /** The pick's rows: label and description. */
  rows?: Array<{ label: string; description?: string; separator?: boolean; picks: boolean }>;
}

/**
 * A user who answers the wizard's steps from a script. A step beyond the script, or of another kind,
 * fails the test with what was asked, so a wizard that asks more (or less) than the test expects
 * cannot pass. `asked` records every step as shown.
 */
export function scriptedSteps(answers: readonly StepAnswer[]): Steps & { asked: AskedStep[]; left(): number } {
  const queue = [...answers];
  const asked: AskedStep[] = [];
  const next = (question: AskedStep): StepAnswer => {
    asked.push(question);
    const answer = queue.shift();
    if (answer === undefined)
      throw new Error(`the wizard asked step ${question.step} ("${question.text}") but the script has no more answers`);
    return answer;
  };
  return {
    asked,
    left: () => queue.length,
    pick<T>(ctx: StepContext, options: PickStepOptions<T>): Promise<StepResult<T>> {
      const rows = options.items.map((i) => ({
        label: i.label,
        description: i.description,
        separator: i.separator,
        picks: i.value !== undefined,
      }));
      const answer = next({ kind: 'pick', step: ctx.step, title: ctx.title, text: options.placeholder, rows });
      if (answer === 'back') return Promise.resolve(BACK);
      if (answer === 'cancel') return Promise.resolve(CANCEL);
      if (answer === 'accept') {
        const active =
          options.items.find((i) => i.value !== undefined && i.value === options.activeValue) ??
          options.items.find((i) => i.value !== undefined);
        return Promise.resolve(active!.value as T);
      }
      if (!('pick' in answer))
        throw new Error(`step ${ctx.step} is a pick ("${options.placeholder}") but the script answers ${JSON.stringify(answer)}`);
      const item = options.items.find((i) => !i.separator && i.label.includes(answer.pick));
      if (!item) throw new Error(`the script picks "${answer.pick}" but the rows are ${JSON.stringify(rows.map((r) => r.label))}`);
      if (item.value === undefined) throw new Error(`"${item.label}" only informs: picking it does nothing`);
      return Promise.resolve(item.value);
    },
    input(ctx: StepContext, options: InputStepOptions): Promise<StepResult<string>> {
      const said = options.describe?.(options.value);
      const text = said ? `${options.prompt} ${said}` : options.prompt;
      const answer = next({ kind: 'input', step: ctx.step, title: ctx.title, text, value: options.value });
      if (answer === 'back') return Promise.resolve(BACK);
      if (answer === 'cancel') return Promise.resolve(CANCEL);
      const typed = answer === 'accept' ? options.value : 'input' in answer ? answer.input : undefined;
      if (typed === undefined)
        throw new Error(`step ${ctx.step} is an input ("${options.prompt}") but the script answers ${JSON.stringify(answer)}`);
      const problem = options.validate?.(typed);
      if (problem) throw new Error(`the input box refuses "${typed}": ${problem}`);
      return Promise.resolve(typed);
    },
  };
}
