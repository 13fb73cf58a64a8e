/**
 * Host price increases (service notes §15.1). A host asks a higher price for a rented instance's
 * contract (in the simulator, the control API plays the host: `askPriceIncrease`); the renter sees
 * it pending and accepts or rejects it.
 *
 * - A row's `old_` prices are the instance's rates when it was asked ($ per second for the
 *   `costpersec` pairs: GPU, and disk with RAM; $ per GB for bandwidth, from its offer); a null
 *   `new_` price leaves that part unchanged. `contract_end_date` is the contract's end then,
 *   `ask_end_date` its end if accepted.
 * - Accepting sets the contract's end to `ask_end_date` at once; the new price applies from the old
 *   `contract_end_date` on: the instance's rates (and so `dph_total` and billing) change at exactly
 *   that moment, once the clock passes it (`settlePriceIncreases`, run on every tick).
 * - Rejecting marks the row rejected; nothing changes on the contract.
 * - A row stops being pending when it is answered, when a newer increase on the same instance
 *   replaces it, when the instance is destroyed, or when the clock passes its `contract_end_date`
 *   unanswered (it can no longer apply "after the current end"); these three are `expired`.
 *   The last two are decisions: the references say only that rows expire.
 */
import type { Offer } from './catalogue';
import { contractEnd } from './instanceRecord';
import { closeSegment, openSegment } from './ledger';
import { addLog } from './lifecycle';
import type { Contract, InstanceState, Ms, PriceIncreaseRecord, StoreData } from './model';
import { round } from './random';
import { fail } from './router';

const DAY_SECONDS = 86_400;
/** The default: the GPU price 20 % up. */
const DEFAULT_GPU_RISE = 1.2;
/** The default asked end: 30 days past the contract's end now. */
const DEFAULT_EXTENSION_DAYS = 30;

/** What a host asks (snake case, as the control route takes it); every part optional. */
export interface PriceIncreaseAsk {
  /** New GPU price, $ per second (default: 20 % over the current one). */
  gpu_costpersec?: number;
  /** New disk and RAM price, $ per second; null or absent: unchanged. */
  disk_ram_costpersec?: number | null;
  /** The contract's end if accepted, epoch seconds (default: its end now plus 30 days). */
  ask_end_date?: number;
}

/** A row as the pending list shows it (the record's wire fields). */
export type PriceIncreaseRow = Omit<PriceIncreaseRecord, 'accountId' | 'status' | 'answeredAt' | 'appliedAt' | 'answerBody'>;

/** A row as the control API lists it: with its account, its state and the body that answered it. */
export type PriceIncreaseLog = PriceIncreaseRow & {
  account_id: number;
  status: PriceIncreaseRecord['status'];
  answered_at: number | null;
  applied_at: number | null;
  answer_body?: unknown;
};

const perSecond = (perHour: number) => round(perHour / 3600, 12);

export function rowOf(record: PriceIncreaseRecord): PriceIncreaseRow {
  const { accountId: _a, status: _s, answeredAt: _w, appliedAt: _p, answerBody: _b, ...row } = record;
  return row;
}

export function logOf(record: PriceIncreaseRecord): PriceIncreaseLog {
  const seconds = (ms: Ms | null) => (ms === null ? null : Math.floor(ms / 1000));
  return {
    ...rowOf(record),
    account_id: record.accountId,
    status: record.status,
    answered_at: seconds(record.answeredAt),
    applied_at: seconds(record.appliedAt),
    ...('answerBody' in record ? { answer_body: record.answerBody } : {}),
  };
}

/**
 * The host of the instance asks more for it. A pending increase on the same instance expires;
 * throws a 400 for an interruptible instance (its GPU price is the renter's bid) or an ask that
 * does not raise the price or ends before the contract does.
 */
export function askPriceIncrease(
  data: StoreData,
  nextId: () => number,
  inst: InstanceState,
  offer: Offer,
  ask: PriceIncreaseAsk,
  now: Ms,
): PriceIncreaseRecord {
  if (inst.isBid) throw fail(400, 'invalid_args', `Instance ${inst.id} is interruptible: its GPU price is its bid, not the host's.`);
  const oldGpu = perSecond(inst.gpuRate);
  const oldDisk = perSecond(inst.diskRate);
  const newGpu = ask.gpu_costpersec ?? round(oldGpu * DEFAULT_GPU_RISE, 12);
  const newDisk = ask.disk_ram_costpersec ?? null;
  for (const [name, value] of [
    ['gpu_costpersec', newGpu],
    ['disk_ram_costpersec', newDisk],
  ] as const) {
    if (value !== null && !(typeof value === 'number' && Number.isFinite(value) && value > 0))
      throw fail(400, 'invalid_args', `${name} must be a price in $ per second above 0.`);
  }
  const end = contractEnd(inst, offer);
  const askEnd = ask.ask_end_date ?? round(end + DEFAULT_EXTENSION_DAYS * DAY_SECONDS, 3);
  if (!(typeof askEnd === 'number' && Number.isFinite(askEnd) && askEnd > end))
    throw fail(400, 'invalid_args', `ask_end_date must be epoch seconds after the contract's end (${end}).`);
  for (const r of data.priceIncreases ?? []) if (r.contract_id === inst.id && r.status === 'pending') r.status = 'expired';
  const record: PriceIncreaseRecord = {
    pending_price_increase_id: nextId(),
    contract_id: inst.id,
    host_id: offer.host_id,
    old_gpu_costpersec: oldGpu,
    new_gpu_costpersec: newGpu,
    old_disk_ram_costpersec: oldDisk,
    new_disk_ram_costpersec: newDisk,
    old_bwu_cost: offer.inet_up_cost,
    new_bwu_cost: null,
    old_bwd_cost: offer.inet_down_cost,
    new_bwd_cost: null,
    old_platform_fee: null,
    new_platform_fee: null,
    contract_end_date: end,
    ask_end_date: askEnd,
    created_at: Math.floor(now / 1000),
    accountId: inst.accountId,
    status: 'pending',
    answeredAt: null,
    appliedAt: null,
  };
  (data.priceIncreases ??= []).push(record);
  addLog(
    inst,
    now,
    `The host asks a higher price from ${new Date(end * 1000).toISOString()} (price increase ${record.pending_price_increase_id})`,
  );
  return record;
}

