/// <reference lib="dom" />
/**
 * Sets the webview's translator from the bundle the panel wrote into the page. main.ts imports
 * this module first: the core modules it shares with the extension (columns, rows, the filter
 * bar's labels) build some messages while they load, and those must already be translated.
 */
import { bundleTranslator, useTranslator } from '../../core/l10n';
import { L10N_DATA_ID, readL10nData } from '../../core/offers/explorer/l10nData';

useTranslator(bundleTranslator(readL10nData(document.getElementById(L10N_DATA_ID)?.textContent)));
