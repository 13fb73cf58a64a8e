import assert from 'node:assert/strict';
import type { BillingPage, BillingRange } from '../../../src/core/api/billing';
import { escapeMarkup, readSpendChart, spendChart, spendChartPage } from '../../../src/core/billing/chart';
import { lastDays } from '../../../src/core/billing/period';

const days = (amounts: number[]) => amounts.map((amount, i) => ({ day: `2026-10-${String(i + 1).padStart(2, '0')}`, amount }));

describe('the 30-day spend chart', () => {
  it('draws one bar per day, each with a tooltip naming its day and amount, days on the axis, total and average written', () => {
    const amounts = Array.from({ length: 30 }, (_, i) => (i === 4 ? 12.5 : i % 3));
    const chart = spendChart(days(amounts));
    assert.equal((chart.svg.match(/<rect class="spend-bar"/g) ?? []).length, 30);
    assert.match(chart.svg, /<title>2026-10-05: \$12\.50<\/title><\/rect>/);
    assert.match(chart.svg, />10-01<\/text>/);
    assert.match(chart.svg, />10-30<\/text>/);
    const total = amounts.reduce((a, b) => a + b, 0);
    assert.equal(chart.total, total);
    assert.match(chart.text, new RegExp(`Total: \\$${total.toFixed(2)}`));
    assert.match(chart.text, new RegExp(`Daily average: \\$${(total / 30).toFixed(2)}`));
    assert.match(chart.text, /^2026-10-05 +\$12\.50$/m);
    // The tallest bar reaches the top of a round axis (12.5 → 20), a zero day has no height.
    assert.match(chart.svg, />\$20\.00</);
    assert.match(chart.svg, /<rect class="spend-bar" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="0">/);
  });

  it('says "No spend in the last 30 days" for an empty month, without a chart', () => {
    const chart = spendChart(days(Array.from({ length: 30 }, () => 0)));
    assert.equal(chart.empty, true);
    assert.equal(chart.svg, '');
    const page = spendChartPage(chart, { cspSource: 'vscode-resource:', nonce: 'abc' });
    assert.match(page, /No spend in the last 30 days/);
    assert.doesNotMatch(page, /<svg/);
  });

  it('serves a page with a strict policy: no script, style by nonce, theme colours, and an accessible table', () => {
    const chart = spendChart(days([1, 2, 3]));
    const page = spendChartPage(chart, { cspSource: 'https://self', nonce: 'n0nce', notes: ['Only the first <b>200</b> pages'] });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(page)![1]!.replace(/&#39;/g, "'");
    assert.equal(csp, "default-src 'none'; style-src https://self 'nonce-n0nce'");
    assert.doesNotMatch(page, /<script/i);
    assert.match(page, /<style nonce="n0nce">/);
    assert.match(page, /var\(--vscode-charts-blue\)/);
    assert.match(page, /<table><caption>Spend per day, last 3 days<\/caption>/);
    assert.match(page, /<tr><td>2026-10-03<\/td><td class="num">\$3\.00<\/td><\/tr>/);
    assert.match(page, /Only the first &lt;b&gt;200&lt;\/b&gt; pages/, 'a note is text, not markup');
  });

  it('escapes every text it writes', () => {
    assert.equal(escapeMarkup(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const chart = spendChart([{ day: '<script>', amount: 1 }]);
    assert.doesNotMatch(chart.svg + spendChartPage(chart, { cspSource: 'x', nonce: 'y' }), /<script>/);
  });

  it('reads every page of the last 30 UTC days, today included, and spreads the charges on them', async () => {
    const now = Date.parse('2026-10-31T06:00:00Z');
    const range = lastDays(now);
    assert.equal(new Date(range.from * 1000).toISOString(), '2026-10-02T00:00:00.000Z');
    const asked: BillingRange[] = [];
    const billing = {
      charges: (r: BillingRange): Promise<BillingPage> => {
        asked.push(r);
        return Promise.resolve(
          r.afterToken
            ? { results: [{ source: 'instance-2', amount: 4, start: range.from, end: range.from + 86_400 }], next_token: null }
            : { results: [{ source: 'instance-1', amount: 6, start: range.to - 3_600, end: range.to }], next_token: 'next' },
        );
      },
    };
    const { chart, notes } = await readSpendChart(billing as never, now);
    assert.equal(asked.length, 2);
    assert.deepEqual(notes, []);
    assert.equal(chart.days.length, 30);
    assert.equal(chart.days[0]!.amount, 4);
    assert.equal(chart.days[29]!.day, '2026-10-31');
    assert.equal(chart.days[29]!.amount, 6);
    const capped = await readSpendChart(billing as never, now, 1);
    assert.match(capped.notes[0]!, /Only the first 1 pages of charges/);
  });
});