/** The account's rows still pending, oldest first. */
export function pendingOf(data: StoreData, accountId: number): PriceIncreaseRecord[] {
  return (data.priceIncreases ?? []).filter((r) => r.accountId === accountId && r.status === 'pending');
}

/** The account's pending row with this id, or the 404 the service answers for one no longer pending. */
function pendingRow(data: StoreData, accountId: number, id: number): PriceIncreaseRecord {
  const record = (data.priceIncreases ?? []).find((r) => r.pending_price_increase_id === id);
  if (!record || record.accountId !== accountId || record.status !== 'pending')
    throw fail(404, 'no_pending_price_increase', `No pending price increase ${id}: it was answered, has expired, or does not exist.`);
  return record;
}

/** Accepts the row: the contract's end moves to `ask_end_date` now; the price follows at the old end. */
export function acceptPriceIncrease(data: StoreData, accountId: number, id: number, now: Ms, body: unknown): PriceIncreaseRecord {
  const record = pendingRow(data, accountId, id);
  record.status = 'accepted';
  record.answeredAt = now;
  record.answerBody = body;
  const inst = data.instances.find((i) => i.id === record.contract_id);
  if (inst) {
    if (record.ask_end_date !== null) inst.endDate = record.ask_end_date;
    addLog(
      inst,
      now,
      `Price increase ${id} accepted; the new price applies from ${new Date(record.contract_end_date * 1000).toISOString()}`,
    );
  }
  return record;
}

/** Rejects the row; the contract stays as it was. */
export function rejectPriceIncrease(data: StoreData, accountId: number, id: number, now: Ms, body: unknown): PriceIncreaseRecord {
  const record = pendingRow(data, accountId, id);
  record.status = 'rejected';
  record.answeredAt = now;
  record.answerBody = body;
  return record;
}

/** The open segment of `kind`, when billing, continues at `rate` from `at` (or from its start, when later). */
function rebill(contract: Contract, kind: 'gpu' | 'disk', rate: number, at: Ms): void {
  const open = contract.segments.find((s) => s.kind === kind && s.end === null);
  if (!open) return;
  const from = Math.max(at, open.start);
  closeSegment(contract, kind, from);
  openSegment(contract, kind, rate, from);
}

/** Moves one instance to its new rates at `at`: what bills from then on is at the new price. */
function applyRates(inst: InstanceState, contract: Contract, record: PriceIncreaseRecord, at: Ms): void {
  if (record.new_gpu_costpersec !== null) {
    inst.gpuRate = round(record.new_gpu_costpersec * 3600, 6);
    rebill(contract, 'gpu', inst.gpuRate, at);
  }
  if (record.new_disk_ram_costpersec !== null) {
    inst.diskRate = round(record.new_disk_ram_costpersec * 3600, 6);
    rebill(contract, 'disk', inst.diskRate, at);
  }
  addLog(
    inst,
    at,
    `The new price of price increase ${record.pending_price_increase_id} applies: $${round(inst.gpuRate + inst.diskRate, 6)}/hour`,
  );
}

/**
 * Brings the rows up to `now`: accepted ones whose old end has passed move their instance to the new
 * price (at that moment), pending ones past their end or of a destroyed instance expire. Run before
 * the instances advance, so a boot after the change already bills at the new price. Returns whether
 * anything changed.
 */
export function settlePriceIncreases(data: StoreData, contractOf: (id: number) => Contract, now: Ms): boolean {
  let changed = false;
  for (const record of data.priceIncreases ?? []) {
    if (record.status === 'rejected' || record.status === 'expired' || record.appliedAt !== null) continue;
    const at = record.contract_end_date * 1000;
    const inst = data.instances.find((i) => i.id === record.contract_id);
    if (record.status === 'pending') {
      if (inst && now < at) continue;
      record.status = 'expired';
      changed = true;
      continue;
    }
    if (now < at) continue;
    record.appliedAt = at;
    if (inst) applyRates(inst, contractOf(inst.id), record, at);
    changed = true;
  }
  return changed;
}
