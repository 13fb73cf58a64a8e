import * as vscode from 'vscode';

/** What a step of a multi-step input returns besides its value. */
export const BACK = Symbol('back');
export const CANCEL = Symbol('cancel');
export type StepResult<T> = T | typeof BACK | typeof CANCEL;

export interface StepContext {
  title: string;
  step: number;
  totalSteps: number;
}

export interface PickItem<T> extends vscode.QuickPickItem {
  value?: T;
}

/**
 * One quick pick as a step: the Back button (from step 2) goes back, Escape cancels, and when
 * `acceptTyped` is given, text that matches no item is accepted as a value of its own.
 */
export function pickStep<T>(
  ctx: StepContext,
  options: { placeholder: string; items: PickItem<T>[]; acceptTyped?: (text: string) => T | undefined; activeValue?: T },
): Promise<StepResult<T>> {
  const qp = vscode.window.createQuickPick<PickItem<T>>();
  qp.title = ctx.title;
  qp.step = ctx.step;
  qp.totalSteps = ctx.totalSteps;
  qp.placeholder = options.placeholder;
  qp.items = options.items;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  if (ctx.step > 1) qp.buttons = [vscode.QuickInputButtons.Back];
  const active = options.items.find((i) => i.value !== undefined && i.value === options.activeValue);
  if (active) qp.activeItems = [active];
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: StepResult<T>) => {
      if (settled) return;
      settled = true;
      resolve(r);
      qp.hide();
    };
    qp.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && finish(BACK));
    qp.onDidAccept(() => {
      const picked = qp.selectedItems[0] ?? qp.activeItems[0];
      const typed = qp.value.trim();
      if (picked && picked.value !== undefined && (!typed || picked.label.toLowerCase().includes(typed.toLowerCase())))
        return finish(picked.value);
      if (typed && options.acceptTyped) {
        const value = options.acceptTyped(typed);
        if (value !== undefined) return finish(value);
      }
      if (picked?.value !== undefined) finish(picked.value);
    });
    qp.onDidHide(() => {
      finish(CANCEL);
      qp.dispose();
    });
    qp.show();
  });
}

/** One input box as a step; `describe` rewrites the prompt as the user types (e.g. a price). */
export function inputStep(
  ctx: StepContext,
  options: {
    prompt: string;
    value: string;
    placeholder?: string;
    validate?: (v: string) => string | undefined;
    describe?: (v: string) => string;
    password?: boolean;
  },
): Promise<StepResult<string>> {
  const box = vscode.window.createInputBox();
  box.title = ctx.title;
  box.step = ctx.step;
  box.totalSteps = ctx.totalSteps;
  box.value = options.value;
  box.placeholder = options.placeholder;
  box.ignoreFocusOut = true;
  box.password = options.password ?? false;
  if (ctx.step > 1) box.buttons = [vscode.QuickInputButtons.Back];
  const update = () => {
    box.prompt = options.describe ? `${options.prompt} ${options.describe(box.value)}` : options.prompt;
    box.validationMessage = options.validate?.(box.value);
  };
  update();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: StepResult<string>) => {
      if (settled) return;
      settled = true;
      resolve(r);
      box.hide();
    };
    box.onDidChangeValue(update);
    box.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && finish(BACK));
    box.onDidAccept(() => {
      update();
      if (!box.validationMessage) finish(box.value);
    });
    box.onDidHide(() => {
      finish(CANCEL);
      box.dispose();
    });
    box.show();
  });
}
