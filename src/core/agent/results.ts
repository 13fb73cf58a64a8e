/**
 * What the read-only tools answer a model: short plain text with ids, prices and states, and
 * nothing secret (no key, no ssh key, no webhook URL). Every value the service or an instance
 * wrote (a GPU's name, a label, a job's output) is shown through visibleText (core/text.ts), the
 * one way machine text is shown: hidden characters escaped, no link syntax, cut to a length.
 */
import type { Instance } from '../api/instances';
import type { Offer } from '../api/offers';
import { formatHours, hoursLeft } from '../billing/burn';
import type { MonthTotals } from '../billing/monthTotals';
import { formatDollars } from '../format';
import type { Burn } from '../instances/rates';
import { gpuSummary, instanceName } from '../instances/names';
import { presentInstance } from '../instances/present';
import type { JobRow } from '../jobs/rows';
import { describePriceContext, type GpuPriceStats } from '../offers/priceContext';
import { countryCode } from '../offers/present';
import { describeDiskPricing, describeSearch, OFFER_SORTS, relaxations, type OfferSort } from '../offers/search';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/** The longest line of a job's output a result quotes. */
export const OUTPUT_LINE_MAX = 400;
/** The most job rows a result lists under one instance (the newest). */
const JOBS_PER_INSTANCE = 5;

/** One offer on one line: its id first, then what a rent of it costs and what it is. */
export function offerLine(offer: Offer, stats: GpuPriceStats | undefined, bid: boolean): string {
  const gpus = `${visibleText(offer.gpu_name)}${offer.num_gpus > 1 ? ` ×${offer.num_gpus}` : ''}`;
  const price = bid ? l10n.t('bid from {0}/h', formatDollars(offer.dph_total)) : `${formatDollars(offer.dph_total)}/h`;
  const parts = [
    l10n.t('offer {0}: {1}', offer.id, gpus),
    price,
    l10n.t('{0} GB VRAM per GPU', Math.round(offer.gpu_ram / 1024)),
    countryCode(offer.geolocation) && visibleText(countryCode(offer.geolocation)!, 20),
    typeof offer.reliability2 === 'number' && l10n.t('reliability {0}%', (offer.reliability2 * 100).toFixed(1)),
    typeof offer.dlperf_per_dphtotal === 'number' && l10n.t('DLPerf per $/h {0}', offer.dlperf_per_dphtotal.toFixed(1)),
    typeof offer.disk_space === 'number' && l10n.t('{0} GB disk free', Math.round(offer.disk_space)),
    describePriceContext(offer, stats),
  ];
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' · ');
}

/** The search's answer: what was searched, then one offer a line; none found names the filters to loosen. */
export function offersText(
  offers: readonly Offer[],
  search: { query: string; sort: OfferSort },
  stats: ReadonlyMap<string, GpuPriceStats>,
  bid: boolean,
): string {
  const what = visibleText(describeSearch({ query: search.query, sort: search.sort, pages: 1 }), 300);
  if (offers.length === 0) {
    const loosen = relaxations(search.query).map((r) => visibleText(r.description, 80));
    return loosen.length > 0
      ? l10n.t('No offer matches {0}. Try again without one of: {1}.', what, loosen.join(', '))
      : l10n.t('No offer matches {0} now. Try again later.', what);
  }
  const head = l10n.t(
    '{0} offers for {1}, {2}; {3}. Rent one with gpuRental_rentOffer and its offer id.',
    offers.length,
    what,
    OFFER_SORTS[search.sort].label.toLowerCase(),
    describeDiskPricing(search.query),
  );
  return [head, ...offers.map((o) => offerLine(o, stats.get(o.gpu_name), bid))].join('\n');
}

/** A job's line under its instance: its id, its label (the instance's text) and its state. */
export function jobLine(row: JobRow): string {
  return l10n.t('job {0} "{1}": {2}', visibleText(row.jobId, 60), visibleText(row.label, 120), row.description);
}

/**
 * The account's instances as the Instances view lists them (the row's name and description: the
 * phase, the rate, the uptime, the health), each with its jobs, and what they spend together.
 */
