import type { Offer } from '../api/offers';
import { onDemandGpuPerHour } from './bid';

/** The service prices disk per GB per month; a month is 720 hours there. */
export const HOURS_PER_MONTH = 720;

/**
 * What `gb` GB of storage costs per hour at `costPerGbMonth` dollars per GB per month: an instance's
 * disk in the rent quote, and a new volume in the rent wizard. Both bill by the hour from the same
 * monthly rate, so one function prices both.
 */
export function storagePerHour(gb: number, costPerGbMonth: number): number {
  return (gb * costPerGbMonth) / HOURS_PER_MONTH;
}

export interface RentQuote {
  gpuPerHour: number;
  diskPerHour: number;
  totalPerHour: number;
  perDay: number;
  /** Credit left after a day at this rate, when the credit is known. */
  creditAfterDay: number | undefined;
  /** False when the credit cannot cover one hour: renting is refused. */
  affordable: boolean;
}

/** How the GPU part is priced: at a bid (an interruptible rent), or on demand from an offer a bid search listed. */
export interface QuotePricing {
  /** The bid in $/hour; the GPU bills at it. */
  bid?: number;
  /** The offer came from a `type=bid` search, which lists the minimum bid as its price: on demand reads `dph_base`. */
  bidSearch?: boolean;
}

/** What renting `offer` with `diskGb` of disk costs, split the way the confirmation shows it. */
export function quoteRent(offer: Offer, diskGb: number, credit: number | undefined, pricing: QuotePricing = {}): RentQuote {
  const gpuPerHour = pricing.bid ?? onDemandGpuPerHour(offer, pricing.bidSearch ?? false);
  const diskPerHour = storagePerHour(diskGb, offer.storage_cost ?? 0);
  const totalPerHour = gpuPerHour + diskPerHour;
  const perDay = totalPerHour * 24;
  return {
    gpuPerHour,
    diskPerHour,
    totalPerHour,
    perDay,
    creditAfterDay: credit === undefined ? undefined : credit - perDay,
    affordable: credit === undefined || credit >= totalPerHour,
  };
}
