import * as vscode from 'vscode';
import { showWithActions } from '../buttons';

/** A core flow's message: how loudly, its whole text, and its buttons as identifiers. */
export interface Notice<A extends string = never> {
  severity: 'info' | 'warning' | 'error';
  text: string;
  actions?: readonly A[];
}

const SHOW = {
  info: vscode.window.showInformationMessage,
  warning: vscode.window.showWarningMessage,
  error: vscode.window.showErrorMessage,
} as const;

/** Shows a core flow's notice (nothing for undefined); resolves with the button picked. */
export async function notify<A extends string>(notice: Notice<A> | undefined, label?: (action: A) => string): Promise<A | undefined> {
  if (!notice) return undefined;
  const show = SHOW[notice.severity];
  if (!notice.actions?.length || !label) {
    void show(notice.text);
    return undefined;
  }
  return showWithActions(show, notice.text, notice.actions, label);
}
