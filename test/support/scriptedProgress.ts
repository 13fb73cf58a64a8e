import type { Progress, ProgressTask, ProgressUpdate } from '../../src/core/progress';

/** One progress a flow showed, as the user saw it. */
export interface Shown {
  readonly title: string;
  readonly updates: ProgressUpdate[];
  readonly cancellable: boolean;
  /** Set once the work settled: how it ended. */
  ended?: 'resolved' | 'rejected';
}

/** When the scripted user presses Cancel: on the first update whose message matches, or after a number of updates. */
export interface CancelWhen {
  /** Only a progress whose title matches (default: any). */
  readonly title?: RegExp;
  /** Presses Cancel when an update's message matches (default: the first update, or at once with `atStart`). */
  readonly message?: RegExp;
  /** Presses Cancel as the work starts, before any update. */
  readonly atStart?: boolean;
  /**
   * Presses Cancel once this settles, whatever the updates say: the test saw the work reach a
   * point no update marks (a process it started is running, say).
   */
  readonly once?: Promise<unknown>;
}

/**
 * The Progress port answered by a script: every progress and update is recorded, and Cancel is
 * pressed when `cancel` says, through the same AbortSignal the ui's adapter aborts. A test of any
 * long flow cancels it this one way.
 */
export function scriptedProgress(cancel?: CancelWhen): Progress & { shown: Shown[]; cancelled(): boolean } {
  const shown: Shown[] = [];
  let pressed = false;
  const progress = (async (title, work, options) => {
    const entry: Shown = { title, updates: [], cancellable: options?.cancellable ?? true };
    shown.push(entry);
    const abort = new AbortController();
    const applies = cancel !== undefined && entry.cancellable && (cancel.title === undefined || cancel.title.test(title));
    const press = () => {
      if (abort.signal.aborted) return;
      pressed = true;
      abort.abort();
    };
    const task: ProgressTask = {
      signal: abort.signal,
      report(update) {
        entry.updates.push(update);
        if (applies && !cancel.atStart && !cancel.once && (cancel.message === undefined || cancel.message.test(update.message ?? '')))
          queueMicrotask(press);
      },
    };
    if (applies && cancel.atStart) press();
    if (applies && cancel.once) void cancel.once.then(press, press);
    try {
      const result = await work(task);
      entry.ended = 'resolved';
      return result;
    } catch (error) {
      entry.ended = 'rejected';
      throw error;
    }
  }) as Progress & { shown: Shown[]; cancelled(): boolean };
  progress.shown = shown;
  progress.cancelled = () => pressed;
  return progress;
}
