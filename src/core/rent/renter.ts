import type { GpuRentalClient } from '../api/client';
import { ApiError } from '../api/errors';
import type { CreateInstanceRequest, Instance } from '../api/instances';
import type { Logger } from '../log';

export type RentOutcome =
  /** The service answered: this instance was made. */
  | { kind: 'created'; instanceId: number }
  /** The answer was lost, but the instance was found in the account's list. */
  | { kind: 'reconciled'; instanceId: number }
  /** The answer was lost, and several looks at the list found no such instance. */
  | { kind: 'notCreated'; error: ApiError }
  /** The offer was taken or withdrawn meanwhile. */
  | { kind: 'unavailable'; error: ApiError }
  /** Another rent is still in flight: nothing was sent. */
  | { kind: 'busy' };

export interface RenterOptions {
  client: () => GpuRentalClient;
  logger: Logger;
  /** Waits between looks at the list after a lost answer. */
  reconcileDelaysMs?: readonly number[];
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/**
 * Rents one offer at a time. The create request is never repeated: when its answer is lost, the
 * instance list is searched for the label this rent carried, among instances that did not exist
 * before, so the user always learns whether an instance (and a bill) exists.
 */
export class Renter {
  private inFlight = false;

  constructor(private readonly options: RenterOptions) {}

  get busy(): boolean {
    return this.inFlight;
  }

  /** A label unique enough to find this rent's instance again; used when the user gives none. */
  uniqueLabel(prefix = 'gpu-rental'): string {
    const random = this.options.random ?? Math.random;
    return `${prefix}-${Math.floor(random() * 0xffffffff).toString(16).padStart(8, '0')}`;
  }

  async rent(offer: { id: number; machine_id?: number | null }, request: CreateInstanceRequest & { label: string }): Promise<RentOutcome> {
    if (this.inFlight) return { kind: 'busy' };
    this.inFlight = true;
    try {
      const client = this.options.client();
      // The ids that exist now, so that reconciliation can only ever match a new instance.
      const before = new Set((await client.instances.list()).map((i) => i.id));
      try {
        const created = await client.instances.create(offer.id, request);
        this.options.logger.info(`Rented offer ${offer.id}: instance ${created.instanceId} (${request.label}).`);
        return { kind: 'created', instanceId: created.instanceId };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (isUnavailable(error)) return { kind: 'unavailable', error };
        if (!error.outcomeUnknown) throw error;
        this.options.logger.warn(`The answer to rent offer ${offer.id} was lost (${error.toLogString()}); looking for the instance.`);
        return await this.reconcile(client, offer, request.label, before, error);
      }
    } finally {
      this.inFlight = false;
    }
  }

  private async reconcile(
    client: GpuRentalClient,
    offer: { id: number; machine_id?: number | null },
    label: string,
    before: ReadonlySet<number>,
    error: ApiError,
  ): Promise<RentOutcome> {
    const delays = this.options.reconcileDelaysMs ?? [0, 2_000, 5_000, 10_000];
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    let lastError: unknown;
    let looked = 0;
    for (const delay of delays) {
      await sleep(delay);
      let instances: Instance[];
      try {
        instances = await client.instances.list();
        looked++;
      } catch (e) {
        lastError = e;
        continue;
      }
      const match = instances.find((i) => !before.has(i.id) && i.label === label && (offer.machine_id == null || i.machine_id == null || i.machine_id === offer.machine_id));
      if (match) {
        this.options.logger.info(`Found instance ${match.id} for the lost rent of offer ${offer.id}.`);
        return { kind: 'reconciled', instanceId: match.id };
      }
    }
    if (looked === 0) {
      // Not one look succeeded: nothing is known, so say so rather than claim no instance exists.
      throw lastError instanceof ApiError ? lastError : error;
    }
    this.options.logger.info(`No instance for the lost rent of offer ${offer.id} after ${looked} looks.`);
    return { kind: 'notCreated', error };
  }
}

function isUnavailable(error: ApiError): boolean {
  if (error.kind === 'not_found') return true;
  const text = `${error.code ?? ''} ${error.serverMessage ?? ''}`;
  return error.status === 410 || /no_such_ask|not available/i.test(text);
}
