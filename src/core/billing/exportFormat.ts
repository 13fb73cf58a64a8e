/**
 * A spend export's text. CSV: RFC 4180 (a header row, CRLF, a field quoted when it holds a comma, a
 * quote or a line break, quotes doubled), UTF-8 without a byte order mark, data rows only, so a
 * spreadsheet sums and pivots them without counting a total twice; the totals are the JSON's and the
 * notice's. A text field that a spreadsheet would run as a formula (= + - @, a tab or a carriage
 * return first) gets a leading `'`. JSON: the rows and the totals as fields.
 */
import type { SpendRow, SpendTotals } from './spendRows';
import { utcIso, type SpendPeriod } from './period';

/** What a file says besides its rows: the period, and any list the page limit cut short. */
export interface ExportInfo {
  readonly period: SpendPeriod;
  readonly generatedAt: Date;
  /** Sentences saying which list stopped at the page limit; empty when everything was read. */
  readonly incomplete: readonly string[];
  /** Sentences naming each row whose time is no time (`oddTimeNotes`); the rows are in the file, without a date. */
  readonly oddTimes?: readonly string[];
}

export const CSV_COLUMNS = [
  'date',
  'kind',
  'source_kind',
  'source_id',
  'label',
  'type',
  'description',
  'hours',
  'rate_usd_per_hour',
  'amount_usd',
  'start_utc',
  'end_utc',
  'source',
] as const;

/** Dollars as the service gives them: at least 2 decimals, at most 4 (charges come with 3). */
export function amountText(amount: number): string {
  const fixed = amount.toFixed(4).replace(/0{1,2}$/, '');
  return fixed === '-0.00' ? '0.00' : fixed;
}

/** A number as written, without float noise (0.30000000000000004 → "0.3"); empty when absent. */
function plain(value: number | undefined, digits: number): string {
  return value === undefined ? '' : String(Number(value.toFixed(digits)));
}

// Empty for a time that is none (`secondsOf`): one odd row never fails the file.
const iso = utcIso;

/** A text field a spreadsheet would read as a formula gets a leading `'`. */
export function guardFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** One RFC 4180 field. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(',');
}

/**
 * The CSV file: a header, one line per row, one line of kind `incomplete` per list the page limit
 * cut short, and one of kind `odd_time` per row whose time is no time (that row has no date).
 */
export function spendCsv(rows: readonly SpendRow[], info: ExportInfo): string {
  const text = (s: string) => guardFormula(s);
  const lines = [csvLine(CSV_COLUMNS)];
  for (const r of rows) {
    lines.push(
      csvLine([
        r.date,
        r.kind,
        text(r.sourceKind),
        text(r.sourceId),
        text(r.label),
        text(r.type),
        text(r.description),
        plain(r.hours, 3),
        plain(r.rate, 4),
        amountText(r.amount),
        iso(r.start),
        iso(r.end),
        text(r.source),
      ]),
    );
  }
  for (const note of info.incomplete) lines.push(csvLine(['', 'incomplete', '', '', '', '', text(note), '', '', '', '', '', '']));
  for (const note of info.oddTimes ?? []) lines.push(csvLine(['', 'odd_time', '', '', '', '', text(note), '', '', '', '', '', '']));
  return lines.join('\r\n') + '\r\n';
}

const money = (n: number) => Number(n.toFixed(4));

/** The JSON file: the period, the totals (charges, credits, by day, by instance, by label) and every row. */
export function spendJson(rows: readonly SpendRow[], totals: SpendTotals, info: ExportInfo): string {
  const body = {
    generatedAt: info.generatedAt.toISOString(),
    currency: 'USD',
    period: { name: info.period.name, from: iso(info.period.from), to: iso(info.period.to) },
    complete: info.incomplete.length === 0,
    incomplete: info.incomplete,
    oddTimes: info.oddTimes ?? [],
    totals: {
      charges: money(totals.charges),
      credits: money(totals.credits),
      chargeLines: totals.chargeLines,
      creditLines: totals.creditLines,
      // Each charge spread over the UTC days it covers, by time (the service gives one amount per contract).
      byDayMethod: 'spread-by-time',
      byDay: totals.byDay.map((d) => ({ day: d.day, amount: money(d.amount) })),
      byInstance: totals.byInstance.map((s) => ({ ...s, amount: money(s.amount) })),
      byLabel: totals.byLabel.map((s) => ({ ...s, amount: money(s.amount) })),
    },
    rows: rows.map((r) => ({
      date: r.date,
      kind: r.kind,
      sourceKind: r.sourceKind,
      sourceId: r.sourceId,
      source: r.source,
      label: r.label,
      type: r.type,
      description: r.description,
      hours: r.hours ?? null,
      rateUsdPerHour: r.rate ?? null,
      amount: r.amount,
      start: r.start === undefined ? null : iso(r.start),
      end: r.end === undefined ? null : iso(r.end),
      // The times as the service sent them, when they are no time; the row has no date then.
      ...(r.oddTimes ? { oddTimes: r.oddTimes } : {}),
      items: r.items,
    })),
  };
  return JSON.stringify(body, null, 2) + '\n';
}
