import { l10n } from '../l10n';
/**
 * Following an instance's log. The service has no stream: each read asks for the last `tail`
 * lines (PUT request_logs, then the text behind the URL it answers), so consecutive reads
 * overlap. What is new is what follows the longest run of lines at the end of what was shown
 * that the new read starts with. Lines repeated on purpose ("epoch done" twice) stay: they are
 * matched as a sequence, never dropped one by one.
 */

/** The largest tail asked for; the one-shot Show Instance Logs asks for as many. */
export const MAX_TAIL = 1000;
/** The smallest tail asked for once following; enough to overlap a quiet log several times over. */
export const MIN_TAIL = 100;
/** The service rate-limits by endpoint and caller; a log is read no more often than this by default. */
export const DEFAULT_FOLLOW_INTERVAL_MS = 5_000;
/** The floor for the interval, whatever a caller asks. */
export const MIN_FOLLOW_INTERVAL_MS = 5_000;

/** What one read added. */
export interface LogStep {
  /** Lines not shown before, oldest first. */
  readonly fresh: readonly string[];
  /**
   * `reset`: the log is shorter than a full tail and shares nothing with what was shown: it started
   * over (a reboot, a recreated container). `gap`: a full tail shares nothing with what was shown:
   * more lines came than one read holds, and some in between were missed.
   */
  readonly break?: 'reset' | 'gap';
}

/** Splits a log text into complete lines; a last line without its newline is still being written and is left for the next read. */
export function completeLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  // The element after the last newline is '' for a complete text, else a partial line.
  lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * The length of the longest run that ends `shown` and starts `read` (0 when none). Tried from the
 * longest down, so a log of identical lines is taken as having grown by as little as it can.
 */
export function overlapLength(shown: readonly string[], read: readonly string[]): number {
  for (let k = Math.min(shown.length, read.length); k > 0; k--) {
    let same = true;
    for (let j = 0; j < k && same; j++) same = shown[shown.length - k + j] === read[j];
    if (same) return k;
  }
  return 0;
}

/**
 * Remembers the last lines shown (at most MAX_TAIL, as much as a read can overlap) and tells, for
 * each read, which lines are new and how many to ask for next time.
 */
export class LogTail {
  private shown: string[] = [];
  private started = false;
  private nextTail = MAX_TAIL;

  /** How many lines the next read should ask for: twice what the last read added, within MIN_TAIL..MAX_TAIL. */
  get tail(): number {
    return this.nextTail;
  }

  /** Takes one read's text (the last `tail` lines of the log) and answers what it adds. */
  update(text: string, tail: number): LogStep {
    const read = completeLines(text);
    let step: LogStep;
    if (!this.started) {
      this.started = true;
      step = { fresh: read };
    } else {
      const overlap = overlapLength(this.shown, read);
      if (overlap > 0 || this.shown.length === 0) step = { fresh: read.slice(overlap) };
      else if (read.length === 0) step = { fresh: [], break: 'reset' };
      else step = { fresh: read, break: read.length >= tail ? 'gap' : 'reset' };
    }
    if (step.break === 'reset') this.shown = [];
    this.shown.push(...step.fresh);
    if (this.shown.length > MAX_TAIL) this.shown.splice(0, this.shown.length - MAX_TAIL);
    this.nextTail = step.break === 'gap' ? MAX_TAIL : Math.min(MAX_TAIL, Math.max(MIN_TAIL, 2 * step.fresh.length + 50));
    return step;
  }
}

/** Why following ended. */
export type FollowEnd = 'stopped' | 'cancelled' | 'failed';

/** What `followLog` reads and writes through. */
export interface FollowLogDeps {
  /** Reads the last `tail` lines of the log. */
  read(tail: number, signal: AbortSignal): Promise<string>;
  /** Whether the instance still runs; a stopped one writes nothing more, so following ends. */
  stillRunning(): Promise<boolean>;
  /** Shows lines; `note` is a line GPU Rental adds (a restart, a gap), set apart from the log's own. */
  append(lines: readonly string[], note?: string): void;
  /** Waits `ms` or until the signal aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  /** Milliseconds between reads; clamped to at least MIN_FOLLOW_INTERVAL_MS. */
  intervalMs?: number;
  /** Consecutive failed reads tolerated before giving up. */
  maxFailures?: number;
  /** Told of a failed read that will be retried. */
  onRetry?(error: unknown): void;
}

/**
 * Reads the log every interval and appends the lines not shown yet, until the instance stops, the
 * signal aborts, or reads keep failing. Resolves with why it ended and, when it failed, the last error.
 */
export async function followLog(deps: FollowLogDeps, signal: AbortSignal): Promise<{ end: FollowEnd; error?: unknown }> {
  const tail = new LogTail();
  const intervalMs = Math.max(MIN_FOLLOW_INTERVAL_MS, deps.intervalMs ?? DEFAULT_FOLLOW_INTERVAL_MS);
  const maxFailures = deps.maxFailures ?? 3;
  let failures = 0;
  for (;;) {
    if (signal.aborted) return { end: 'cancelled' };
    const asked = tail.tail;
    try {
      const text = await deps.read(asked, signal);
      failures = 0;
      const step = tail.update(text, asked);
      const note =
        step.break === 'reset'
          ? l10n.t('the log started over (the instance restarted)')
          : step.break === 'gap'
            ? l10n.t('more lines came than one read holds: some lines before these were missed')
            : undefined;
      if (step.fresh.length || note) deps.append(step.fresh, note);
    } catch (error) {
      if (signal.aborted) return { end: 'cancelled' };
      if (++failures >= maxFailures) return { end: 'failed', error };
      deps.onRetry?.(error);
    }
    if (!(await deps.stillRunning())) return { end: 'stopped' };
    await deps.wait(intervalMs, signal);
  }
}
