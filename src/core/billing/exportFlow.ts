/**
 * Export Spend: which period, which format, where; then every page of charges and invoices for
 * the period, written whole or not at all. A folder that cannot be written is said with the reason
 * and "Choose Another Folder", which asks where again without reading the service again.
 */
import type { BillingApi } from '../api/billing';
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import type { Notice } from '../notice';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import { spendCsv, spendJson, type ExportInfo } from './exportFormat';
import { customPeriod, dayProblem, exportFileName, lastDayProblem, periodOf, type PeriodKind, type SpendPeriod } from './period';
import { saveAtomically, writeProblem, type SaveFs } from './saveFile';
import { readSpend, SPEND_MAX_PAGES, type SpendRead } from './spendRead';
import { oddTimeNotes, spendRows, spendTotals } from './spendRows';

export type ExportFormat = 'csv' | 'json';

/** The buttons of Export Spend's notices. */
export type ExportAction = 'openFile' | 'reveal' | 'chooseAnother';

export function exportActionLabel(action: ExportAction): string {
  switch (action) {
    case 'openFile':
      return l10n.t('Open File');
    case 'reveal':
      return l10n.t('Reveal');
    case 'chooseAnother':
      return l10n.t('Choose Another Folder');
  }
}

export interface ExportDeps {
  readonly ask: Pick<Ask, 'pick' | 'input'>;
  /** Read when called, so a profile switched since is the one asked. */
  billing(): Pick<BillingApi, 'charges' | 'invoices'>;
  /** Labels of the instances listed now (id → label), for charges whose record names none. */
  labels(): ReadonlyMap<number, string>;
  /** The save dialog: resolves the path chosen, undefined when dismissed. */
  chooseTarget(defaultName: string, format: ExportFormat): Promise<string | undefined>;
  readonly fs: SaveFs;
  /** Shows a notice; resolves the button picked. */
  notify(notice: Notice<ExportAction>): Promise<ExportAction | undefined>;
  /** Shows the read's progress (it cannot be cancelled half-way). */
  readonly progress: Progress;
  now(): number;
  /** Test seam: the temporary name's suffix. */
  tempSuffix?: string;
}

export type ExportOutcome =
  | { readonly kind: 'cancelled' }
  | {
      readonly kind: 'written';
      readonly path: string;
      readonly format: ExportFormat;
      readonly period: SpendPeriod;
      readonly chargeLines: number;
      readonly charges: number;
      readonly credits: number;
      readonly complete: boolean;
      /** The success notice, with Open File and Reveal. */
      readonly notice: Notice<ExportAction>;
    };

async function askPeriod(ask: ExportDeps['ask'], nowMs: number): Promise<SpendPeriod | undefined> {
  const kinds: Array<Exclude<PeriodKind, 'custom'>> = ['thisMonth', 'lastMonth', 'last30', 'last90', 'thisYear'];
  const titles: Record<PeriodKind, string> = {
    thisMonth: l10n.t('This month'),
    lastMonth: l10n.t('Last month'),
    last30: l10n.t('Last 30 days'),
    last90: l10n.t('Last 90 days'),
    thisYear: l10n.t('This year'),
    custom: l10n.t('Custom…'),
  };
  const picked = await ask.pick<PeriodKind>({
    title: l10n.t('Export Spend: which period?'),
    placeholder: l10n.t('Days are UTC days, as the service bills them.'),
    items: [
      ...kinds.map((k) => ({ label: titles[k], description: periodOf(k, nowMs).name, value: k })),
      { label: titles.custom, description: l10n.t('from one day to another, YYYY-MM-DD'), value: 'custom' as const },
    ],
  });
  if (picked === undefined) return undefined;
  if (picked !== 'custom') return periodOf(picked, nowMs);
  const first = await ask.input({
    title: l10n.t('Export Spend: custom period'),
    prompt: l10n.t('The first day (YYYY-MM-DD, UTC)'),
    placeholder: '2026-10-01',
    validate: dayProblem,
  });
  if (first === undefined) return undefined;
  const last = await ask.input({
    title: l10n.t('Export Spend: custom period'),
    prompt: l10n.t('The last day (YYYY-MM-DD, UTC), included'),
    value: first.trim(),
    validate: (text) => lastDayProblem(first, text),
  });
  return last === undefined ? undefined : customPeriod(first, last);
}

