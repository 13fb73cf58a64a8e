import * as vscode from 'vscode';
import { creditOf } from '../../core/api/account';
import { ApiError } from '../../core/api/errors';
import { COMMANDS } from '../../core/ids';
import { AccountFrozen } from '../../core/session/session';
import type { Services } from '../services';
import { formatDollars } from '../../core/format';

/** Set API key, sign out, refresh and show logs. */
export function registerSessionCommands(s: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.setApiKey, (key?: unknown) => setApiKey(s, key)),
    vscode.commands.registerCommand(COMMANDS.signOut, () => signOut(s)),
    vscode.commands.registerCommand(COMMANDS.refresh, () => refresh(s)),
    vscode.commands.registerCommand(COMMANDS.showLogs, () => s.log.show()),
  ];
}

/**
 * Asks for a key (or takes it as the argument, for automation), checks it against the service and
 * only then stores it. Resolves true when a key was stored.
 */
async function setApiKey(s: Services, key: unknown): Promise<boolean> {
  if (typeof key === 'string' && key.trim()) {
    try {
      const user = await s.session.signIn(key);
      void vscode.window.showInformationMessage(signedInMessage(s, user?.email, user && (creditOf(user) ?? null)));
      return true;
    } catch (error) {
      void showKeyError(s, error);
      return false;
    }
  }
  return promptForKey(s);
}

function promptForKey(s: Services): Promise<boolean> {
  const input = vscode.window.createInputBox();
  input.title = 'GPU Rental: Set API Key';
  input.prompt = `Paste an API key for ${s.where}. It is checked with the service, then kept in VS Code's secret storage.`;
  input.placeholder = 'API key';
  input.password = true;
  input.ignoreFocusOut = true;
  return new Promise<boolean>((resolve) => {
    let done = false;
    input.onDidChangeValue(() => (input.validationMessage = undefined));
    input.onDidAccept(async () => {
      const value = input.value.trim();
      if (!value) {
        input.validationMessage = 'Paste the API key first.';
        return;
      }
      input.busy = true;
      input.enabled = false;
      try {
        const user = await s.session.signIn(value);
        done = true;
        input.hide();
        void vscode.window.showInformationMessage(signedInMessage(s, user?.email, user && (creditOf(user) ?? null)));
        resolve(true);
      } catch (error) {
        s.logger.warn(`The API key was not stored: ${describe(error)}`);
        input.validationMessage = keyProblem(error);
      } finally {
        input.busy = false;
        input.enabled = true;
      }
    });
    input.onDidHide(() => {
      input.dispose();
      if (!done) resolve(false);
    });
    input.show();
  });
}

async function signOut(s: Services): Promise<void> {
  if (!s.session.hasKey) {
    void vscode.window.showInformationMessage('GPU Rental: no API key is set for this service.');
    return;
  }
  try {
    await s.session.signOut();
  } catch (error) {
    // A rent whose outcome is not known yet keeps the key: the account must still be checked.
    if (!(error instanceof AccountFrozen)) throw error;
    void vscode.window.showWarningMessage(`GPU Rental: not signed out. ${error.message}`);
    return;
  }
  await s.rememberSignOut();
  void vscode.window.showInformationMessage(`GPU Rental: signed out. The API key for ${s.where} was removed from this machine.`);
}

async function refresh(s: Services): Promise<void> {
  // Also looks at once for the instance of a rent whose answer was lost.
  s.renter.checkNow();
  await s.session.refresh();
  await s.poller.refresh();
  s.refreshViews();
}

/** `credit` null: the account was read but reports no credit; undefined: the key may not read it. */
function signedInMessage(s: Services, email: string | null | undefined, credit: number | null | undefined): string {
  const who = email ? ` as ${email}` : '';
  const money =
    credit === undefined
      ? ''
      : credit === null
        ? ' Credit: unknown (the service did not report it).'
        : ` Credit: ${formatDollars(credit)}.`;
  return `GPU Rental: signed in to ${s.where}${who}.${money}`;
}

/** The reason a key was not accepted, phrased for the input box. */
function keyProblem(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.kind === 'auth')
      return `The service refused this key (HTTP ${error.status ?? 401}): it may be mistyped or revoked. It was not stored.`;
    return `${error.message} The key was not stored.`;
  }
  return `${describe(error)} The key was not stored.`;
}

async function showKeyError(s: Services, error: unknown): Promise<void> {
  s.logger.warn(`The API key was not stored: ${describe(error)}`);
  const choice = await vscode.window.showErrorMessage(`GPU Rental: ${keyProblem(error)}`, 'Set API Key', 'Show Logs');
  if (choice === 'Set API Key') void vscode.commands.executeCommand(COMMANDS.setApiKey);
  if (choice === 'Show Logs') s.log.show();
}

function describe(error: unknown): string {
  return error instanceof ApiError ? error.toLogString() : error instanceof Error ? error.message : String(error);
}
