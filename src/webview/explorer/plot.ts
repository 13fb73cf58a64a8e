/// <reference lib="dom" />
/**
 * The price–performance scatter plot: $/h across, DLPerf up, one dot per offer on a canvas (10,000
 * dots draw in one path). Hover shows the offer, a click selects it. Colours are the theme's chart
 * colours. The canvas carries a text summary for screen readers; the table is the keyboard way in.
 */
import type { Offer } from '../../core/api/offers';
import { formatDollars } from '../../core/format';
import { l10n } from '../../core/l10n';
import { h, themeColor } from './dom';
import { plotSummary, plotTip } from './text';

const PAD = { left: 44, right: 10, top: 10, bottom: 26 };
const HIT_RADIUS = 7;

export class ScatterPlot {
  readonly root: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly tip: HTMLElement;
  private offers: readonly Offer[] = [];
  private rows: readonly number[] = [];
  /** Screen positions of the drawn dots, CSS pixels, in `rows` order; NaN for an offer without DLPerf. */
  private xs = new Float32Array(0);
  private ys = new Float32Array(0);
  private selectedId: number | undefined;
  private hovered = -1;

  constructor(private readonly onSelect: (offerId: number) => void) {
    this.canvas = h('canvas', { class: 'plot', role: 'img', 'aria-label': plotSummary(0, 0, 0, undefined) });
    this.tip = h('div', { class: 'plot-tip', role: 'tooltip', hidden: true });
    this.root = h('div', { class: 'plot-box' }, this.canvas, this.tip);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => this.setHover(-1));
    this.canvas.addEventListener('click', (e) => {
      const i = this.nearest(e);
      if (i >= 0) this.onSelect(this.offers[this.rows[i]!]!.id);
    });
    new ResizeObserver(() => this.draw()).observe(this.root);
  }

  show(offers: readonly Offer[], rows: readonly number[], selectedId: number | undefined): void {
    this.offers = offers;
    this.rows = rows;
    this.selectedId = selectedId;
    this.hovered = -1;
    this.tip.hidden = true;
    this.draw();
  }

  select(offerId: number | undefined): void {
    this.selectedId = offerId;
    this.draw();
  }

  /** The dot of an offer, in the canvas's CSS pixels (the e2e test clicks it). */
  dotOf(offerId: number): { x: number; y: number } | undefined {
    for (let i = 0; i < this.rows.length; i++) {
      if (this.offers[this.rows[i]!]!.id === offerId && !Number.isNaN(this.xs[i]!)) return { x: this.xs[i]!, y: this.ys[i]! };
    }
    return undefined;
  }

  private draw(): void {
    const width = this.root.clientWidth;
    const height = this.root.clientHeight;
    if (width === 0 || height === 0) return;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    const g = this.canvas.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    const fg = themeColor('--vscode-foreground', '#ccc');
    const muted = themeColor('--vscode-descriptionForeground', '#999');
    const dot = themeColor('--vscode-charts-blue', '#3794ff');
    const hot = themeColor('--vscode-charts-orange', '#d18616');
    const font = themeColor('--vscode-font-family', 'sans-serif');

    let maxX = 0;
    let maxY = 0;
    for (const i of this.rows) {
      const o = this.offers[i]!;
      if (o.dph_total > maxX) maxX = o.dph_total;
      if ((o.dlperf ?? 0) > maxY) maxY = o.dlperf ?? 0;
    }
    maxX = niceMax(maxX);
    maxY = niceMax(maxY);
    const plotW = width - PAD.left - PAD.right;
    const plotH = height - PAD.top - PAD.bottom;
    const sx = (x: number) => PAD.left + (x / maxX) * plotW;
    const sy = (y: number) => PAD.top + plotH - (y / maxY) * plotH;

    // Axes and their end labels.
    g.strokeStyle = muted;
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(PAD.left, PAD.top);
    g.lineTo(PAD.left, PAD.top + plotH);
    g.lineTo(PAD.left + plotW, PAD.top + plotH);
    g.stroke();
    g.fillStyle = muted;
    g.font = `11px ${font}`;
    g.textAlign = 'right';
    g.fillText(String(Math.round(maxY)), PAD.left - 4, PAD.top + 8);
    g.fillText('0', PAD.left - 4, PAD.top + plotH);
    g.save();
    g.translate(12, PAD.top + plotH / 2);
    g.rotate(-Math.PI / 2);
    g.textAlign = 'center';
    g.fillText(l10n.t('DLPerf'), 0, 0);
    g.restore();
    g.textAlign = 'center';
    g.fillText(l10n.t('$/h'), PAD.left + plotW / 2, height - 6);
    g.textAlign = 'right';
    g.fillText(formatDollars(maxX), PAD.left + plotW, height - 6);

    // Dots: one path for all, then the selected one on top.
    this.xs = new Float32Array(this.rows.length);
    this.ys = new Float32Array(this.rows.length);
    g.fillStyle = dot;
    g.globalAlpha = 0.55;
    g.beginPath();
    let selected = -1;
    for (let k = 0; k < this.rows.length; k++) {
      const o = this.offers[this.rows[k]!]!;
      if (o.dlperf === null || o.dlperf === undefined) {
        this.xs[k] = NaN;
        this.ys[k] = NaN;
        continue;
      }
      const x = sx(o.dph_total);
      const y = sy(o.dlperf);
      this.xs[k] = x;
      this.ys[k] = y;
      if (o.id === this.selectedId) selected = k;
      g.rect(x - 1.5, y - 1.5, 3, 3);
    }
    g.fill();
    g.globalAlpha = 1;
    for (const [k, color] of [
      [this.hovered, fg],
      [selected, hot],
    ] as const) {
      if (k < 0 || Number.isNaN(this.xs[k]!)) continue;
      g.fillStyle = color;
      g.strokeStyle = color;
      g.beginPath();
      g.arc(this.xs[k]!, this.ys[k]!, 4.5, 0, Math.PI * 2);
      g.fill();
    }
    this.canvas.setAttribute('aria-label', this.summary(maxX, maxY));
  }

  private summary(maxX: number, maxY: number): string {
    let best: Offer | undefined;
    for (const i of this.rows) {
      const o = this.offers[i]!;
      if ((o.dlperf_per_dphtotal ?? -1) > (best?.dlperf_per_dphtotal ?? -1)) best = o;
    }
    return plotSummary(this.rows.length, maxX, maxY, best);
  }

  private nearest(e: MouseEvent): number {
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    let best = -1;
    let bestD = HIT_RADIUS * HIT_RADIUS;
    for (let k = 0; k < this.xs.length; k++) {
      const dx = this.xs[k]! - x;
      const dy = this.ys[k]! - y;
      const d = dx * dx + dy * dy;
      if (d <= bestD) {
        bestD = d;
        best = k;
      }
    }
    return best;
  }

  private hover(e: MouseEvent): void {
    this.setHover(this.nearest(e));
  }

  private setHover(k: number): void {
    if (k === this.hovered) return;
    this.hovered = k;
    if (k < 0) {
      this.tip.hidden = true;
    } else {
      const o = this.offers[this.rows[k]!]!;
      this.tip.textContent = plotTip(o);
      this.tip.hidden = false;
      const left = Math.min(this.xs[k]! + 8, Math.max(0, this.root.clientWidth - this.tip.offsetWidth - 4));
      this.tip.style.left = `${left}px`;
      this.tip.style.top = `${Math.max(0, this.ys[k]! - 28)}px`;
    }
    this.draw();
  }
}

/** A round upper bound for an axis: 1.37 → 1.5, 870 → 1000. */
function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const pow = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (value <= step * pow) return step * pow;
  return 10 * pow;
}
