import * as vscode from 'vscode';
import { errorActionLabel, errorActions } from '../../core/api/errorPolicy';
import { showWithActions } from '../pickers/buttons';
import { ApiError } from '../../core/api/errors';
import { COMMANDS } from '../../core/ids';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { ShowError } from '../registry';

/** What showing a failed command's error needs. */
export interface ErrorShowingDeps {
  readonly logger: Logger;
  /** The "GPU Rental" channel, for Show Logs. */
  readonly log: { show(): void };
  readonly session: Pick<Session, 'reportError' | 'normalizedBaseUrl'>;
  /** How many profiles there are: with several, a refused action may be allowed in another. */
  readonly profileCount: () => number;
}

export type { ShowError } from '../registry';

/**
 * Shows a failed command's error with the buttons that fix it (which ones, and whether the window
 * is signed out, is decided by `errorActions` in core). The message already says what happened and
 * what to do. It does not wait for the user.
 */
export function showApiError(deps: ErrorShowingDeps, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  deps.logger.error(error instanceof ApiError ? error.toLogString() : message);
  const response = errorActions(error, { profiles: deps.profileCount() });
  if (response.signOut) deps.session.reportError(error);
  void showWithActions(vscode.window.showErrorMessage, vscode.l10n.t('GPU Rental: {0}', message), response.actions, errorActionLabel).then(
    (choice) => {
      if (choice === 'Open Web Console') void openConsole(deps);
      if (choice === 'Set API Key') void vscode.commands.executeCommand(COMMANDS.setApiKey);
      if (choice === 'Switch Profile') void vscode.commands.executeCommand(COMMANDS.switchProfile);
      if (choice === 'Manage API Keys') void vscode.commands.executeCommand(COMMANDS.showAccount);
      if (choice === 'Show Logs') deps.log.show();
    },
  );
}

/** The service's web console: the base URL in use (the API and the console share a host). */
async function openConsole(deps: ErrorShowingDeps): Promise<void> {
  const base = deps.session.normalizedBaseUrl;
  if (base) await vscode.env.openExternal(vscode.Uri.parse(base));
}

/** Wraps a command body: a failure becomes the message with its fix, and the command resolves undefined. */
export function guarded(s: { readonly showError: ShowError }) {
  return <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await fn(...args);
      } catch (error) {
        s.showError(error);
        return undefined;
      }
    };
}