/** What the page limit cut short, in sentences for the file and the notice. */
function incompleteNotes(read: SpendRead): string[] {
  const notes: string[] = [];
  if (!read.charges.complete)
    notes.push(
      l10n.t(
        'Only the first {0} pages of charges were read ({1} lines); the period has more.',
        read.charges.pages,
        read.charges.entries.length,
      ),
    );
  if (!read.invoices.complete)
    notes.push(
      l10n.t(
        'Only the first {0} pages of invoices were read ({1} lines); the period has more.',
        read.invoices.pages,
        read.invoices.entries.length,
      ),
    );
  return notes;
}

/** Export Spend from the first question to the file written, or to the user's Cancel. */
export async function exportSpendFlow(deps: ExportDeps): Promise<ExportOutcome> {
  const period = await askPeriod(deps.ask, deps.now());
  if (!period) return { kind: 'cancelled' };
  const format = await deps.ask.pick<ExportFormat>({
    title: l10n.t('Export Spend: which format?'),
    items: [
      { label: 'CSV', description: l10n.t('one row per charge or credit, for a spreadsheet'), value: 'csv' },
      { label: 'JSON', description: l10n.t('the rows, and totals by day, instance and label'), value: 'json' },
    ],
  });
  if (!format) return { kind: 'cancelled' };
  let target = await deps.chooseTarget(exportFileName(period, format), format);
  if (!target) return { kind: 'cancelled' };

  const read = await deps.progress(
    l10n.t('reading charges and invoices for {0}…', period.name),
    () => readSpend(deps.billing(), period, SPEND_MAX_PAGES),
    { cancellable: false },
  );
  const rows = spendRows(read.charges.entries, read.invoices.entries, deps.labels());
  const totals = spendTotals(read.charges.entries, read.invoices.entries, rows, period);
  const oddTimes = oddTimeNotes(rows);
  const info: ExportInfo = { period, generatedAt: new Date(deps.now()), incomplete: incompleteNotes(read), oddTimes };
  const text = format === 'csv' ? spendCsv(rows, info) : spendJson(rows, totals, info);

  for (;;) {
    try {
      await saveAtomically(deps.fs, target, text, deps.tempSuffix);
      break;
    } catch (error) {
      const answer = await deps.notify({
        severity: 'error',
        text: l10n.t('GPU Rental: could not write {0}: {1}. Choose another folder.', target, writeProblem(error)),
        actions: ['chooseAnother'],
      });
      const next = answer === 'chooseAnother' ? await deps.chooseTarget(exportFileName(period, format), format) : undefined;
      if (!next) return { kind: 'cancelled' };
      target = next;
    }
  }

  const done = exportedText(totals.chargeLines, formatDollars(totals.charges), totals.creditLines, period.name, target);
  const text2 = sentences(
    done,
    ...info.incomplete,
    info.incomplete.length > 0 && l10n.t('Export a shorter period to get every line.'),
    ...oddTimeSummary(oddTimes),
  );
  return {
    kind: 'written',
    path: target,
    format,
    period,
    chargeLines: totals.chargeLines,
    charges: totals.charges,
    credits: totals.credits,
    complete: info.incomplete.length === 0,
    notice: { severity: info.incomplete.length || oddTimes.length ? 'warning' : 'info', text: text2, actions: ['openFile', 'reveal'] },
  };
}

/** How many notes about odd rows a notice names; the file names every one. */
const ODD_NAMED = 3;

/** The notice's sentences about rows whose time is no time: the first few named, then how many more the file names. */
function oddTimeSummary(notes: readonly string[]): string[] {
  if (notes.length === 0) return [];
  const more = notes.length - ODD_NAMED;
  return [
    ...notes.slice(0, ODD_NAMED),
    more === 1
      ? l10n.t('1 more line has a time that cannot be read; the file names it.')
      : more > 1 && l10n.t('{0} more lines have a time that cannot be read; the file names them.', more),
  ].filter((t): t is string => !!t);
}

/** "GPU Rental: exported 412 charge lines ($123.45) and 3 credits for October 2026. The file is …", each count its own words. */
export function exportedText(lines: number, amount: string, credits: number, period: string, target: string): string {
  const what =
    lines === 1
      ? credits === 1
        ? l10n.t('GPU Rental: exported 1 charge line ({0}) and 1 credit for {1}.', amount, period)
        : l10n.t('GPU Rental: exported 1 charge line ({0}) and {1} credits for {2}.', amount, credits, period)
      : credits === 1
        ? l10n.t('GPU Rental: exported {0} charge lines ({1}) and 1 credit for {2}.', lines, amount, period)
        : l10n.t('GPU Rental: exported {0} charge lines ({1}) and {2} credits for {3}.', lines, amount, credits, period);
  return sentences(what, l10n.t('The file is {0}.', target));
}
