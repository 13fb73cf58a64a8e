/**
 * The rows and totals of a spend export: one row per charge the service lists (one contract's
 * charges in the period: an instance, a volume, a serverless endpoint), then one per invoice line
 * (credits, payments, transfers) as rows of kind `credit`. The totals are `summarise`'s, the
 * Billing section's, so the file and the view agree for the same period.
 */
import type { BillingEntry } from '../api/billing';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { visibleText } from '../text';
import { summarise } from './report';
import { isOddTime, secondsOf, utcDay } from './period';

const DAY = 86_400;

/** One line of the export. */
export interface SpendRow {
  readonly kind: 'charge' | 'credit';
  /** The UTC day the line starts (YYYY-MM-DD), else ends; empty when neither is a time (see `secondsOf`). */
  readonly date: string;
  /** A charge: the contract's kind from its `source` (`instance`, `volume`, `endpoint`…); a credit: `invoice`. */
  readonly sourceKind: string;
  /** The id in `source` (`instance-123` → "123"); a credit: the invoice id. Empty when there is none. */
  readonly sourceId: string;
  /** `source` as the service sent it (`instance-123`, `stripe`). */
  readonly source: string;
  /** The instance's label: from the record, else from the instances listed now, else empty. */
  readonly label: string;
  readonly type: string;
  readonly description: string;
  /** Hours and $/hour, when the record's GPU (or only) item says "96.000 hours at $0.389/hour". */
  readonly hours?: number;
  readonly rate?: number;
  /** Dollars: a charge as billed, a credit as added (the service sends credits negative; `summarise` counts them so). */
  readonly amount: number;
  /** Unix seconds, when the record has them and they are a time (see `secondsOf`). */
  readonly start?: number;
  readonly end?: number;
  /**
   * The record's times that are no time (microseconds, `1e300`, `-1e13`), as the service sent
   * them. Such a row is kept, with its amount, and without the date that could not be read.
   */
  readonly oddTimes?: { readonly start?: string; readonly end?: string };
  /** The record's breakdown (gpu, disk, bandwidth), as the service gave it. */
  readonly items: ReadonlyArray<{ type: string; description: string; amount: number | undefined }>;
}

/** Sums in a spend export. */
export interface SpendTotals {
  readonly charges: number;
  readonly credits: number;
  readonly chargeLines: number;
  readonly creditLines: number;
  /** Charges per UTC day of the period, every day listed; each charge spread over the days it covers, by time. */
  readonly byDay: ReadonlyArray<{ day: string; amount: number }>;
  /** Charges per source (instance-12, volume-3, …), largest first: `summarise`'s `bySource`, with the label. */
  readonly byInstance: ReadonlyArray<{ source: string; label: string; amount: number; lines: number }>;
  /** Charges per label (empty: none), largest first. */
  readonly byLabel: ReadonlyArray<{ label: string; amount: number; lines: number }>;
}

const HOURS_AT_RATE = /^\s*([\d.]+)\s*hours?\s+at\s+\$([\d.]+)\s*\/\s*h(?:ou)?r?\b/i;

function hoursAndRate(entry: BillingEntry): { hours?: number; rate?: number } {
  const items = entry.items ?? [];
  const gpu = items.find((i) => i.type === 'gpu');
  const item = gpu ?? (items.length === 1 ? items[0] : undefined);
  const m = item?.description ? HOURS_AT_RATE.exec(item.description) : null;
  if (!m) return {};
  const hours = Number(m[1]);
  const rate = Number(m[2]);
  return Number.isFinite(hours) && Number.isFinite(rate) ? { hours, rate } : {};
}

function splitSource(source: string): { kind: string; id: string } {
  const m = /^([A-Za-z_]+)-(\d+)$/.exec(source);
  return m ? { kind: m[1]!, id: m[2]! } : { kind: source, id: '' };
}

