import * as vscode from 'vscode';
import { showWithActions } from '../pickers/buttons';

/** A core flow's message: how loudly, its whole text, and its buttons as identifiers. */
export interface Notice<A extends string = never> {
  severity: 'info' | 'warning' | 'error';
  text: string;
  actions?: readonly A[];
}

/** The window's function for a severity, read at each call (a test may wrap the window's functions). */
function showerOf(severity: Notice['severity']): typeof vscode.window.showInformationMessage {
  if (severity === 'error') return vscode.window.showErrorMessage;
  return severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
}

/** Shows a core flow's notice (nothing for undefined); resolves with the button picked. */
export async function notify<A extends string>(notice: Notice<A> | undefined, label?: (action: A) => string): Promise<A | undefined> {
  if (!notice) return undefined;
  const show = showerOf(notice.severity);
  if (!notice.actions?.length || !label) {
    void show(notice.text);
    return undefined;
  }
  return showWithActions(show, notice.text, notice.actions, label);
}
