/**
 * The questions a flow asks the user, as a port: core flows ask through it and never see a
 * QuickPick or a dialog. `src/ui/pickers/prompts.ts` answers it with VS Code's boxes; unit tests answer it
 * with a script (`test/support/scriptedAsk.ts`); integration tests replace the answers through the
 * test API (`answerPrompts`).
 */

/** The questions a test or the UI supplies. Only `confirm` is required; `asker` in ui fills the rest with the real boxes. */
export interface Prompts {
  /** A modal confirmation; resolves true only when the user picks `action`. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
  /** A cancellable countdown; resolves true when it ran out (go ahead), false when the user cancelled it. */
  countdown?(message: (secondsLeft: number) => string, seconds: number, cancelLabel: string): Promise<boolean>;
  /** A one-line input box (a password box with `password`); resolves undefined when dismissed. */
  input?(options: InputPrompt): Promise<string | undefined>;
  /** A modal question with several buttons; resolves the one picked, undefined when dismissed. */
  choose?(message: string, detail: string, actions: readonly string[]): Promise<string | undefined>;
  /** A quick pick of one item; resolves its value, undefined when dismissed. */
  pick?<T>(options: PickPrompt<T>): Promise<T | undefined>;
}

/** Every question answered: what a core flow is handed. */
export type Ask = Required<Prompts>;

/** What an input box asks; `validate` says why the text is refused, and the box is not accepted until it is fine. */
export interface InputPrompt {
  title: string;
  prompt: string;
  placeholder?: string;
  value?: string;
  password?: boolean;
  validate?(value: string): string | undefined;
}

/** What a quick pick offers: its items in order (the first is the one Enter takes), each with the value it stands for. */
export interface PickPrompt<T> {
  title: string;
  items: ReadonlyArray<{ label: string; description?: string; detail?: string; value: T }>;
  placeholder?: string;
}

/**
 * The several-button question of prompts that answer confirmations only (older tests): the last
 * action is put as a one-button confirmation.
 */
export function chooseByConfirm(
  confirm: Prompts['confirm'],
): (message: string, detail: string, actions: readonly string[]) => Promise<string | undefined> {
  return async (message, detail, actions) => {
    const last = actions[actions.length - 1];
    return last !== undefined && (await confirm(message, detail, last)) ? last : undefined;
  };
}
