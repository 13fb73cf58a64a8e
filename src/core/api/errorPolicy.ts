import { ApiError } from './errors';
import { l10n } from '../l10n';

/** A button a failed command's message may offer; each one runs the command that can fix it. */
export type ErrorAction = 'Set API Key' | 'Show Logs' | 'Open Web Console' | 'Manage API Keys' | 'Switch Profile';

/** What an action's button says, in the display language. */
export function errorActionLabel(action: ErrorAction): string {
  switch (action) {
    case 'Set API Key':
      return l10n.t('Set API Key');
    case 'Show Logs':
      return l10n.t('Show Logs');
    case 'Open Web Console':
      return l10n.t('Open Web Console');
    case 'Manage API Keys':
      return l10n.t('Manage API Keys');
    case 'Switch Profile':
      return l10n.t('Switch Profile');
  }
}

/** What the UI does with a failed command's error besides showing its message. */
export interface ErrorResponse {
  /** True only when the service called the key invalid: the window is then signed out. */
  readonly signOut: boolean;
  /** The buttons on the message, in order. */
  readonly actions: readonly ErrorAction[];
}

/**
 * Decides how a failed command's error is answered. Only a key the service called invalid signs
 * the window out; a refused action (a missing permission, a two-factor login needed) leaves the
 * session signed in. A scoped key without the permission leads to another key, or, with several
 * profiles, to another account that may have it. An action that needs a two-factor login is done
 * on the web console: no key can do it. Anything else offers the log.
 */
export function errorActions(error: unknown, context: { readonly profiles: number }): ErrorResponse {
  if (!(error instanceof ApiError)) return { signOut: false, actions: ['Show Logs'] };
  if (error.kind === 'auth') return { signOut: true, actions: ['Set API Key', 'Show Logs'] };
  if (error.kind === 'forbidden') {
    if (error.reason === 'two_factor') return { signOut: false, actions: ['Open Web Console', 'Show Logs'] };
    return {
      signOut: false,
      actions: ['Manage API Keys', 'Set API Key', ...(context.profiles > 1 ? (['Switch Profile'] as const) : [])],
    };
  }
  return { signOut: false, actions: ['Show Logs'] };
}
