import * as vscode from 'vscode';
import type { Session } from '../../core/session/session';

/** The account a notification was about: its base URL and profile. */
export interface NoticeAccount {
  readonly baseUrl: string;
  readonly profileId: string;
}

/**
 * Whether the window still uses the account a notification was about; when it does not, says
 * what to do (a button clicked after a profile switch must not act on another account).
 */
export function stillOnAccount(session: Pick<Session, 'bound'>, account: NoticeAccount): boolean {
  const bound = session.bound();
  if (bound && bound.baseUrl === account.baseUrl && bound.profileId === account.profileId) return true;
  void vscode.window.showWarningMessage(
    vscode.l10n.t(
      'GPU Rental: that instance belongs to the profile "{0}" ({1}), which this window no longer uses. Nothing was sent. Switch to that profile (GPU Rental: Switch Profile) and try again there.',
      account.profileId,
      account.baseUrl,
    ),
  );
  return false;
}