function metadataString(entry: BillingEntry, key: string): string | undefined {
  const value = entry.metadata?.[key];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

const dayOf = (entry: BillingEntry) => utcDay(secondsOf(entry.start) ?? secondsOf(entry.end));

/** The times a record gives that are no time (see `secondsOf`), as the service sent them: `{ start: "1e+300" }`. */
function oddTimesOf(entry: BillingEntry): Pick<SpendRow, 'oddTimes'> {
  const odd: { start?: string; end?: string } = {};
  if (isOddTime(entry.start)) odd.start = String(entry.start);
  if (isOddTime(entry.end)) odd.end = String(entry.end);
  return odd.start === undefined && odd.end === undefined ? {} : { oddTimes: odd };
}

/** A charge as a row; `labels` are the instances listed now, for a record that names no label. */
export function chargeRow(entry: BillingEntry, labels: ReadonlyMap<number, string>): SpendRow {
  const source = entry.source ?? '';
  const { kind, id } = splitSource(source);
  const listed = kind === 'instance' ? labels.get(Number(id)) : undefined;
  return {
    kind: 'charge',
    date: dayOf(entry),
    sourceKind: source ? kind : (entry.type ?? ''),
    sourceId: id,
    source,
    label: metadataString(entry, 'label') ?? listed ?? '',
    type: entry.type ?? '',
    description: entry.description ?? '',
    ...hoursAndRate(entry),
    amount: entry.amount,
    start: secondsOf(entry.start),
    end: secondsOf(entry.end),
    ...oddTimesOf(entry),
    items: (entry.items ?? []).map((i) => ({ type: i.type ?? '', description: i.description ?? '', amount: i.amount ?? undefined })),
  };
}

/** An invoice line (credit, payment, transfer…) as a row of kind credit. */
export function creditRow(entry: BillingEntry): SpendRow {
  return {
    kind: 'credit',
    date: dayOf(entry),
    sourceKind: 'invoice',
    sourceId: metadataString(entry, 'invoice_id') ?? '',
    source: entry.source ?? '',
    label: '',
    type: entry.type ?? '',
    description: entry.description ?? '',
    // As `summarise` counts it: what was added.
    amount: Math.abs(entry.amount),
    start: secondsOf(entry.start),
    end: secondsOf(entry.end),
    ...oddTimesOf(entry),
    items: [],
  };
}

/** Every row of the export: charges oldest first, then credits oldest first. */
export function spendRows(
  charges: readonly BillingEntry[],
  invoices: readonly BillingEntry[],
  labels: ReadonlyMap<number, string>,
): SpendRow[] {
  const byTime = (a: SpendRow, b: SpendRow) =>
    (a.start ?? a.end ?? 0) - (b.start ?? b.end ?? 0) || a.source.localeCompare(b.source) || a.description.localeCompare(b.description);
  return [...charges.map((c) => chargeRow(c, labels)).sort(byTime), ...invoices.map(creditRow).sort(byTime)];
}

/**
 * One sentence per row whose record gave a time that is no time (see `secondsOf`), naming the line
 * by its source, description and amount, and the time as the service sent it: "Charge line
 * instance-12 ("Instance 12 Charges", $3.20) has start=1e+300, which is not a time: the line is
 * kept with its amount, and that time is left empty." Every quoted value is made visible text.
 */
export function oddTimeNotes(rows: readonly SpendRow[]): string[] {
  return rows.flatMap((r) => {
    if (!r.oddTimes) return [];
    const times = (['start', 'end'] as const)
      .filter((k) => r.oddTimes?.[k] !== undefined)
      .map((k) => `${k}=${visibleText(r.oddTimes![k]!, 40)}`)
      .join(', ');
    const source = visibleText(r.source || r.type, 40);
    const description = visibleText(r.description, 60);
    return [
      r.kind === 'charge'
        ? l10n.t(
            'Charge line {0} ("{1}", {2}) has {3}, which is not a time: the line is kept with its amount, and that time is left empty.',
            source,
            description,
            formatDollars(r.amount),
            times,
          )
        : l10n.t(
            'Credit line {0} ("{1}", {2}) has {3}, which is not a time: the line is kept with its amount, and that time is left empty.',
            source,
            description,
            formatDollars(r.amount),
            times,
          ),
    ];
  });
}

/** The UTC days from the one holding `from` to the one holding `to`, in order. */
export function daysOf(from: number, to: number): string[] {
  const days: string[] = [];
  for (let t = Math.floor(from / DAY) * DAY; t <= to; t += DAY) days.push(utcDay(t));
  return days;
}

/**
 * Charges per UTC day of [from, to]. The service gives one amount per contract over the period,
 * not per day, so each is spread over the part of its [start, end] inside the period by time; a
 * record without a span counts on its day, and one whose time cannot be read (see `secondsOf`) on
 * the first day, so that the days add up to every line listed.
 */
export function chargesByDay(charges: readonly BillingEntry[], from: number, to: number): Array<{ day: string; amount: number }> {
  const days = daysOf(from, to);
  const sums = new Map(days.map((d) => [d, 0]));
  const add = (day: string, amount: number) => sums.set(day, (sums.get(day) ?? 0) + amount);
  for (const c of charges) {
    const s = secondsOf(c.start);
    const e = secondsOf(c.end);
    const start = s === undefined ? undefined : Math.max(s, from);
    const end = e === undefined ? undefined : Math.min(e, to);
    if (start === undefined || end === undefined || end <= start) {
      const day = dayOf(c);
      add(sums.has(day) ? day : days[day < (days[0] ?? '') ? 0 : days.length - 1]!, c.amount);
      continue;
    }
    const span = end - start;
    for (let t = start; t < end;) {
      const next = Math.min(end, (Math.floor(t / DAY) + 1) * DAY);
      add(utcDay(t), (c.amount * (next - t)) / span);
      t = next;
    }
  }
  return [...sums].map(([day, amount]) => ({ day, amount }));
}

/** The totals of an export; charges and credits are `summarise`'s, as the Billing section shows them. */
export function spendTotals(
  charges: readonly BillingEntry[],
  invoices: readonly BillingEntry[],
  rows: readonly SpendRow[],
  range: { from: number; to: number },
): SpendTotals {
  const summary = summarise(charges, invoices);
  const labelOf = new Map<string, string>();
  for (const r of rows) if (r.kind === 'charge' && r.label && !labelOf.has(r.source)) labelOf.set(r.source, r.label);
  const perLabel = new Map<string, { amount: number; lines: number }>();
  for (const r of rows) {
    if (r.kind !== 'charge') continue;
    const sum = perLabel.get(r.label) ?? { amount: 0, lines: 0 };
    sum.amount += r.amount;
    sum.lines += 1;
    perLabel.set(r.label, sum);
  }
  return {
    charges: summary.charges,
    credits: summary.credits,
    chargeLines: charges.length,
    creditLines: invoices.length,
    byDay: chargesByDay(charges, range.from, range.to),
    byInstance: summary.bySource.map((s) => ({ source: s.source, label: labelOf.get(s.source) ?? '', amount: s.amount, lines: s.count })),
    byLabel: [...perLabel].map(([label, s]) => ({ label, ...s })).sort((a, b) => b.amount - a.amount || a.label.localeCompare(b.label)),
  };
}
