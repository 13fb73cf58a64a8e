/**
 * How the extension's translations reach the Offer Explorer's webview: the panel writes
 * `vscode.l10n.bundle` into the page as a JSON data block, and the webview reads it back before
 * any module builds a message (src/webview/explorer/l10n.ts). Pure text in and out, shared by both
 * sides, like the message protocol beside it.
 *
 * A data block (`<script type="application/json">`) is never run, so the page's nonce-only CSP
 * stays as strict as before; and the page has the translations at once, with no message round trip
 * before the first paint.
 */

import type { L10nBundle } from '../../l10n';

export type { L10nBundle };

/** The id of the data block in the page. */
export const L10N_DATA_ID = 'gpu-rental-l10n';

/**
 * The data block holding `bundle` (an empty object in English, where VS Code has no bundle).
 * Every `<`, `>` and `&` in the JSON is written as a `\u` escape, which JSON reads back as the same
 * character: a translation holding `</script>` or `<!--` cannot end the block or change how the
 * HTML parser reads it. U+2028/2029 are escaped too, for any reader that treats them as line ends.
 */
export function l10nDataBlock(bundle: L10nBundle | undefined): string {
  const json = JSON.stringify(bundle ?? {}).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `<script type="application/json" id="${L10N_DATA_ID}">${json}</script>`;
}

/**
 * The bundle in a data block's text, keeping only well-formed entries (a string, or an object
 * with a string `message`); undefined when there is no block or it does not parse, so the page
 * shows English rather than failing.
 */
export function readL10nData(text: string | null | undefined): L10nBundle | undefined {
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const bundle: L10nBundle = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof value === 'string') bundle[key] = value;
    else if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
      bundle[key] = { message: (value as { message: string }).message };
    }
  }
  return bundle;
}
