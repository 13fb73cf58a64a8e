/**
 * How an offer's values read in the Offer Explorer's cells, and the keys they sort by: GB from MB,
 * durations in days or hours, the rental type, a driver version as a number. Shared by the column
 * definitions (columnSpecs.ts) and, through columns.ts, the webview.
 */
import type { Offer } from '../../api/offers';
import type { OfferType } from '../../api/offerQuery';
import { formatDollars } from '../../format';
import { l10n } from '../../l10n';

/** A finite number, not null or missing. */
export const known = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);
/** `digits` decimals, or '' when unknown. */
export const fixed = (n: number | null | undefined, digits: number): string => (known(n) ? n.toFixed(digits) : '');
/** A whole number with thousands separators, or '' when unknown. */
export const rounded = (n: number | null | undefined): string => (known(n) ? Math.round(n).toLocaleString('en-US') : '');

/** MB → GB the way the Offers view shows it (1024 MB a GB), one decimal under 10 GB. */
export function gbFromMb(mb: number | null | undefined): number | undefined {
  return known(mb) ? mb / 1024 : undefined;
}

/** MB as GB text: whole GB from 10 GB, one decimal under; '' when unknown. */
export function gbText(mb: number | null | undefined): string {
  const gb = gbFromMb(mb);
  if (gb === undefined) return '';
  return gb >= 10 ? `${Math.round(gb)} GB` : `${gb.toFixed(1)} GB`;
}

/** The price of one GPU-hour of the offer. */
export function pricePerGpu(offer: Offer): number | undefined {
  return offer.num_gpus > 0 ? offer.dph_total / offer.num_gpus : undefined;
}

/** "on-demand", or "interruptible" with the current minimum bid, or "reserved". */
export function rentalTypeText(offer: Offer, type: OfferType): string {
  if (type === 'bid') return known(offer.min_bid) ? l10n.t('interruptible, min {0}/h', formatDollars(offer.min_bid)) : 'interruptible';
  return type;
}

/** 3.5 days → "3.5 d", 30 hours → "30 h", as max duration reads in a narrow column. */
export function durationText(seconds: number | null | undefined): string {
  if (!known(seconds) || seconds <= 0) return '';
  const days = seconds / 86_400;
  if (days >= 10) return `${Math.round(days)} d`;
  if (days >= 1) return `${days.toFixed(1)} d`;
  return `${Math.max(1, Math.round(seconds / 3600))} h`;
}

/** Whether the offer's machine is verified, from either field the service may send; undefined when neither says. */
export function verifiedOf(offer: Offer): boolean | undefined {
  if (typeof offer.verified === 'boolean') return offer.verified;
  return offer.verification ? offer.verification === 'verified' : undefined;
}

/** "535.86.05" sorts as 535086005, so 535.104 comes after 535.86 as it should. */
export function driverKey(version: string | null | undefined): number | undefined {
  if (!version) return undefined;
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version);
  if (!m) return undefined;
  return Number(m[1]) * 1_000_000 + Number(m[2] ?? 0) * 1_000 + Number(m[3] ?? 0);
}