export function instancesText(
  instances: readonly Instance[],
  jobs: (instanceId: number) => readonly JobRow[],
  burn: Burn,
  nowMs: number,
): string {
  if (instances.length === 0) return l10n.t('The account has no instances. Find an offer with gpuRental_searchOffers.');
  const rates = [formatDollars(burn.perHour), formatDollars(burn.computePerHour), formatDollars(burn.storagePerHour)] as const;
  const head =
    instances.length === 1
      ? l10n.t('1 instance; it bills {0}/h now ({1}/h running, {2}/h disks of stopped ones).', ...rates)
      : l10n.t('{0} instances; together they bill {1}/h now ({2}/h running, {3}/h disks of stopped ones).', instances.length, ...rates);
  const lines = [head];
  for (const i of instances) {
    const row = presentInstance(i, { nowMs });
    const label = i.label ? ` "${visibleText(i.label)}"` : '';
    lines.push(`#${i.id} ${visibleText(gpuSummary(i))}${label}: ${visibleText(row.description, 300)}`);
    const rows = jobs(i.id);
    for (const job of rows.slice(-JOBS_PER_INSTANCE)) lines.push(`  ${jobLine(job)}`);
    if (rows.length > JOBS_PER_INSTANCE) lines.push(`  ${l10n.t('({0} older jobs not listed)', rows.length - JOBS_PER_INSTANCE)}`);
  }
  return lines.join('\n');
}

/**
 * The last `lines` lines of a job's output, each shown through visibleText: a line's escape
 * sequences and hidden characters are escapes, a link is no link, a long line is cut.
 */
export function outputTail(log: string, lines: number): string[] {
  const all = log.replace(/\r\n/g, '\n').split('\n');
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  return all.slice(-lines).map((line) => visibleText(line, OUTPUT_LINE_MAX));
}

/** A job's status and the end of its output. */
export function jobOutputText(instance: Instance, row: JobRow, log: string | undefined, lines: number): string {
  const head = l10n.t(
    'Job {0} "{1}" on {2}: {3}.',
    visibleText(row.jobId, 60),
    visibleText(row.label, 120),
    instanceName(instance),
    row.description,
  );
  if (log === undefined) return `${head} ${l10n.t('Its output could not be read now.')}`;
  const tail = outputTail(log, lines);
  if (tail.length === 0) return `${head} ${l10n.t('It has written no output yet.')}`;
  return [`${head} ${l10n.t('The last {0} lines of its output:', tail.length)}`, ...tail].join('\n');
}

/** What the account has and spends: the credit, the burn and how long the credit lasts at it, the cap, this and last month. */
export function accountText(a: {
  credit: number | undefined;
  burn: Burn;
  cap: number | undefined;
  months: readonly MonthTotals[] | undefined;
}): string {
  const lines = [
    a.credit === undefined ? l10n.t('Credit: not reported for this key.') : l10n.t('Credit: {0}.', formatDollars(a.credit)),
    l10n.t(
      'Spending now: {0}/h ({1}/h running instances, {2}/h disks of stopped ones).',
      formatDollars(a.burn.perHour),
      formatDollars(a.burn.computePerHour),
      formatDollars(a.burn.storagePerHour),
    ),
  ];
  if (a.credit !== undefined && a.burn.perHour > 0)
    lines.push(l10n.t('At this rate the credit lasts about {0}.', formatHours(hoursLeft(a.credit, a.burn.perHour))));
  lines.push(
    a.cap === undefined
      ? l10n.t('Spend limit: none set (gpuRental.maxHourlySpend).')
      : l10n.t('Spend limit: {0}/h (gpuRental.maxHourlySpend); a rent or start above it is refused.', formatDollars(a.cap)),
  );
  for (const m of a.months ?? []) {
    const charges = formatDollars(m.summary.charges);
    const credits = formatDollars(m.summary.credits);
    const month = visibleText(m.period.name, 40);
    lines.push(
      m.complete
        ? l10n.t('{0}: {1} charges, {2} credits.', month, charges, credits)
        : l10n.t('{0}: {1} charges, {2} credits (first pages only).', month, charges, credits),
    );
  }
  if (a.months === undefined) lines.push(l10n.t('The monthly charges could not be read with this key.'));
  return lines.join('\n');
}
