import { existsSync, readFileSync } from 'node:fs';
import type { ResultRecord } from '../integration/index';

export interface Outcome {
  passed: number;
  failed: number;
  failures: Array<{ title: string; error: string }>;
  /** Set when the run did not finish: the test that had started and not ended, if any. */
  stuck?: string;
  finished: boolean;
}

/**
 * Follows the results file the suites write inside the extension host, printing each test as it
 * ends, until the end record, an overall timeout, or one test running longer than `testTimeoutMs`.
 */
export async function followResults(
  file: string,
  options: { timeoutMs: number; testTimeoutMs: number; startTimeoutMs: number; onRecord?: (r: ResultRecord) => void },
): Promise<Outcome> {
  const started = Date.now();
  let seen = 0;
  let current: { title: string; since: number } | undefined;
  let begun = false;
  const outcome: Outcome = { passed: 0, failed: 0, failures: [], finished: false };
  for (;;) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    // Only whole lines: the extension host may be halfway through appending one.
    const lines = text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean);
    for (const line of lines.slice(seen)) {
      const record = JSON.parse(line) as ResultRecord;
      options.onRecord?.(record);
      if (record.event === 'begin') begun = true;
      if (record.event === 'start' || record.event === 'hook') current = { title: record.title ?? '?', since: Date.now() };
      if (record.event === 'pass') {
        outcome.passed++;
        current = undefined;
      }
      if (record.event === 'fail') {
        outcome.failed++;
        outcome.failures.push({ title: record.title ?? '?', error: record.error ?? '' });
        current = undefined;
      }
      if (record.event === 'end') {
        outcome.finished = true;
        return outcome;
      }
    }
    seen = lines.length;
    const now = Date.now();
    if (!begun && now - started > options.startTimeoutMs) return outcome;
    if (current && now - current.since > options.testTimeoutMs) return { ...outcome, stuck: current.title };
    if (now - started > options.timeoutMs) return { ...outcome, stuck: current?.title };
    await new Promise((r) => setTimeout(r, 200));
  }
}
