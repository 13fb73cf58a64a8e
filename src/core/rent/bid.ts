/**
 * Bids: the price of an interruptible rent. A bid is $/hour for the GPU part of an instance; it
 * must be at least the offer's current minimum (`min_bid`) to run, and the service stops the
 * instance (its disk still billing) when someone bids more.
 */
import { BID_MIN, CHANGE_BID_MAX, RENT_BID_MAX } from '../api/limits';
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { suggestBid } from '../instances/outbid';
import { parseQuery } from '../offers/search';
import { l10n } from '../l10n';
import { boxProblem, boxValue, decimalText, type NumberBox } from '../numbers';

export { BID_MIN, CHANGE_BID_MAX, RENT_BID_MAX, suggestBid };

/** The bid box: dollars per hour from `min` (at least BID_MIN) to `max`, a leading `$` taken. */
export function bidBox(bounds: { min: number; max: number }): NumberBox {
  const min = Math.max(bounds.min, BID_MIN);
  return {
    min,
    max: bounds.max,
    dollars: true,
    hint: l10n.t(
      'Enter a bid in dollars per hour between {0} and {1}, such as {2}.',
      formatDollars(min),
      formatDollars(bounds.max),
      decimalText(Math.min(suggestBid(min), bounds.max)),
    ),
    tooLow:
      min > BID_MIN
        ? l10n.t('The bid must be at least the current minimum, {0}/h: a lower bid does not run.', formatDollars(min))
        : l10n.t('The bid must be at least {0}/h.', formatDollars(BID_MIN)),
    tooHigh: l10n.t('The service takes bids up to {0}/h.', formatDollars(bounds.max)),
  };
}

/** Why `text` is not a bid between `min` and `max` $/hour, or undefined when it is one (see src/core/numbers.ts). */
export function checkBid(text: string, bounds: { min: number; max: number }): string | undefined {
  return boxProblem(text, bidBox(bounds));
}

/** The bid `text` stands for, read as `checkBid` reads it with the same bounds; a RangeError when it refuses it. */
export function parseBid(text: string, bounds: { min: number; max: number }): number {
  return boxValue(text, bidBox(bounds));
}

/**
 * What the offer's GPU part costs on demand, $/hour. A bid search lists offers at their minimum
 * bid (`search.gpuCostPerHour`, and `dph_total` with it); `dph_base` stays the on-demand price.
 */
export function onDemandGpuPerHour(offer: Offer, bidSearch: boolean): number {
  if (bidSearch) return offer.dph_base ?? offer.dph_total;
  return offer.search?.gpuCostPerHour ?? offer.dph_base ?? offer.dph_total;
}

/** The offer's current minimum bid, when the service gave one that can be bid on. */
export function minBidOf(offer: Pick<Offer, 'min_bid'>): number | undefined {
  const min = offer.min_bid;
  return typeof min === 'number' && Number.isFinite(min) && min >= 0 ? Math.max(min, BID_MIN) : undefined;
}

/** Whether the Offers search text asks for bid prices (`type=bid`); an unreadable query does not. */
export function isBidQuery(text: string): boolean {
  try {
    return parseQuery(text).type === 'bid';
  } catch {
    return false;
  }
}
