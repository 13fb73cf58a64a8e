import assert from 'node:assert/strict';
import { PRICE_CHART_CLASSES, priceChartSummary, priceHistorySvg } from '../../../src/core/offers/priceChart';
import type { GpuPriceStats } from '../../../src/core/offers/priceContext';

const DAY = 86_400;
const start = 1_790_000_000;
/** A week of hourly points from 0.40 to 0.50 and back. */
const week: GpuPriceStats = {
  gpuName: 'RTX 4090',
  median7d: 0.45,
  history: Array.from({ length: 7 * 24 + 1 }, (_, i) => ({ t: start + i * 3600, median: 0.4 + 0.1 * Math.sin((Math.PI * i) / (7 * 24)) })),
};

/** The y coordinates of the polyline's points, and of a horizontal line by class. */
function polyline(svg: string): Array<[number, number]> {
  const points = /<polyline [^>]*points="([^"]+)"/.exec(svg)![1]!;
  return points.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
}
function lineY(svg: string, cls: string): number | undefined {
  const m = new RegExp(`<line class="${cls}" [^>]*y1="([\\d.]+)"`).exec(svg);
  return m ? Number(m[1]) : undefined;
}

describe('price history chart', () => {
  it('is self-contained SVG: no script, style, event handler or external reference', () => {
    const svg = priceHistorySvg(week, { width: 240, height: 80, mark: 0.42 });
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="price-chart" width="240" height="80" viewBox="0 0 240 80"/);
    assert.ok(svg.endsWith('</svg>'));
    assert.doesNotMatch(svg, /<script|<style|<foreignObject|<image|<use|href=|url\(|\son\w+=/i);
    assert.equal((svg.match(/https?:/g) ?? []).length, 1, 'only the namespace');
  });

  it('summarises low, median and high (and the offer) in its title and aria-label', () => {
    const svg = priceHistorySvg(week, { width: 240, height: 80, mark: 0.42 });
    const summary = 'RTX 4090 median price per GPU per hour over 7 days: low $0.400, median $0.450, high $0.500; this offer $0.420';
    assert.equal(priceChartSummary(week, 0.42), summary);
    assert.ok(svg.includes(`role="img" aria-label="${summary}"`));
    assert.ok(svg.includes(`<title>${summary}</title>`));
  });

  it('draws the history oldest to newest, higher prices higher, inside the frame', () => {
    const svg = priceHistorySvg(week, { width: 240, height: 80 });
    const pts = polyline(svg);
    assert.equal(pts.length, week.history.length);
    assert.ok(pts.every(([x], i) => i === 0 || x > pts[i - 1]![0]));
    assert.ok(pts.every(([x, y]) => x >= 0 && x <= 240 && y >= 0 && y <= 80));
    const peak = pts[84]![1];
    assert.ok(peak < pts[0]![1] && peak < pts[pts.length - 1]![1], 'the dearest point is the highest');
    assert.ok(lineY(svg, PRICE_CHART_CLASSES.median)! < pts[0]![1], 'the 7-day median line sits above the cheapest points');
    assert.equal(lineY(svg, PRICE_CHART_CLASSES.mark), undefined, 'no mark unless asked');
  });

  it('marks an offer price as a horizontal line, also one outside the history', () => {
    const under = priceHistorySvg(week, { width: 240, height: 80, mark: 0.3 });
    const markY = lineY(under, PRICE_CHART_CLASSES.mark)!;
    assert.ok(
      polyline(under).every(([, y]) => y < markY),
      'below every point',
    );
    assert.ok(markY <= 80);
    for (const cls of Object.values(PRICE_CHART_CLASSES).filter((c) => c !== 'price-chart-empty'))
      assert.ok(under.includes(`class="${cls}"`), cls);
  });

  it('escapes a GPU name from the service and says when there is no history', () => {
    const odd: GpuPriceStats = { gpuName: 'X"<script>&', history: [] };
    const svg = priceHistorySvg(odd, { width: 100, height: 40 });
    assert.ok(svg.includes('aria-label="No price history for X&quot;&lt;script&gt;&amp;"'));
    assert.doesNotMatch(svg, /<script/);
    assert.match(svg, /<text class="price-chart-empty"[^>]*>No price history<\/text>/);
  });

  it('draws one point or a flat history without dividing by zero', () => {
    const one: GpuPriceStats = { gpuName: 'H200', history: [{ t: start, median: 3 }] };
    const flat: GpuPriceStats = { gpuName: 'H200', history: [0, 1, 2].map((i) => ({ t: start + i * DAY, median: 3 })) };
    for (const s of [one, flat]) {
      const svg = priceHistorySvg(s, { width: 120, height: 40 });
      assert.doesNotMatch(svg, /NaN|Infinity/);
    }
    assert.match(priceChartSummary(flat), /over 2 days: low \$3\.00, median \$3\.00, high \$3\.00$/);
  });
});
