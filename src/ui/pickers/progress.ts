import * as vscode from 'vscode';

import type { Progress } from '../../core/progress';

export type { Progress, ProgressTask, ProgressUpdate } from '../../core/progress';

/**
 * core's Progress port answered with VS Code's progress: a notification (or, quiet, the status
 * bar) titled "GPU Rental: …", whose Cancel aborts the task's signal. The one place a
 * CancellationToken becomes an AbortSignal; its listener is disposed however the work ends.
 */
export const showProgress: Progress = (title, work, options) =>
  Promise.resolve(
    vscode.window.withProgress(
      {
        location: options?.quiet ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('GPU Rental: {0}', title),
        cancellable: options?.cancellable ?? true,
      },
      async (progress, token) => {
        const abort = new AbortController();
        const cancel = token.onCancellationRequested(() => abort.abort());
        try {
          return await work({ signal: abort.signal, report: (update) => progress.report(update) });
        } finally {
          cancel.dispose();
        }
      },
    ),
  );
