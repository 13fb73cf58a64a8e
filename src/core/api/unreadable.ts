import { l10n } from '../l10n';
/**
 * What a list answer held that could not be read, carried on the list itself. Kept apart from the
 * schemas in fields.ts, so the views and status bar read it without loading zod at activation.
 */

/** What a list answer held that could not be read. */
export interface Unreadable {
  /** Records that could not be read at all: `listedById + dropped`. */
  count: number;
  /** Of those, the ones kept in the list by their id alone, flagged `unreadable` (so they can still be deleted). */
  listedById: number;
  /** Of those, the ones without a usable id, left out. */
  dropped: number;
  /** Why, for the first few: a field path and what was expected there, never a value. */
  reasons: string[];
}

/** How many reasons a report keeps; the count covers the rest. */
export const MAX_REASONS = 3;
const REPORT = Symbol('unreadable');
type Reported = { [REPORT]?: Unreadable };

/** The report a list carries, or undefined when every record was read (or the array is not from a list call). */
export function unreadableOf(list: readonly unknown[] | undefined | null): Unreadable | undefined {
  return list ? (list as Reported)[REPORT] : undefined;
}

/**
 * Attaches a report to a list, out of sight: the list stays a plain array for every caller (equal to
 * one without it, same JSON); only `unreadableOf` reads it. An empty report attaches nothing.
 */
export function withUnreadable<T>(list: T[], report: Unreadable | undefined): T[] {
  if (report && report.count > 0) Object.defineProperty(list, REPORT, { value: report, enumerable: false, configurable: true });
  return list;
}

/** Adds up the reports of several pages of one list. */
export function mergeUnreadable(reports: ReadonlyArray<Unreadable | undefined>): Unreadable | undefined {
  const present = reports.filter((r): r is Unreadable => r !== undefined && r.count > 0);
  if (present.length === 0) return undefined;
  return {
    count: present.reduce((n, r) => n + r.count, 0),
    listedById: present.reduce((n, r) => n + r.listedById, 0),
    dropped: present.reduce((n, r) => n + r.dropped, 0),
    reasons: present.flatMap((r) => r.reasons).slice(0, MAX_REASONS),
  };
}

/** "2 records could not be read" / "1 record …": for the views and the log. */
export function describeUnreadable(report: Unreadable, noun = 'record'): string {
  const plural = report.count === 1 ? noun : `${noun}s`;
  const parts = [l10n.t('{0} {1} could not be read', report.count, plural)];
  if (report.listedById > 0) parts.push(l10n.t('{0} listed by id only', report.listedById));
  if (report.dropped > 0) parts.push(l10n.t('{0} without a usable id left out', report.dropped));
  return parts.join('; ');
}
