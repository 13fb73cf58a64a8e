import * as vscode from 'vscode';
import type { Notice, Severity } from '../../core/notice';
import { showWithActions } from './buttons';

/** The window's function for a severity, read at each call (a test may wrap the window's functions). */
function showerOf(severity: Severity): typeof vscode.window.showInformationMessage {
  if (severity === 'error') return vscode.window.showErrorMessage;
  return severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
}

/**
 * Shows a core flow's notice (nothing for undefined) with its buttons worded by `label`; resolves
 * with the action picked, undefined when dismissed or when it has no buttons.
 */
export async function notify<A extends string>(notice: Notice<A> | undefined, label?: (action: A) => string): Promise<A | undefined> {
  if (!notice) return undefined;
  const show = showerOf(notice.severity);
  if (!notice.actions?.length || !label) {
    void show(notice.text);
    return undefined;
  }
  return showWithActions(show, notice.text, notice.actions, label);
}
