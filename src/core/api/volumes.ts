import * as z from 'zod';
import type { OfferFilters, OfferOrder } from './offerQuery';
import {
  anyOk,
  listOf,
  logUnreadable,
  optBool,
  optInt,
  optNumber,
  optString,
  optTime,
  recordId,
  reqNumber,
  type RequestOptions,
} from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/** Storage for rent on a host. `storage_cost` is $/GB/month, `disk_space` GB. */
export const VolumeOfferSchema = z.object({
  id: recordId,
  disk_space: reqNumber,
  storage_cost: optNumber,
  machine_id: optInt,
  host_id: optInt,
  geolocation: optString,
  reliability2: optNumber,
  verification: optString,
  inet_up: optNumber,
  inet_down: optNumber,
  disk_bw: optNumber,
  cuda_max_good: optNumber,
});
export type VolumeOffer = z.output<typeof VolumeOfferSchema>;

export const VolumeSchema = z.object({
  id: recordId,
  label: optString,
  status: optString,
  disk_space: optNumber,
  /** Ids of the instances that use it; a volume in use cannot be deleted. */
  instances: z.array(z.number()).nullish().catch(undefined),
  machine_id: optInt,
  geolocation: optString,
  storage_total_cost: optNumber,
  start_date: optTime,
  static_ip: optBool,
});
/** `unreadable` marks a stand-in for a record read only as far as its id (so it can still be deleted). */
export type Volume = z.output<typeof VolumeSchema> & { readonly unreadable?: true };

export function unreadableVolume(id: number): Volume {
  return { id, unreadable: true };
}

const VolumeListSchema = listOf(VolumeSchema, 'volumes', { byId: unreadableVolume });
/** A volume offer without its size cannot be priced: left out and counted. */
const VolumeOfferListSchema = listOf(VolumeOfferSchema, 'offers', { missing: 'invalid' });

export interface VolumeSearch {
  filters: OfferFilters;
  order?: OfferOrder;
  limit?: number;
  /** GB to price. */
  allocatedStorage?: number;
}

export class VolumesApi {
  constructor(private readonly t: Transport) {}

  async search(request: VolumeSearch, o: RequestOptions = {}): Promise<VolumeOffer[]> {
    const body: Record<string, unknown> = { ...request.filters };
    if (request.order?.length) body['order'] = request.order;
    if (request.limit !== undefined) body['limit'] = request.limit;
    if (request.allocatedStorage !== undefined) body['allocated_storage'] = request.allocatedStorage;
    const offers = await this.t.send({
      action: l10n.t('search volume offers'),
      method: 'POST',
      path: '/api/v0/volumes/search/',
      body,
      schema: VolumeOfferListSchema,
      permission: 'misc',
      readOnly: true,
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('search volume offers'), offers);
    return offers;
  }

  /** Rents a volume from a volume offer; answers with its name, `V.<id>`. */
  async create(
    request: { offerId: number; sizeGb: number; name?: string },
    o: RequestOptions = {},
  ): Promise<{ volumeName: string | undefined }> {
    const body = { id: request.offerId, size: request.sizeGb, ...(request.name ? { name: request.name } : {}) };
    const schema = z.object({ volume_name: optString });
    const res = await this.t.send({
      action: l10n.t('create a volume'),
      method: 'PUT',
      path: '/api/v0/volumes/',
      body,
      schema,
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
    return { volumeName: res.volume_name ?? undefined };
  }

  /** Volumes read only as far as their id are listed flagged `unreadable`; see `unreadableOf(result)`. */
  async list(o: RequestOptions = {}): Promise<Volume[]> {
    const volumes = await this.t.send({
      action: l10n.t('list volumes'),
      method: 'GET',
      path: '/api/v0/volumes/',
      query: { owner: 'me', type: 'all_volume' },
      schema: VolumeListSchema,
      permission: 'instance_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('list volumes'), volumes);
    return volumes;
  }

  /** The id travels in the query (as the CLI sends it) and in the body (as documented). */
  delete(id: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('delete volume {0}', id),
      method: 'DELETE',
      path: '/api/v0/volumes/',
      query: { id: String(id) },
      body: { id },
      schema: anyOk,
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
  }
}
