/**
 * What the transfer flows (upload.ts, download.ts, copy.ts, cloudSync.ts) hand the UI to show: a
 * notification's severity, its whole sentence and its buttons as identifiers, each with its label
 * beside it. The UI shows them and runs the button picked; it decides nothing.
 */
import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import { TransferError } from './errors';

/** A button a transfer's notification may carry. */
export type TransferAction = 'openTerminal' | 'copyPath' | 'reveal' | 'retry' | 'showLogs' | 'openConsole';

/** What an action's button says, in the display language. */
export function transferActionLabel(action: TransferAction): string {
  switch (action) {
    case 'openTerminal':
      return l10n.t('Open Terminal in Folder');
    case 'copyPath':
      return l10n.t('Copy Path');
    case 'reveal':
      return l10n.t('Reveal');
    case 'retry':
      return l10n.t('Retry');
    case 'showLogs':
      return l10n.t('Show Instance Logs');
    case 'openConsole':
      return l10n.t('Open Console');
  }
}

/** A notification: how loud, its text (starting with "GPU Rental:"), and its buttons in order. */
export interface TransferNotice<A extends TransferAction = TransferAction> extends Notice<A> {
  readonly actions: readonly A[];
}

/** A transfer that did not complete, said, with Retry when trying again helps (it resumes from what arrived). */
export interface TransferFailed<T> {
  readonly kind: 'failed';
  readonly notice: TransferNotice<'retry'>;
  /** Runs the same transfer again, without asking anything again; undefined when a question it asks is dismissed. */
  readonly retry: () => Promise<T | undefined>;
}

/**
 * The failure of a transfer as the user reads it. Only a TransferError is a transfer's own
 * failure; anything else is rethrown for the command's error guard.
 */
export function failedTransfer<T>(logger: Logger, error: unknown, retry: () => Promise<T | undefined>): TransferFailed<T> {
  if (!(error instanceof TransferError)) throw error;
  logger.warn(`Transfer failed (${error.fault}): ${error.message}`);
  return {
    kind: 'failed',
    notice: {
      severity: error.fault === 'cancelled' ? 'warning' : 'error',
      text: l10n.t('GPU Rental: {0}', error.message),
      actions: error.retryable ? ['retry'] : [],
    },
    retry,
  };
}

/**
 * Why files cannot move to or from the instance now, or undefined when it runs. A stopped instance
 * has no address, and nothing here starts it (that bills).
 */
export function notRunning(instance: Instance): TransferNotice<never> | undefined {
  const phase = instancePhase(instance);
  if (phase === 'running') return undefined;
  return {
    severity: 'warning',
    text: l10n.t(
      'GPU Rental: {0} is {1}, so files cannot move to or from it now. Start it yourself when you want it running (it bills while it runs), then try again.',
      instanceName(instance),
      phase,
    ),
    actions: [],
  };
}

/** The message of anything thrown, for logs. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
