import * as vscode from 'vscode';
import type { CostTracker } from '../../core/billing/costs';
import { CONTEXT, SETTINGS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { BaseUrlFollower } from '../../core/session/baseUrlFollower';
import { DEFAULT_PROFILE_ID, type Profile } from '../../core/session/profiles';
import type { Session, SessionState } from '../../core/session/session';
import type { RentJournal } from '../../core/rent/journal';
import { parseHostAlias } from '../../core/ssh/config';
import { config } from './config';
import { windowAlias } from './remote';
import type { Profiles } from './profiles';
import type { InstanceCleanup } from '../../core/ssh/instanceCleanup';

export interface SessionFollowerDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly costs: CostTracker;
  readonly cleanup: InstanceCleanup;
  /** Reloads the three views. */
  readonly refreshViews: () => void;
  readonly logger: Logger;
}

/**
 * What follows the session's state: the `when` context, the log, polling only while signed in, the
 * costs and the seen instances of the account left, and the views when the account changed.
 */
export function followSession(deps: SessionFollowerDeps): vscode.Disposable {
  const { session, poller, costs, cleanup, logger } = deps;
  const identity = (state: SessionState) =>
    `${state.kind}|${session.profileId}|${session.baseUrl}|${state.kind === 'ready' ? (state.user?.id ?? '') : ''}`;
  let lastIdentity = identity(session.state);
  return session.onDidChangeState((state) => {
    // A credit refresh (same account, still ready) must not reload the views.
    const changed = identity(state) !== lastIdentity;
    lastIdentity = identity(state);
    void vscode.commands.executeCommand('setContext', CONTEXT.state, state.kind);
    if (state.kind === 'unreachable' || state.kind === 'rejected') logger.warn(state.error.toLogString());
    if (state.kind === 'badUrl') logger.warn(state.message);
    poller.setEnabled(state.kind === 'ready');
    if (state.kind !== 'ready') costs.reset();
    // Another key may be another account: only ids seen under this one count as destroyed when they vanish.
    if (state.kind !== 'ready') cleanup.forgetSeen();
    if (state.kind !== 'checking' && changed) deps.refreshViews();
  });
}

/**
 * Follows the gpuRental.apiUrl setting: it is the default profile's base URL (other profiles keep
 * their own). While a rent is unsettled the change waits, and applies once the journal is settled.
 */
export function followApiUrlSetting(deps: {
  readonly session: Session;
  readonly journal: Pick<RentJournal, 'freezeReason' | 'onDidChange'>;
  readonly logger: Logger;
}): vscode.Disposable {
  const { session, journal, logger } = deps;
  const warn = (message: string) => void vscode.window.showWarningMessage(message);
  const follower = new BaseUrlFollower({ wanted: config.apiUrl, session, freezeReason: () => journal.freezeReason(), warn, logger });
  const subscriptions = [
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS.apiUrl) && session.profileId === DEFAULT_PROFILE_ID) follower.follow();
    }),
    journal.onDidChange(() => follower.journalChanged()),
  ];
  return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
}

/**
 * The profile a window starts with: a Remote-SSH window on an instance of another profile uses
 * that profile (its alias names it), so the instance it runs on is the one it watches; otherwise
 * the profile chosen last.
 */
export function windowProfile(profiles: Pick<Profiles, 'get' | 'last'>): Profile {
  const named = parseHostAlias(windowAlias())?.profile;
  return (named && profiles.get(named)) || profiles.last();
}
