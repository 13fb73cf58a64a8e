import type { Offer } from '../../../../src/core/api/offers';

/** An offer as the client reads it, with the fields the explorer shows; `over` replaces any. */
export function offer(over: Partial<Offer> & { id: number }): Offer {
  return {
    num_gpus: 1,
    gpu_name: 'RTX 4090',
    gpu_ram: 24_564,
    dph_total: 0.5,
    machine_id: 100 + over.id,
    dlperf: 40,
    dlperf_per_dphtotal: 80,
    reliability2: 0.99,
    geolocation: 'Texas, US',
    verified: true,
    ...over,
  } as Offer;
}
