import * as vscode from 'vscode';
import {
  BACK,
  CANCEL,
  type InputStepOptions,
  type PickItem,
  type PickStepOptions,
  type StepContext,
  type StepResult,
  type Steps,
} from '../../core/rent/steps';

type QuickItem<T> = vscode.QuickPickItem & { value?: T };

/** The rent wizard's steps as VS Code's quick pick and input box, each with the Back button from step 2. */
export const quickInputSteps: Steps = { pick: pickStep, input: inputStep };

function toQuickItem<T>(item: PickItem<T>): QuickItem<T> {
  if (item.separator) return { label: item.label, kind: vscode.QuickPickItemKind.Separator };
  return { label: item.label, description: item.description, detail: item.detail, value: item.value };
}

/**
 * One quick pick as a step: the Back button (from step 2) goes back, Escape cancels, and when
 * `acceptTyped` is given, text that matches no item is accepted as a value of its own.
 */
function pickStep<T>(ctx: StepContext, options: PickStepOptions<T>): Promise<StepResult<T>> {
  const qp = vscode.window.createQuickPick<QuickItem<T>>();
  const items = options.items.map(toQuickItem);
  qp.title = ctx.title;
  qp.step = ctx.step;
  qp.totalSteps = ctx.totalSteps;
  qp.placeholder = options.placeholder;
  qp.items = items;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  if (ctx.step > 1) qp.buttons = [vscode.QuickInputButtons.Back];
  const active = items.find((i) => i.value !== undefined && i.value === options.activeValue);
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

/** One input box as a step; `describe` adds a sentence to the prompt as the user types (e.g. a price). */
function inputStep(ctx: StepContext, options: InputStepOptions): Promise<StepResult<string>> {
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
    const said = options.describe?.(box.value);
    box.prompt = said ? `${options.prompt} ${said}` : options.prompt;
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
