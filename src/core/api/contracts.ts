/**
 * A rented machine's contract: the host's price increases the renter answers, and the money
 * prepaid on an instance for a discount (a reservation). None of these are in the service's spec;
 * the routes and bodies are those of the service as used by its own CLI (../shared/reference/
 * service-notes.md §15.1 and §15.2, openapi.yaml's `prepay` and `show deposit`).
 */
import * as z from 'zod';
import { ApiError } from './errors';
import { optInt, optNumber, recordId, tolerantArray, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/**
 * One pending increase as the service lists it. Prices per second (GPU, disk and RAM) or per GB
 * (bandwidth); a null `new_` value means that part does not change. Dates are epoch seconds.
 */
const PendingIncreaseSchema = z.object({
  pending_price_increase_id: recordId,
  contract_id: recordId,
  host_id: optInt,
  old_gpu_costpersec: optNumber,
  new_gpu_costpersec: optNumber,
  old_disk_ram_costpersec: optNumber,
  new_disk_ram_costpersec: optNumber,
  old_bwu_cost: optNumber,
  new_bwu_cost: optNumber,
  old_bwd_cost: optNumber,
  new_bwd_cost: optNumber,
  old_platform_fee: optNumber,
  new_platform_fee: optNumber,
  contract_end_date: optNumber,
  ask_end_date: optNumber,
  created_at: optNumber,
});
export type PendingIncreaseRecord = z.output<typeof PendingIncreaseSchema>;

const PendingListSchema = z.object({
  pending_price_increases: tolerantArray(PendingIncreaseSchema),
  truncated: z.boolean().nullish().catch(undefined),
});

const AnswerSchema = z.object({ contract_id: optInt }).passthrough();

/** What a prepay bought: the months the deposit covers and the discount (a fraction). */
const PrepaySchema = z.object({ timescale: optNumber, discount_rate: optNumber });
export type PrepayAnswer = z.output<typeof PrepaySchema>;

/** What is deposited on an instance (`vastai show deposit`). */
const DepositSchema = z.object({ refundable_deposit: optNumber, total_discount: optNumber, discount_months: optNumber });
export type DepositRecord = z.output<typeof DepositSchema>;

/** How an answer to a price increase ended: done, or the row was no longer pending (404, or 409 from older servers). */
export type IncreaseAnswer = { kind: 'done'; contractId?: number } | { kind: 'notPending' };

/** The service's code for a row that is no longer pending. */
export const NO_PENDING_PRICE_INCREASE = 'no_pending_price_increase';

export class ContractsApi {
  constructor(private readonly t: Transport) {}

  /** The account's pending price increases, all instances at once (there is no filter by instance). */
  async pendingIncreases(o: RequestOptions = {}): Promise<{ rows: PendingIncreaseRecord[]; truncated: boolean }> {
    const answer = await this.t.send({
      action: l10n.t("list hosts' price increases"),
      method: 'GET',
      path: '/api/v0/instances/pending-price-increases/',
      schema: PendingListSchema,
      permission: 'instance_read',
      retry: 'read',
      ...o,
    });
    return { rows: answer.pending_price_increases, truncated: answer.truncated === true };
  }

  /** Accepts one increase: the body is exactly `{"pending_price_increase_id": id}` (the service refuses any other key). */
  acceptIncrease(pendingId: number, o: RequestOptions = {}): Promise<IncreaseAnswer> {
    return this.answerIncrease('accept', pendingId, o);
  }

  /** Rejects one increase: the same body; nothing changes on the contract. */
  rejectIncrease(pendingId: number, o: RequestOptions = {}): Promise<IncreaseAnswer> {
    return this.answerIncrease('reject', pendingId, o);
  }

  /**
   * Prepays `amount` dollars on an on-demand instance (a reservation). Never retried: a second
   * deposit would lock more money and change the discount. A lost answer is `outcomeUnknown`.
   */
  prepay(instanceId: number, amount: number, o: RequestOptions = {}): Promise<PrepayAnswer> {
    return this.t.send({
      action: l10n.t('prepay {0} on instance {1}', `$${amount.toFixed(2)}`, instanceId),
      method: 'PUT',
      path: `/api/v0/instances/prepay/${instanceId}/`,
      body: { amount },
      schema: PrepaySchema,
      permission: 'instance_write',
      retry: 'never',
      ...o,
    });
  }

  /** What is deposited on the instance now. */
  deposit(instanceId: number, o: RequestOptions = {}): Promise<DepositRecord> {
    return this.t.send({
      action: l10n.t('read the deposit of instance {0}', instanceId),
      method: 'GET',
      path: `/api/v0/instances/balance/${instanceId}/`,
      schema: DepositSchema,
      permission: 'instance_read',
      retry: 'read',
      ...o,
    });
  }

  private async answerIncrease(how: 'accept' | 'reject', pendingId: number, o: RequestOptions): Promise<IncreaseAnswer> {
    if (!Number.isSafeInteger(pendingId) || pendingId <= 0) throw new Error(l10n.t('{0} is not a price increase id.', String(pendingId)));
    try {
      const answer = await this.t.send({
        action: how === 'accept' ? l10n.t('accept price increase {0}', pendingId) : l10n.t('reject price increase {0}', pendingId),
        method: 'PUT',
        path: `/api/v0/instances/${how}-price-increase/`,
        body: { pending_price_increase_id: pendingId },
        schema: AnswerSchema,
        permission: 'instance_write',
        retry: 'write',
        ...o,
      });
      return { kind: 'done', contractId: answer.contract_id ?? undefined };
    } catch (error) {
      if (isNotPending(error)) return { kind: 'notPending' };
      throw error;
    }
  }
}

/** A 404 `no_pending_price_increase`, or the 409 older servers answer for the same: the row is no longer pending. */
export function isNotPending(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.status === 409) return true;
  return error.status === 404 && (error.code === NO_PENDING_PRICE_INCREASE || error.kind === 'not_found');
}
