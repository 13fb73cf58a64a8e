/**
 * The 30-day spend chart as pure functions: the SVG bar chart (one bar per UTC day with a `<title>`
 * tooltip, days on the axis), a text table of the same numbers, and the whole page a webview shows
 * under a strict content security policy (no script; one style element carrying the nonce; colours
 * from the theme's variables). Every text is escaped.
 */
import type { BillingApi } from '../api/billing';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import { lastDays, RECENT_DAYS } from './period';
import { summarise } from './report';
import { readPages, CHARGE_PAGE_SIZE, SPEND_MAX_PAGES } from './spendRead';
import { chargesByDay } from './spendRows';

/** How many days the chart shows, today included: "last 30 days" as `lastDays` defines it. */
export const CHART_DAYS = RECENT_DAYS;

export interface DaySpend {
  readonly day: string;
  readonly amount: number;
}

/** What the chart shows, in numbers and words. */
export interface SpendChart {
  readonly days: readonly DaySpend[];
  readonly total: number;
  readonly average: number;
  /** No charge in any day. */
  readonly empty: boolean;
  /** The SVG markup; empty when there is nothing to draw. */
  readonly svg: string;
  /** The same numbers as plain text, one line per day, then the total and the daily average. */
  readonly text: string;
}

/** Text made safe inside SVG or HTML, as an element's text or an attribute. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const n = (value: number) => (Math.round(value * 10) / 10).toString();

/** A round top for the axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max - 1e-12) return step * power;
  return 10 * power;
}

const WIDTH = 760;
const HEIGHT = 260;
const LEFT = 60;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 40;

function svgOf(days: readonly DaySpend[], total: number, average: number): string {
  const top = niceCeiling(Math.max(...days.map((d) => d.amount)));
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = plotW / days.length;
  const barW = Math.max(1, slot * 0.75);
  const y = (amount: number) => TOP + plotH - (Math.max(0, amount) / top) * plotH;
  const title = l10n.t('Spend per day over the last {0} days', days.length);
  const desc = l10n.t('Total {0}, daily average {1}.', formatDollars(total), formatDollars(average));
  const parts = [
    `<svg class="spend-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="spend-chart-title spend-chart-desc">`,
    `<title id="spend-chart-title">${escapeMarkup(title)}</title>`,
    `<desc id="spend-chart-desc">${escapeMarkup(desc)}</desc>`,
  ];
  for (const tick of [0, top / 2, top]) {
    parts.push(
      `<line class="spend-grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${n(y(tick))}" y2="${n(y(tick))}"/>`,
      `<text class="spend-label" x="${LEFT - 6}" y="${n(y(tick) + 4)}" text-anchor="end">${escapeMarkup(formatDollars(tick))}</text>`,
    );
  }
  days.forEach((d, i) => {
    const x = LEFT + i * slot + (slot - barW) / 2;
    const h = TOP + plotH - y(d.amount);
    parts.push(
      `<rect class="spend-bar" x="${n(x)}" y="${n(y(d.amount))}" width="${n(barW)}" height="${n(h)}"><title>${escapeMarkup(
        `${d.day}: ${formatDollars(d.amount)}`,
      )}</title></rect>`,
    );
    // Every fifth day and the last one named under the axis, as MM-DD.
    if (i % 5 === 0 || i === days.length - 1)
      parts.push(
        `<text class="spend-label" x="${n(LEFT + i * slot + slot / 2)}" y="${HEIGHT - BOTTOM + 16}" text-anchor="middle">${escapeMarkup(d.day.slice(5))}</text>`,
      );
  });
  parts.push(`<line class="spend-axis" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${n(y(0))}" y2="${n(y(0))}"/>`, '</svg>');
  return parts.join('');
}

/**
 * The chart of `days` (oldest first). `total` is the sum of the lines the days were spread from
 * (`summarise`'s, as the Billing section and Export Spend sum them); the days' own sum otherwise.
 */
export function spendChart(days: readonly DaySpend[], total: number = days.reduce((t, d) => t + d.amount, 0)): SpendChart {
  const average = days.length ? total / days.length : 0;
  const empty = days.every((d) => !(Math.abs(d.amount) >= 0.0005));
  const width = Math.max(...days.map((d) => formatDollars(d.amount).length), 0);
  const text = [
    ...days.map((d) => `${d.day}  ${formatDollars(d.amount).padStart(width)}`),
    l10n.t('Total: {0}', formatDollars(total)),
    l10n.t('Daily average: {0}', formatDollars(average)),
  ].join('\n');
  return { days, total, average, empty, svg: empty ? '' : svgOf(days, total, average), text };
}

