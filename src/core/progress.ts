/**
 * The progress a long flow shows, as a port beside `Prompts`: one shape for what it reports, how
 * far it got, and the user's Cancel. Core flows run their work through it and never see a
 * notification; `src/ui/pickers/progress.ts` answers it with VS Code's cancellable progress (the
 * only place Cancel is bridged to an AbortSignal); unit tests answer it with a script
 * (`test/support/scriptedProgress.ts`) that records every report and presses Cancel when told.
 */

/** One line under the title; `increment` adds that many percent to how far the flow got. */
export interface ProgressUpdate {
  readonly message?: string;
  readonly increment?: number;
}

/** What the work is handed while the progress shows. */
export interface ProgressTask {
  report(update: ProgressUpdate): void;
  /** Aborted when the user presses Cancel (or the window goes away); the work then ends and cleans up. */
  readonly signal: AbortSignal;
}

export interface ProgressOptions {
  /** Offers Cancel (default true): a flow that cannot stop half-way says so by passing false. */
  readonly cancellable?: boolean;
  /** In the status bar rather than as a notification (a quiet background step). Default notification. */
  readonly quiet?: boolean;
}

/** Shows a progress titled `title` while `work` runs, and resolves or rejects as it does. */
export type Progress = <T>(title: string, work: (task: ProgressTask) => Promise<T>, options?: ProgressOptions) => Promise<T>;

/**
 * No progress shown, and no Cancel but `signal`'s: for flows run without a window (benchmarks,
 * tests that are not about progress, a step nested in a flow that already shows one).
 */
export function silentProgress(signal?: AbortSignal): Progress {
  return (_title, work) => work({ report: () => undefined, signal: signal ?? new AbortController().signal });
}

/**
 * A task nested in another flow's progress: its reports go to `outer`, prefixed with `label`
 * (a node's name, say), and it shares the outer Cancel.
 */
export function nestedTask(outer: ProgressTask, label: string): ProgressTask {
  return {
    signal: outer.signal,
    report: (update) => outer.report({ ...update, message: update.message === undefined ? label : `${label}: ${update.message}` }),
  };
}
