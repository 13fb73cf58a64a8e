import * as vscode from 'vscode';
import { ApiError } from '../../core/api/errors';
import { COMMANDS } from '../../core/ids';
import type { Services } from '../services';

/**
 * Shows a failed command's error with the button that fixes it: a rejected key offers Set API Key,
 * anything else offers the log. The message already says what happened and what to do. It does not
 * wait for the user, so the command that failed finishes at once.
 */
export function showApiError(s: Services, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  s.logger.error(error instanceof ApiError ? error.toLogString() : message);
  // Only a key the service called invalid signs the window out; a refused action (a missing
  // permission, a two-factor login needed) leaves the session signed in.
  if (error instanceof ApiError && error.kind === 'auth') s.session.reportError(error);
  // A scoped key without the permission: the message names it; the buttons lead to another key.
  // With several profiles, another one may be the account that has the permission. An action
  // that needs a two-factor login is done on the web console: no key can do it.
  const other = s.profiles.list().length > 1 ? ['Switch Profile'] : [];
  const actions =
    error instanceof ApiError && error.kind === 'auth'
      ? ['Set API Key', 'Show Logs']
      : error instanceof ApiError && error.kind === 'forbidden'
        ? error.reason === 'two_factor'
          ? ['Open Web Console', 'Show Logs']
          : ['Manage API Keys', 'Set API Key', ...other]
        : ['Show Logs'];
  void vscode.window.showErrorMessage(`GPU Rental: ${message}`, ...actions).then((choice) => {
    if (choice === 'Open Web Console') void openConsole(s);
    if (choice === 'Set API Key') void vscode.commands.executeCommand(COMMANDS.setApiKey);
    if (choice === 'Switch Profile') void vscode.commands.executeCommand(COMMANDS.switchProfile);
    if (choice === 'Manage API Keys') void vscode.commands.executeCommand(COMMANDS.showAccount);
    if (choice === 'Show Logs') s.log.show();
  });
}

/** The service's web console: the base URL in use (the API and the console share a host). */
async function openConsole(s: Services): Promise<void> {
  const base = s.session.normalizedBaseUrl;
  if (base) await vscode.env.openExternal(vscode.Uri.parse(base));
}

/** Wraps a command body: a failure becomes the message with its fix, and the command resolves undefined. */
export function guarded(s: Services) {
  return <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await fn(...args);
      } catch (error) {
        showApiError(s, error);
        return undefined;
      }
    };
}
