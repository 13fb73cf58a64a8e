import { formatDollars } from '../format';
import type { Offer } from '../api/offers';
import type { OfferFilters } from '../api/offerQuery';
import { l10n } from '../l10n';

/** The real CLI's defaults: offers that can be rented now, on verified machines, not listed externally. */
export const DEFAULT_OFFER_FILTERS: OfferFilters = Object.freeze({
  verified: { eq: true },
  external: { eq: false },
  rentable: { eq: true },
  rented: { eq: false },
});

/** Pure presentation of an offer: what the tree shows, so it can be tested without VS Code. */
export interface OfferPresentation {
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
}

/**
 * How an offer reads in a list. `bid`: it was found by an interruptible (`type=bid`) search, whose
 * prices are the current minimum bid, not a price that holds the machine; the row says so.
 */
export function presentOffer(offer: Offer, options: { bid?: boolean } = {}): OfferPresentation {
  const gpus = offer.num_gpus > 1 ? ` ×${offer.num_gpus}` : '';
  const vramGb = formatGb(offer.gpu_ram);
  const region = countryCode(offer.geolocation);
  const price = options.bid ? l10n.t('bid from {0}/h', formatDollars(offer.dph_total)) : `${formatDollars(offer.dph_total)}/h`;
  const description = [price, `${vramGb} GB`, region].filter(Boolean).join(' · ');
  return {
    label: `${offer.gpu_name}${gpus}`,
    description,
    tooltip: offerTooltip(offer, options.bid === true),
  };
}

function offerTooltip(offer: Offer, bid: boolean): string {
  const gpuPerHour = offer.search?.gpuCostPerHour ?? offer.dph_base;
  const diskPerHour = offer.search?.diskHour;
  const rows: Array<[string, string | undefined]> = [
    bid
      ? [l10n.t('Minimum bid'), l10n.t('{0}/h; interruptible: stopped when someone bids more', formatDollars(offer.dph_total))]
      : [l10n.t('Price'), `${formatDollars(offer.dph_total)}/h`],
    ['GPU', gpuPerHour === null || gpuPerHour === undefined ? undefined : `${formatDollars(gpuPerHour)}/h`],
    [l10n.t('Disk'), diskPerHour === null || diskPerHour === undefined ? undefined : `${formatDollars(diskPerHour)}/h`],
    ['VRAM', l10n.t('{0} GB per GPU', formatGb(offer.gpu_ram))],
    [
      l10n.t('Reliability'),
      offer.reliability2 === null || offer.reliability2 === undefined ? undefined : `${(offer.reliability2 * 100).toFixed(1)} %`,
    ],
    [l10n.t('DLPerf per $/h'), offer.dlperf_per_dphtotal?.toFixed(1)],
    ['CUDA', offer.cuda_max_good?.toString()],
    [
      l10n.t('Internet'),
      offer.inet_down === null || offer.inet_down === undefined
        ? undefined
        : `↓ ${Math.round(offer.inet_down)} / ↑ ${Math.round(offer.inet_up ?? 0)} Mb/s`,
    ],
    [l10n.t('Disk space'), offer.disk_space === null || offer.disk_space === undefined ? undefined : `${Math.round(offer.disk_space)} GB`],
    [l10n.t('Direct ports'), offer.direct_port_count?.toString()],
    [l10n.t('Location'), offer.geolocation ?? undefined],
    [
      l10n.t('Verified'),
      offer.verified === null || offer.verified === undefined
        ? (offer.verification ?? undefined)
        : offer.verified
          ? l10n.t('yes')
          : l10n.t('no'),
    ],
    [l10n.t('Host / machine'), `${offer.host_id ?? '?'} / ${offer.machine_id ?? '?'}`],
    [l10n.t('Offer'), String(offer.id)],
  ];
  const lines = rows.filter((r): r is [string, string] => r[1] !== undefined).map(([k, v]) => `| ${k} | ${escapeCell(v)} |`);
  return [`**${offer.gpu_name}${offer.num_gpus > 1 ? ` ×${offer.num_gpus}` : ''}**`, '', '| | |', '|---|---|', ...lines].join('\n');
}

function formatGb(mb: number): string {
  const gb = mb / 1024;
  return gb >= 10 ? String(Math.round(gb)) : gb.toFixed(1);
}

/** "Texas, US" → "US"; a bare code stays as it is. */
export function countryCode(geolocation: string | null | undefined): string | undefined {
  if (!geolocation) return undefined;
  const match = /(?:^|,\s*)([A-Za-z]{2})\s*$/.exec(geolocation);
  return match ? match[1]!.toUpperCase() : geolocation;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
