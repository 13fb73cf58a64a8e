import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Offer } from '../../../../src/core/api/offers';
import { bundleTranslator, format, l10n, useTranslator } from '../../../../src/core/l10n';
import { L10N_DATA_ID, l10nDataBlock, readL10nData, type L10nBundle } from '../../../../src/core/offers/explorer/l10nData';
import { offersStatus, plotSummary, plotTip } from '../../../../src/webview/explorer/text';

/** The text inside the data block, as the webview's `textContent` reads it. */
function blockText(html: string): string {
  const match = new RegExp(`^<script type="application/json" id="${L10N_DATA_ID}">(.*)</script>$`, 's').exec(html);
  assert.ok(match, `one data block: ${html}`);
  return match[1]!;
}

const offer = { id: 77, gpu_name: 'RTX 4090', num_gpus: 2, dph_total: 0.8, dlperf: 51.25, geolocation: 'CA' } as Offer;

describe('offer explorer localisation', () => {
  afterEach(() => useTranslator(format));

  it('writes the bundle into the page so that no translation can end the block or open a comment', () => {
    const bundle: L10nBundle = {
      '{0} offers': '</script><script>alert(1)</script> {0}',
      Columns: '<!-- & --> \u2028',
      Rent: { message: 'Mieten' },
    };
    const html = l10nDataBlock(bundle);
    const text = blockText(html);
    assert.doesNotMatch(text, /[<>&\u2028]/);
    assert.equal(html.match(/<\/script/gi)?.length, 1, 'only the block’s own end tag');
    assert.deepEqual(JSON.parse(text), bundle);
    assert.deepEqual(readL10nData(text), bundle);
  });

  it('writes an empty bundle in English, where VS Code has none', () => {
    assert.equal(blockText(l10nDataBlock(undefined)), '{}');
    assert.deepEqual(readL10nData('{}'), {});
  });

  it('reads a missing or broken block as no bundle, and keeps only well-formed entries', () => {
    for (const text of [undefined, null, '', 'not json', '[1]', 'null', '"x"']) assert.equal(readL10nData(text), undefined, String(text));
    assert.deepEqual(readL10nData('{"a":"A","b":{"message":"B"},"c":3,"d":{"text":"x"},"e":null}'), { a: 'A', b: { message: 'B' } });
  });

  it('renders the webview’s sentences from the bundle the page carries, English where it lacks one', () => {
    const bundle: L10nBundle = {
      '{0} offers': '{0} Angebote',
      'limit= in the query sets how many': 'limit= in der Abfrage bestimmt die Anzahl',
      '{0} · {1}/h · DLPerf {2} · {3}': '{1}/Std. · {0} · DLPerf {2} · {3}',
    };
    useTranslator(bundleTranslator(readL10nData(blockText(l10nDataBlock(bundle)))));
    assert.equal(offersStatus(1234, 0, true), '1,234 Angebote · limit= in der Abfrage bestimmt die Anzahl');
    assert.equal(offersStatus(5, 2, false), '5 Angebote · 2 could not be read and are left out');
    // Reordered placeholders, the nested "{0} ×{1}" (not in the bundle) stays English, and the id stays last.
    assert.equal(plotTip(offer), '$0.800/Std. · RTX 4090 ×2 · DLPerf 51.3 · CA · #77');
  });

  it('reads as before in English', () => {
    assert.equal(offersStatus(10_000, 3, false), '10,000 offers · 3 could not be read and are left out');
    assert.equal(plotSummary(0, 0, 0, undefined), 'Price against DLPerf: no offers');
    assert.equal(
      plotSummary(2, 1.5, 100, offer),
      'Price against DLPerf: 2 offers, prices up to $1.50/h, DLPerf up to 100. Most DLPerf per dollar: RTX 4090 at $0.800/h. Use the table to move through offers.',
    );
    assert.match(plotTip(offer), /#77$/);
  });

  it('sets the translator from the page when the webview starts, before the modules that build messages', async () => {
    const page = l10nDataBlock({ 'Offer Explorer': 'Angebots-Explorer' });
    const g = globalThis as { document?: unknown };
    g.document = { getElementById: (id: string) => (id === L10N_DATA_ID ? { textContent: blockText(page) } : null) };
    try {
      await import('../../../../src/webview/explorer/l10n');
      assert.equal(l10n.t('Offer Explorer'), 'Angebots-Explorer');
      assert.equal(l10n.t('Rent'), 'Rent');
    } finally {
      delete g.document;
    }
    // The entry imports it before anything else, so columns and the filter bar's labels load translated.
    const main = readFileSync('src/webview/explorer/main.ts', 'utf8');
    assert.match(main, /^import [^;]*;/m);
    assert.equal(/^import [^;]*;/m.exec(main)?.[0], "import './l10n';");
  });
});
