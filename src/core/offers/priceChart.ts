/**
 * A small price-history chart of one GPU model as a self-contained SVG string: no script, no
 * style element, no external reference, so a webview with a strict content security policy can
 * put it in its page as is. Colours come from `currentColor` and from the class names below, which
 * the webview's stylesheet maps to theme variables (e.g. `.price-chart-mark { stroke:
 * var(--vscode-charts-orange) }`), so the chart follows the theme.
 */
import { formatDollars } from '../format';
import type { GpuPriceStats } from './priceContext';
import { l10n } from '../l10n';

/** The class names a stylesheet can colour; every drawn element carries one. */
export const PRICE_CHART_CLASSES = {
  root: 'price-chart',
  line: 'price-chart-line',
  median: 'price-chart-median',
  mark: 'price-chart-mark',
  axis: 'price-chart-axis',
  label: 'price-chart-label',
  empty: 'price-chart-empty',
} as const;

export interface PriceChartOptions {
  width: number;
  height: number;
  /** An offer's price per GPU per hour, drawn as a horizontal line. */
  mark?: number;
}

/** Text from the service (a GPU name) made safe inside SVG text and attributes. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Coordinates with one decimal: enough for a screen, short in the page. */
function n(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

function spanText(seconds: number): string {
  if (seconds >= 1.5 * 86_400) return `${Math.round(seconds / 86_400)} days`;
  if (seconds >= 2 * 3600) return `${Math.round(seconds / 3600)} hours`;
  return l10n.t('the last hour');
}

function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * What the chart shows, in words: its `<title>` and `aria-label`, so a screen reader and a hover
 * both get the low, median and high of the period, and the offer's price when marked.
 */
export function priceChartSummary(stats: GpuPriceStats, mark?: number): string {
  const points = stats.history;
  if (points.length === 0) return l10n.t('No price history for {0}', stats.gpuName);
  const prices = points.map((p) => p.median);
  const span = points[points.length - 1]!.t - points[0]!.t;
  const parts = [
    l10n.t('{0} median price per GPU per hour over {1}', stats.gpuName, spanText(span)),
    `low ${formatDollars(Math.min(...prices))}`,
    `median ${formatDollars(stats.median7d ?? middle(prices))}`,
    `high ${formatDollars(Math.max(...prices))}`,
  ];
  const text = `${parts[0]}: ${parts.slice(1).join(', ')}`;
  return mark !== undefined && Number.isFinite(mark) ? l10n.t('{0}; this offer {1}', text, formatDollars(mark)) : text;
}

/** The chart of a model's median price over its history, with the offer's price marked when given. */
export function priceHistorySvg(stats: GpuPriceStats, options: PriceChartOptions): string {
  const width = Math.max(40, Math.round(options.width));
  const height = Math.max(24, Math.round(options.height));
  const mark = options.mark !== undefined && Number.isFinite(options.mark) && options.mark >= 0 ? options.mark : undefined;
  const summary = escapeXml(priceChartSummary(stats, mark));
  const C = PRICE_CHART_CLASSES;
  const open = `<svg xmlns="http://www.w3.org/2000/svg" class="${C.root}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${summary}"><title>${summary}</title>`;
  const points = stats.history;
  if (points.length === 0) {
    return `${open}<text class="${C.empty}" x="${n(width / 2)}" y="${n(height / 2)}" text-anchor="middle" dominant-baseline="middle" fill="currentColor">No price history</text></svg>`;
  }

  // Room on the left for the price labels, a little elsewhere so strokes are not cut.
  const left = Math.min(48, Math.round(width * 0.28));
  const pad = 4;
  const plotW = width - left - pad;
  const plotH = height - 2 * pad;
  const prices = points.map((p) => p.median);
  const top = Math.max(...prices, mark ?? -Infinity);
  const bottom = Math.min(...prices, mark ?? Infinity);
  // A flat history still gets a band to sit in, and the line never touches the frame.
  const margin = Math.max((top - bottom) * 0.08, top * 0.02, 1e-6);
  const lo = Math.max(0, bottom - margin);
  const hi = top + margin;
  const t0 = points[0]!.t;
  const t1 = points[points.length - 1]!.t;
  const x = (t: number) => left + (t1 === t0 ? plotW / 2 : ((t - t0) / (t1 - t0)) * plotW);
  const y = (v: number) => pad + (1 - (v - lo) / (hi - lo)) * plotH;

  const parts: string[] = [open];
  parts.push(
    `<line class="${C.axis}" x1="${left}" y1="${n(pad + plotH)}" x2="${n(left + plotW)}" y2="${n(pad + plotH)}" stroke="currentColor" stroke-opacity="0.3" stroke-width="1"/>`,
  );
  for (const [value, baseline] of [
    [top, 'hanging'],
    [bottom, 'auto'],
  ] as const) {
    parts.push(
      `<text class="${C.label}" x="${left - 3}" y="${n(y(value))}" text-anchor="end" dominant-baseline="${baseline}" font-size="9" fill="currentColor" fill-opacity="0.7">${escapeXml(formatDollars(value))}</text>`,
    );
  }
  if (stats.median7d !== undefined) {
    const my = n(y(stats.median7d));
    parts.push(
      `<line class="${C.median}" x1="${left}" y1="${my}" x2="${n(left + plotW)}" y2="${my}" stroke="currentColor" stroke-opacity="0.5" stroke-dasharray="3 3" stroke-width="1"/>`,
    );
  }
  const path = points.map((p) => `${n(x(p.t))},${n(y(p.median))}`).join(' ');
  parts.push(
    `<polyline class="${C.line}" points="${path}" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round"/>`,
  );
  if (mark !== undefined) {
    const my = n(y(mark));
    parts.push(
      `<line class="${C.mark}" x1="${left}" y1="${my}" x2="${n(left + plotW)}" y2="${my}" stroke="currentColor" stroke-width="1.5"/>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}
