import * as vscode from 'vscode';

/**
 * The questions commands ask before they spend or delete. Integration tests replace this object
 * to answer them, since a modal dialog cannot be clicked from inside the extension host.
 */
export interface Prompts {
  /** A modal confirmation; resolves true only when the user picks `action`. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
}

export const modalPrompts: Prompts = {
  async confirm(message, detail, action) {
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, action);
    return choice === action;
  },
};
