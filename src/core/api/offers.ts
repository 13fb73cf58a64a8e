import * as z from 'zod';
import type { OfferQuery } from './offerQuery';
import { listOf, logUnreadable, optBool, optInt, optNumber, optString, recordId, reqNumber, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { DEFAULT_RENT_DISK_GB } from './limits';
import { l10n } from '../l10n';

const PriceBreakdownSchema = z.object({ gpuCostPerHour: optNumber, diskHour: optNumber, totalHour: optNumber }).optional().catch(undefined);

/**
 * A machine listing. Units as on the wire: `gpu_ram`, `gpu_total_ram` and `cpu_ram` in MB,
 * `disk_space` in GB, `disk_bw` in MB/s, `dph_*` in $/hour, `storage_cost` in $/GB/month, `inet_*` in Mb/s,
 * `duration` in seconds, `total_flops` in TFLOPS.
 */
export const OfferSchema = z.object({
  id: recordId,
  num_gpus: reqNumber,
  gpu_name: z.string(),
  gpu_ram: reqNumber,
  dph_total: reqNumber,
  machine_id: optInt,
  host_id: optInt,
  /** The physical cluster of the machine (null when none): machines of one cluster share a LAN. */
  cluster_id: optInt,
  cpu_name: optString,
  cpu_cores_effective: optNumber,
  cpu_ram: optNumber,
  disk_space: optNumber,
  inet_up: optNumber,
  inet_down: optNumber,
  direct_port_count: optNumber,
  dph_base: optNumber,
  min_bid: optNumber,
  storage_cost: optNumber,
  storage_total_cost: optNumber,
  dlperf: optNumber,
  dlperf_per_dphtotal: optNumber,
  reliability2: optNumber,
  verification: optString,
  verified: optBool,
  rentable: optBool,
  geolocation: optString,
  cuda_max_good: optNumber,
  driver_version: optString,
  /** PCIe generation and lanes per GPU. */
  pci_gen: optNumber,
  gpu_lanes: optNumber,
  disk_bw: optNumber,
  total_flops: optNumber,
  /** Seconds the offer stays available. */
  duration: optNumber,
  is_bid: optBool,
  search: PriceBreakdownSchema,
});
export type Offer = z.output<typeof OfferSchema>;

/**
 * `{"offers": [...]}`. An offer without its GPU, memory or price cannot be shown or rented, so it
 * is left out and counted (`unreadableOf`), never listed by id; an odd optional field is unknown.
 */
export const OfferListSchema = listOf(OfferSchema, 'offers', { missing: 'invalid' });

export interface SearchOffersRequest {
  query: OfferQuery;
  limit?: number;
  /** GB of disk to price into `dph_total`; DEFAULT_RENT_DISK_GB when not given. */
  allocatedStorage?: number;
}

/**
 * Builds the wire body of a search: each filter at the top level, then order, type, limit and
 * `allocated_storage` (always, so the price listed is the price of the disk a rent asks for).
 */
export function searchBody(request: SearchOffersRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request.query.filters };
  if (request.query.order.length > 0) body['order'] = request.query.order;
  body['type'] = request.query.type;
  if (request.limit !== undefined) body['limit'] = request.limit;
  body['allocated_storage'] = request.allocatedStorage ?? DEFAULT_RENT_DISK_GB;
  return body;
}

export class OffersApi {
  constructor(private readonly t: Transport) {}

  /** Offers that could not be read are left out, counted in `unreadableOf(result)` and logged once. */
  async search(request: SearchOffersRequest, o: RequestOptions = {}): Promise<Offer[]> {
    const offers = await this.t.send({
      action: l10n.t('search offers'),
      method: 'POST',
      path: '/api/v0/bundles/',
      body: searchBody(request),
      schema: OfferListSchema,
      permission: 'misc',
      readOnly: true,
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('search offers'), offers);
    return offers;
  }
}
