/**
 * The webview's sentences that are built from several parts (the status line, the plot's summary
 * and tooltip), kept free of the DOM so that plain unit tests can read them in any language. Each
 * part is one whole message with `{n}` placeholders, so a translation can reorder it.
 */
import type { Offer } from '../../core/api/offers';
import { formatDollars } from '../../core/format';
import { l10n } from '../../core/l10n';

/** The toolbar's status after a search: how many offers, and what else the user should know. */
export function offersStatus(count: number, unreadable: number, ownLimit: boolean): string {
  return [
    l10n.t('{0} offers', count.toLocaleString('en-US')),
    unreadable > 0 ? l10n.t('{0} could not be read and are left out', unreadable) : '',
    ownLimit ? l10n.t('limit= in the query sets how many') : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The plot's text for screen readers: what it shows, its ranges, and the best value. */
export function plotSummary(count: number, maxPrice: number, maxDlperf: number, best: Offer | undefined): string {
  if (count === 0) return l10n.t('Price against DLPerf: no offers');
  const summary = l10n.t(
    'Price against DLPerf: {0} offers, prices up to {1}/h, DLPerf up to {2}.',
    count.toLocaleString('en-US'),
    formatDollars(maxPrice),
    Math.round(maxDlperf),
  );
  const bestText = best ? ' ' + l10n.t('Most DLPerf per dollar: {0} at {1}/h.', best.gpu_name, formatDollars(best.dph_total)) : '';
  return `${summary}${bestText} ${l10n.t('Use the table to move through offers.')}`;
}

/** The tooltip of a dot: the offer in one line, ending with its id as `#id` (the e2e test reads it). */
export function plotTip(o: Offer): string {
  const name = o.num_gpus > 1 ? l10n.t('{0} ×{1}', o.gpu_name, o.num_gpus) : o.gpu_name;
  // The id stays last, outside the message, whatever a translation does with the rest: the e2e test reads it there.
  const line = l10n.t('{0} · {1}/h · DLPerf {2} · {3}', name, formatDollars(o.dph_total), o.dlperf?.toFixed(1) ?? '?', o.geolocation ?? '');
  return `${line} · #${o.id}`;
}
