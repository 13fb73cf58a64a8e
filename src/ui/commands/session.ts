import * as vscode from 'vscode';
import { creditOf } from '../../core/account/funds';
import { ApiError } from '../../core/api/errors';
import { COMMANDS } from '../../core/ids';
import { AccountFrozen } from '../../core/session/session';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Renter } from '../../core/rent/renter';
import type { EnvironmentKey } from '../../core/session/environmentKey';
import type { Session } from '../../core/session/session';
import { command, type CommandDefinition } from '../registry';
import { formatDollars } from '../../core/format';
import { sentences } from '../../core/l10n';

/** What the session commands use. */
export interface SessionDeps {
  readonly session: Session;
  readonly renter: Pick<Renter, 'checkNow'>;
  readonly poller: Pick<InstancePoller, 'refresh'>;
  readonly environmentKey: Pick<EnvironmentKey, 'rememberSignOut'>;
  /** The service, and the profile when there are several: for messages. */
  readonly where: () => string;
  /** Reloads the three views. */
  readonly refreshViews: () => void;
  readonly logger: Logger;
  /** The "GPU Rental" channel, for Show Logs. */
  readonly log: { show(): void };
}

/** Set API key, sign out, refresh and show logs. */
export function sessionCommands(s: SessionDeps): CommandDefinition[] {
  return [
    command(COMMANDS.setApiKey, (key?: unknown) => setApiKey(s, key)),
    command(COMMANDS.signOut, () => signOut(s)),
    command(COMMANDS.refresh, () => refresh(s)),
    command(COMMANDS.showLogs, () => s.log.show()),
  ];
}

/**
 * Asks for a key (or takes it as the argument, for automation), checks it against the service and
 * only then stores it. Resolves true when a key was stored.
 */
async function setApiKey(s: SessionDeps, key: unknown): Promise<boolean> {
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

function promptForKey(s: SessionDeps): Promise<boolean> {
  const input = vscode.window.createInputBox();
  input.title = vscode.l10n.t('GPU Rental: Set API Key');
  input.prompt = vscode.l10n.t(
    "Paste an API key for {0}. It is checked with the service, then kept in VS Code's secret storage.",
    s.where(),
  );
  input.placeholder = vscode.l10n.t('API key');
  input.password = true;
  input.ignoreFocusOut = true;
  return new Promise<boolean>((resolve) => {
    let done = false;
    input.onDidChangeValue(() => (input.validationMessage = undefined));
    input.onDidAccept(async () => {
      const value = input.value.trim();
      if (!value) {
        input.validationMessage = vscode.l10n.t('Paste the API key first.');
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

async function signOut(s: SessionDeps): Promise<void> {
  if (!s.session.hasKey) {
    void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: no API key is set for this service.'));
    return;
  }
  try {
    await s.session.signOut();
  } catch (error) {
    // A rent whose outcome is not known yet keeps the key: the account must still be checked.
    if (!(error instanceof AccountFrozen)) throw error;
    void vscode.window.showWarningMessage(vscode.l10n.t('GPU Rental: not signed out. {0}', error.message));
    return;
  }
  await s.environmentKey.rememberSignOut();
  void vscode.window.showInformationMessage(
    vscode.l10n.t('GPU Rental: signed out. The API key for {0} was removed from this machine.', s.where()),
  );
}

async function refresh(s: SessionDeps): Promise<void> {
  // Also looks at once for the instance of a rent whose answer was lost.
  s.renter.checkNow();
  await s.session.refresh();
  await s.poller.refresh();
  s.refreshViews();
}

/** `credit` null: the account was read but reports no credit; undefined: the key may not read it. */
function signedInMessage(s: SessionDeps, email: string | null | undefined, credit: number | null | undefined): string {
  const signedIn = email
    ? vscode.l10n.t('GPU Rental: signed in to {0} as {1}.', s.where(), email)
    : vscode.l10n.t('GPU Rental: signed in to {0}.', s.where());
  const money =
    credit === undefined
      ? undefined
      : credit === null
        ? vscode.l10n.t('Credit: unknown (the service did not report it).')
        : vscode.l10n.t('Credit: {0}.', formatDollars(credit));
  return sentences(signedIn, money);
}

/** The reason a key was not accepted, phrased for the input box. */
function keyProblem(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.kind === 'auth')
      return vscode.l10n.t(
        'The service refused this key (HTTP {0}): it may be mistyped or revoked. It was not stored.',
        error.status ?? 401,
      );
    return vscode.l10n.t('{0} The key was not stored.', error.message);
  }
  return vscode.l10n.t('{0} The key was not stored.', describe(error));
}

async function showKeyError(s: SessionDeps, error: unknown): Promise<void> {
  s.logger.warn(`The API key was not stored: ${describe(error)}`);
  const choice = await vscode.window.showErrorMessage(
    vscode.l10n.t('GPU Rental: {0}', keyProblem(error)),
    vscode.l10n.t('Set API Key'),
    vscode.l10n.t('Show Logs'),
  );
  if (choice === vscode.l10n.t('Set API Key')) void vscode.commands.executeCommand(COMMANDS.setApiKey);
  if (choice === vscode.l10n.t('Show Logs')) s.log.show();
}

function describe(error: unknown): string {
  return error instanceof ApiError ? error.toLogString() : error instanceof Error ? error.message : String(error);
}
