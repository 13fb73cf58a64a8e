import type { Ask, InputPrompt, PickPrompt } from '../../src/core/prompts';

/** One answer a scripted user gives, in the order the flow asks. */
export type Answer =
  | { confirm: boolean }
  | { countdown: boolean }
  | { input: string | undefined }
  | { choose: string | undefined }
  /** Picks the item whose label contains this text; undefined dismisses the pick. */
  | { pick: string | undefined };

/** A question the flow asked, as the user saw it. */
export interface Asked {
  kind: 'confirm' | 'countdown' | 'input' | 'choose' | 'pick';
  /** The message, the input's prompt or the pick's title. */
  text: string;
  /** The detail of a dialog, the items' labels of a pick, or the buttons of a choice. */
  detail: string;
  options?: readonly string[];
}

/**
 * A user who answers from a script: each question takes the next answer, which must be of the
 * question's kind. A question beyond the script, or of another kind, fails the test with what was
 * asked, so a flow that asks more (or less) than the test expects cannot pass.
 */
export function scriptedAsk(answers: readonly Answer[]): Ask & { asked: Asked[]; left(): number } {
  const queue = [...answers];
  const asked: Asked[] = [];
  const next = <K extends Asked['kind']>(kind: K, question: Asked): Answer => {
    asked.push(question);
    const answer = queue.shift();
    if (!answer || !(kind in answer))
      throw new Error(
        `the flow asked a ${kind} ("${question.text}") but the script answers ${answer ? JSON.stringify(answer) : 'nothing more'}`,
      );
    return answer;
  };
  return {
    asked,
    left: () => queue.length,
    confirm(message, detail, action) {
      const a = next('confirm', { kind: 'confirm', text: message, detail, options: [action] }) as { confirm: boolean };
      return Promise.resolve(a.confirm);
    },
    countdown(message, seconds) {
      const a = next('countdown', { kind: 'countdown', text: message(seconds), detail: '' }) as { countdown: boolean };
      return Promise.resolve(a.countdown);
    },
    input(options: InputPrompt) {
      const a = next('input', { kind: 'input', text: options.prompt, detail: options.title }) as { input: string | undefined };
      if (a.input !== undefined && options.validate) {
        const problem = options.validate(a.input);
        if (problem) throw new Error(`the input box refuses "${a.input}": ${problem}`);
      }
      return Promise.resolve(a.input);
    },
    choose(message, detail, actions) {
      const a = next('choose', { kind: 'choose', text: message, detail, options: actions }) as { choose: string | undefined };
      if (a.choose !== undefined && !actions.includes(a.choose))
        throw new Error(`the script chooses "${a.choose}" but the buttons are ${JSON.stringify(actions)}`);
      return Promise.resolve(a.choose);
    },
    pick<T>(options: PickPrompt<T>) {
      const labels = options.items.map((i) => i.label);
      const a = next('pick', { kind: 'pick', text: options.title, detail: labels.join('\n'), options: labels }) as {
        pick: string | undefined;
      };
      if (a.pick === undefined) return Promise.resolve(undefined);
      const item = options.items.find((i) => i.label.includes(a.pick!));
      if (!item) throw new Error(`the script picks "${a.pick}" but the items are ${JSON.stringify(labels)}`);
      return Promise.resolve(item.value);
    },
  };
}
