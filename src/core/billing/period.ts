/**
 * The periods Export Spend offers, in UTC (the service's `day` and `when` filters are Unix seconds,
 * and a bookkeeper's month is a calendar month): each one's range, its name in a sentence, and the
 * stem of the file name it suggests.
 */
import { l10n } from '../l10n';

export type PeriodKind = 'thisMonth' | 'lastMonth' | 'last30' | 'last90' | 'thisYear' | 'custom';

/** A range of spend to read: Unix seconds, both ends inclusive (the service's `gte` and `lte`). */
export interface SpendPeriod {
  readonly kind: PeriodKind;
  readonly from: number;
  readonly to: number;
  /** The period as a sentence names it: "October 2026", "2026", "2026-09-02 to 2026-10-01". */
  readonly name: string;
  /** What the suggested file name holds after `gpu-rental-spend-`: "2026-10", "2026", "2026-09-02-to-2026-10-01". */
  readonly stem: string;
}

const DAY = 86_400;

/** The month's name with its year, a whole phrase for translators ("October 2026"). */
export function monthName(year: number, month: number): string {
  const names = [
    l10n.t('January {0}', year),
    l10n.t('February {0}', year),
    l10n.t('March {0}', year),
    l10n.t('April {0}', year),
    l10n.t('May {0}', year),
    l10n.t('June {0}', year),
    l10n.t('July {0}', year),
    l10n.t('August {0}', year),
    l10n.t('September {0}', year),
    l10n.t('October {0}', year),
    l10n.t('November {0}', year),
    l10n.t('December {0}', year),
  ];
  return names[month] ?? `${year}-${String(month + 1).padStart(2, '0')}`;
}

/** The last second a date is written of with four year digits: 9999-12-31T23:59:59Z. */
export const LAST_DATED_SECOND = 253_402_300_799;

/**
 * A record's time as Unix seconds: the one way a charge's or an invoice's time becomes a date (a
 * row's day, the chart's days, the file's times, the report, the cost so far). The service sends
 * numbers; a numeral or a date string is read too. Undefined when absent, and when it is no time a
 * date can be written of: not finite, before 1970, or after 9999 (a time in milliseconds or
 * microseconds, `1e300`, `-1e13`), so that no such value reaches `new Date(…).toISOString()`,
 * which throws `RangeError: Invalid time value` past ±8.64e15 ms.
 */
export function secondsOf(when: unknown): number | undefined {
  let n: number | undefined;
  if (typeof when === 'number') n = when;
  else if (typeof when === 'string' && when.trim()) n = /^\d+(\.\d+)?$/.test(when.trim()) ? Number(when) : Date.parse(when) / 1000;
  return n !== undefined && Number.isFinite(n) && n >= 0 && n <= LAST_DATED_SECOND ? n : undefined;
}

/** A time the record gives that `secondsOf` cannot read (an odd row); false when it gives none. */
export function isOddTime(when: unknown): boolean {
  return when !== undefined && when !== null && !(typeof when === 'string' && !when.trim()) && secondsOf(when) === undefined;
}

/** "2026-10-31T14:05:09Z" of a Unix time in seconds; empty when it is no writable time (see `secondsOf`). */
export function utcIso(seconds: number | undefined): string {
  const s = secondsOf(seconds);
  return s === undefined ? '' : new Date(s * 1000).toISOString().replace('.000Z', 'Z');
}

/** "2026-10-31": the UTC day of a Unix time in seconds; empty when it is no writable time (see `secondsOf`). */
export function utcDay(seconds: number | undefined): string {
  return utcIso(seconds).slice(0, 10);
}

/** The days "last 30 days" covers, wherever it is shown: the Billing section, the spend chart, Export Spend. */
export const RECENT_DAYS = 30;

