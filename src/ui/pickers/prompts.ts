import * as vscode from 'vscode';

import { chooseByConfirm, type Ask, type InputPrompt, type PickPrompt, type Prompts } from '../../core/prompts';

export type { Ask, InputPrompt, PickPrompt, Prompts } from '../../core/prompts';

/**
 * The port's answers for a core flow: the prompts' own where they give them (tests give some), VS
 * Code's boxes for the rest.
 */
export function asker(prompts: Prompts): Ask {
  return {
    confirm: (message, detail, action) => prompts.confirm(message, detail, action),
    countdown: prompts.countdown ? (m, s, c) => prompts.countdown!(m, s, c) : progressCountdown,
    input: inputOf(prompts),
    choose: chooseOf(prompts),
    pick: pickOf(prompts),
  };
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
  return chooseByConfirm((message, detail, action) => prompts.confirm(message, detail, action));
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

/**
 * A notification with a progress bar that counts down; its Cancel button keeps things as they are.
 * A question answered by Cancel (Prompts.countdown), not a flow's progress: it stays outside the
 * Progress port (pickers/progress.ts), whose Cancel aborts work rather than answering.
 */
export function progressCountdown(message: (secondsLeft: number) => string, seconds: number): Promise<boolean> {
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental'), cancellable: true },
      (progress, token) => {
        return new Promise<boolean>((resolve) => {
          let left = Math.max(0, Math.round(seconds));
          const end = (answer: boolean) => {
            clearInterval(timer);
            cancel.dispose();
            resolve(answer);
          };
          progress.report({ message: message(left) });
          const timer = setInterval(() => {
            left--;
            if (left <= 0) end(true);
            else progress.report({ message: message(left), increment: 100 / Math.max(1, seconds) });
          }, 1000);
          const cancel = token.onCancellationRequested(() => end(false));
          if (left === 0) end(true);
        });
      },
    ),
  );
}
