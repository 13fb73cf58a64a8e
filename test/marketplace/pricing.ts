/**
 * What things cost: an offer priced for a disk size and a pricing type, disk by the hour, and the
 * rates an instance is billed at. Storage is priced per GB per month, and a month is 720 hours.
 */
import type { Offer, PriceBreakdown } from './catalogue';
import { round } from './random';

/** Hours in the month used to turn a monthly storage price into an hourly one (30 days). */
export const HOURS_PER_MONTH = 720;
/** Disk priced into `dph_total` when a search names no `allocated_storage` (GB). */
export const DEFAULT_ALLOCATED_STORAGE = 8;

export function emptyBreakdown(): PriceBreakdown {
  return { gpuCostPerHour: 0, diskHour: 0, totalHour: 0, discountTotalHour: 0, discountedTotalPerHour: 0 };
}

export type PricingType = 'on-demand' | 'bid' | 'reserved';

/** $/hour for `gb` GB of disk at `storageCost` $/GB/month. */
export function storagePerHour(storageCost: number, gb: number): number {
  return round((storageCost * gb) / HOURS_PER_MONTH, 6);
}

/**
 * A copy of `offer` priced for `allocatedStorage` GB of disk and a pricing type. Bid prices use
 * the offer's current minimum bid as the GPU price; reserved prices add the discounted total.
 */
export function priceOffer(offer: Offer, o: { allocatedStorage: number; type: PricingType }): Offer {
  const disk = storagePerHour(offer.storage_cost, o.allocatedStorage);
  const gpu = o.type === 'bid' ? offer.min_bid : offer.dph_base;
  const total = round(gpu + disk, 6);
  const discounted = round(total * (1 - offer.discount_rate), 6);
  const breakdown: PriceBreakdown = {
    gpuCostPerHour: gpu,
    diskHour: disk,
    totalHour: total,
    discountTotalHour: o.type === 'reserved' ? round(total - discounted, 6) : 0,
    discountedTotalPerHour: o.type === 'reserved' ? discounted : total,
  };
  return {
    ...offer,
    is_bid: o.type === 'bid',
    dph_total: total,
    storage_total_cost: disk,
    vram_costperhour: round(disk / Math.max(1, offer.gpu_total_ram / 1024), 8),
    discounted_dph_total: discounted,
    discounted_hourly: discounted,
    dlperf_per_dphtotal: round(offer.dlperf / total, 4),
    flops_per_dphtotal: round(offer.total_flops / total, 4),
    score: round((offer.dlperf / total) * offer.reliability2 ** 2, 4),
    search: breakdown,
    instance: { ...breakdown },
  };
}

/** The rates a new instance bills at, in $/hour: its GPU at the bid when there is one (else the offer's base price), its disk by size. */
export function rentalRates(offer: Offer, o: { diskGb: number; bid: number | undefined }): { gpuRate: number; diskRate: number } {
  return { gpuRate: round(o.bid ?? offer.dph_base, 6), diskRate: storagePerHour(offer.storage_cost, o.diskGb) };
}