/** What the page says besides the chart: notes such as a page limit reached. */
export interface ChartPageOptions {
  readonly cspSource: string;
  readonly nonce: string;
  readonly notes?: readonly string[];
}

/** The webview's whole page: the chart, the total and average, the notes, and an accessible table of every day. */
export function spendChartPage(chart: SpendChart, o: ChartPageOptions): string {
  const csp = `default-src 'none'; style-src ${o.cspSource} 'nonce-${o.nonce}'`;
  const heading = l10n.t('Spend per day, last {0} days', chart.days.length);
  const notes = [
    ...(o.notes ?? []),
    l10n.t(
      'Days are UTC days. The service bills each instance or volume as one amount over the period; the chart spreads it over the days it covers, by time.',
    ),
  ];
  const body = chart.empty
    ? `<p class="empty">${escapeMarkup(l10n.t('No spend in the last {0} days', chart.days.length))}</p>`
    : [
        chart.svg,
        `<p class="totals">${escapeMarkup(l10n.t('Total: {0}', formatDollars(chart.total)))} · ${escapeMarkup(
          l10n.t('Daily average: {0}', formatDollars(chart.average)),
        )}</p>`,
        `<table><caption>${escapeMarkup(heading)}</caption><thead><tr><th scope="col">${escapeMarkup(l10n.t('Day (UTC)'))}</th><th scope="col">${escapeMarkup(
          l10n.t('Spend'),
        )}</th></tr></thead><tbody>`,
        ...chart.days.map((d) => `<tr><td>${escapeMarkup(d.day)}</td><td class="num">${escapeMarkup(formatDollars(d.amount))}</td></tr>`),
        `</tbody><tfoot><tr><th scope="row">${escapeMarkup(l10n.t('Total'))}</th><td class="num">${escapeMarkup(formatDollars(chart.total))}</td></tr></tfoot></table>`,
      ].join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeMarkup(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeMarkup(heading)}</title>
<style nonce="${escapeMarkup(o.nonce)}">
body { color: var(--vscode-foreground); font-family: var(--vscode-font-family); padding: 0 16px; }
.spend-chart { width: 100%; max-width: 760px; height: auto; }
.spend-bar { fill: var(--vscode-charts-blue); }
.spend-bar:hover { fill: var(--vscode-charts-orange); }
.spend-grid { stroke: var(--vscode-editorWidget-border, currentColor); stroke-opacity: 0.4; }
.spend-axis { stroke: var(--vscode-foreground); }
.spend-label { fill: var(--vscode-descriptionForeground); font-size: 11px; }
.notes, caption { color: var(--vscode-descriptionForeground); }
table { border-collapse: collapse; margin-top: 12px; }
th, td { padding: 2px 12px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
</style>
</head>
<body>
<h1>${escapeMarkup(heading)}</h1>
${body}
${notes.map((t) => `<p class="notes">${escapeMarkup(t)}</p>`).join('\n')}
</body>
</html>`;
}

/**
 * Reads every page of the last 30 days' charges (`lastDays`, the Billing section's and Export
 * Spend's range) and draws them; the total is the lines' sum, as they show it. `notes` says when the
 * page limit was reached.
 */
export async function readSpendChart(
  billing: Pick<BillingApi, 'charges'>,
  nowMs: number,
  maxPages = SPEND_MAX_PAGES,
): Promise<{ chart: SpendChart; notes: string[] }> {
  const { from, to } = lastDays(nowMs, CHART_DAYS);
  const read = await readPages((afterToken) => billing.charges({ from, to, limit: CHARGE_PAGE_SIZE, afterToken }), maxPages);
  const notes = read.complete
    ? []
    : [
        l10n.t(
          'Only the first {0} pages of charges were read ({1} lines); the chart shows less than was spent.',
          read.pages,
          read.entries.length,
        ),
      ];
  return { chart: spendChart(chargesByDay(read.entries, from, to), summarise(read.entries, []).charges), notes };
}
