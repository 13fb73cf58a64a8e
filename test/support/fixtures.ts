import { OfferSchema, type Offer } from '../../src/core/api/offers';

/**
 * An offer as a search returns it, small enough to price by hand: one RTX 4090 at $0.40/h, disk
 * at $0.18 per GB per month, $0.50/h in all at the search's disk size. `fields` change or add to it.
 */
export function priceableOffer(fields: Record<string, unknown> = {}): Offer {
  return OfferSchema.parse({
    id: 1,
    num_gpus: 1,
    gpu_name: 'RTX 4090',
    gpu_ram: 24564,
    dph_total: 0.5,
    dph_base: 0.4,
    storage_cost: 0.18,
    ...fields,
  });
}
