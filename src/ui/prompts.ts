import * as vscode from 'vscode';

/**
 * The questions commands ask before they spend or delete. Integration tests replace this object
 * to answer them, since a modal dialog cannot be clicked from inside the extension host.
 */
export interface Prompts {
  /** A modal confirmation; resolves true only when the user picks `action`. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
  /**
   * A cancellable countdown; resolves true when it ran out (go ahead), false when the user
   * cancelled it. Optional so tests that only answer confirmations need not provide it.
   */
  countdown?(message: (secondsLeft: number) => string, seconds: number, cancelLabel: string): Promise<boolean>;
  /**
   * A one-line input box (a password box with `password`); resolves undefined when dismissed.
   * Optional, like `countdown`: a command asks `inputOf(prompts)`, which falls back to the real box.
   */
  input?(options: InputPrompt): Promise<string | undefined>;
  /**
   * A modal question with several buttons; resolves the one picked, undefined when dismissed.
   * Optional: a command asks `chooseOf(prompts)`, which puts the last action to `confirm` when the
   * prompts answer confirmations only.
   */
  choose?(message: string, detail: string, actions: readonly string[]): Promise<string | undefined>;
  /**
   * A quick pick of one item; resolves its value, undefined when dismissed. Optional, like `input`:
   * a command asks `pickOf(prompts)`, which falls back to the real quick pick.
   */
  pick?<T>(options: PickPrompt<T>): Promise<T | undefined>;
}

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

/** The prompts' input box, or the real one when the prompts answer confirmations only. */
export function inputOf(prompts: Prompts): (options: InputPrompt) => Promise<string | undefined> {
  return prompts.input ? (options) => prompts.input!(options) : showInput;
}

function showInput(options: InputPrompt): Promise<string | undefined> {
  return Promise.resolve(
    vscode.window.showInputBox({
      title: options.title,
      prompt: options.prompt,
      placeHolder: options.placeholder,
      value: options.value,
      password: options.password ?? false,
      ignoreFocusOut: true,
      validateInput: options.validate ? (v) => options.validate!(v) : undefined,
    }),
  );
}

/** The prompts' several-button question; prompts that answer confirmations only (tests) get the last action as a one-button `confirm`. */
export function chooseOf(prompts: Prompts): (message: string, detail: string, actions: readonly string[]) => Promise<string | undefined> {
  if (prompts.choose) return (message, detail, actions) => prompts.choose!(message, detail, actions);
  return async (message, detail, actions) => {
    const last = actions[actions.length - 1];
    return last !== undefined && (await prompts.confirm(message, detail, last)) ? last : undefined;
  };
}

async function showChoice(message: string, detail: string, actions: readonly string[]): Promise<string | undefined> {
  return vscode.window.showWarningMessage(message, { modal: true, detail }, ...actions);
}

/** The prompts' quick pick, or the real one when the prompts answer confirmations only. */
export function pickOf(prompts: Prompts): <T>(options: PickPrompt<T>) => Promise<T | undefined> {
  return prompts.pick ? (options) => prompts.pick!(options) : showPick;
}

async function showPick<T>(options: PickPrompt<T>): Promise<T | undefined> {
  const picked = await vscode.window.showQuickPick(options.items, {
    title: options.title,
    placeHolder: options.placeholder,
    ignoreFocusOut: true,
  });
  return picked?.value;
}

export const modalPrompts: Prompts = {
  async confirm(message, detail, action) {
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, action);
    return choice === action;
  },
  countdown: progressCountdown,
  input: showInput,
  choose: showChoice,
  pick: showPick,
};

/** A notification with a progress bar that counts down; its Cancel button keeps things as they are. */
export function progressCountdown(message: (secondsLeft: number) => string, seconds: number): Promise<boolean> {
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental'), cancellable: true },
      (progress, token) => {
        return new Promise<boolean>((resolve) => {
          let left = Math.max(0, Math.round(seconds));
          progress.report({ message: message(left) });
          const timer = setInterval(() => {
            left--;
            if (left <= 0) {
              clearInterval(timer);
              resolve(true);
            } else progress.report({ message: message(left), increment: 100 / Math.max(1, seconds) });
          }, 1000);
          if (left === 0) {
            clearInterval(timer);
            resolve(true);
          }
          token.onCancellationRequested(() => {
            clearInterval(timer);
            resolve(false);
          });
        });
      },
    ),
  );
}