/**
 * "The last 30 days", one definition for the Billing section's "Charges, last 30 days", the spend
 * chart and Export Spend's "Last 30 days" (and the Billing report): the `days` UTC days ending
 * today, today included, from the first one's 00:00 UTC to now (rounded up to the second), both
 * ends inclusive as the service's `day` filter reads them. The charges that count are every line
 * the service lists for that range, at the amount it gives for it (it bills each contract for its
 * part inside the range): none is dropped, none is prorated again here, and a line whose time
 * cannot be read still counts. So the three show the same sum of the same lines; the chart only
 * spreads each line over the days it covers, by time, to draw the bars.
 */
export function lastDays(nowMs: number, days: number = RECENT_DAYS): { from: number; to: number } {
  const to = Math.ceil(nowMs / 1000);
  return { from: (Math.floor(to / DAY) - (days - 1)) * DAY, to };
}

const monthStart = (year: number, month: number) => Date.UTC(year, month, 1) / 1000;
const pad = (n: number) => String(n).padStart(2, '0');

/** The period of a kind other than custom, as of `nowMs`. A current period ends now: the service has no charge from later. */
export function periodOf(kind: Exclude<PeriodKind, 'custom'>, nowMs: number): SpendPeriod {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const to = Math.ceil(nowMs / 1000);
  switch (kind) {
    case 'thisMonth':
      return { kind, from: monthStart(year, month), to, name: monthName(year, month), stem: `${year}-${pad(month + 1)}` };
    case 'lastMonth': {
      // Date.UTC carries month -1 into December of the year before.
      const from = monthStart(year, month - 1);
      const last = new Date(from * 1000);
      return {
        kind,
        from,
        to: monthStart(year, month) - 1,
        name: monthName(last.getUTCFullYear(), last.getUTCMonth()),
        stem: `${last.getUTCFullYear()}-${pad(last.getUTCMonth() + 1)}`,
      };
    }
    case 'last30':
    case 'last90': {
      const { from } = lastDays(nowMs, kind === 'last30' ? RECENT_DAYS : 90);
      return { kind, from, to, name: l10n.t('{0} to {1}', utcDay(from), utcDay(to)), stem: `${utcDay(from)}-to-${utcDay(to)}` };
    }
    case 'thisYear':
      return { kind, from: Date.UTC(year, 0, 1) / 1000, to, name: String(year), stem: String(year) };
  }
}

/** Unix seconds of a `YYYY-MM-DD` day's start in UTC, or undefined when it is no such day (2026-02-29, 2026-13-01). */
export function parseDay(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return ms / 1000;
}

/** Why a first day typed in the box is refused, or undefined when it is a day. */
export function dayProblem(text: string): string | undefined {
  return parseDay(text) === undefined ? l10n.t('Type a date as YYYY-MM-DD, for example 2026-10-01.') : undefined;
}

/** Why a last day is refused (not a day, or before the first), or undefined. */
export function lastDayProblem(first: string, text: string): string | undefined {
  const from = parseDay(first);
  const to = parseDay(text);
  if (to === undefined) return dayProblem(text);
  if (from !== undefined && to < from) return l10n.t('The last day must not be before the first day ({0}).', first.trim());
  return undefined;
}

/** A custom period from its first to its last day, both whole UTC days; undefined when either is no day or they are out of order. */
export function customPeriod(first: string, last: string): SpendPeriod | undefined {
  const from = parseDay(first);
  const lastStart = parseDay(last);
  if (from === undefined || lastStart === undefined || lastStart < from) return undefined;
  const a = utcDay(from);
  const b = utcDay(lastStart);
  return {
    kind: 'custom',
    from,
    to: lastStart + DAY - 1,
    name: a === b ? a : l10n.t('{0} to {1}', a, b),
    stem: a === b ? a : `${a}-to-${b}`,
  };
}

/** The file name Save suggests: `gpu-rental-spend-2026-10.csv`. */
export function exportFileName(period: SpendPeriod, format: 'csv' | 'json'): string {
  return `gpu-rental-spend-${period.stem}.${format}`;
}
