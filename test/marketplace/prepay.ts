/**
 * Reserved instances: money prepaid on an on-demand instance for a discount (service notes §15.2,
 * openapi `prepay` and `show deposit`). The arithmetic is in reservations.ts; this is what the
 * routes and the instance record ask of it.
 *
 * - A deposit leaves the credit at once (an `instance_prepay` invoice row shows it) and is locked to
 *   the instance. The months it covers are what then remains deposited, the new amount included,
 *   over the instance's on-demand price (`dph_total`) for a month of 730 hours; the discount follows
 *   from DISCOUNT_SCHEDULE. Every deposit works this out again from what remains, so a small deposit
 *   late in a long term can lower the discount (it covers few months from now).
 * - While anything remains, the instance (GPU and disk) bills at the discount from the deposit;
 *   once it runs dry it bills its full price from the credit again. A running prepaid instance is not
 *   stopped when the credit runs out while its deposit still pays.
 * - What can be withdrawn (`refundable_deposit`) is what remains less the discount enjoyed so far
 *   (never below 0). When the instance is destroyed that part goes back to the credit (a refund row
 *   in the invoices) and the rest is kept: a decision, the references say no more.
 */
import type { Contract, InstanceState, Ms, ReservationRecord, StoreData } from './model';
import { round } from './random';
import { discountFor, RESERVATION_HOURS_PER_MONTH, reservationOf, reservationState } from './reservations';
import type { Store } from './state';

export interface PrepayAnswer {
  /** Months the deposit covers, 2 decimals. */
  timescale: number;
  /** The discount it bought, a fraction. */
  discount_rate: number;
}

export interface DepositView {
  refundable_deposit: number;
  total_discount: number;
  discount_months: number;
}

/** The instance's on-demand price in $/hour: its GPU and its disk. */
function onDemandPerHour(inst: InstanceState): number {
  return inst.gpuRate + inst.diskRate;
}

/**
 * Deposits `amount` dollars on the instance (the route has checked the instance and the credit):
 * answers the months it now covers and the discount it bought.
 */
export function prepay(store: Store, inst: InstanceState, contract: Contract, amount: number, now: Ms): PrepayAnswer {
  const data = store.data;
  let reservation = reservationOf(data, inst.id);
  if (!reservation) {
    reservation = { instanceId: inst.id, accountId: inst.accountId, deposits: [] };
    (data.reservations ??= []).push(reservation);
  }
  const remaining = reservationState(reservation, contract, now).remaining;
  const perMonth = onDemandPerHour(inst) * RESERVATION_HOURS_PER_MONTH;
  const months = perMonth > 0 ? (remaining + amount) / perMonth : 0;
  const rate = round(discountFor(months), 4);
  reservation.deposits.push({ id: store.nextId('topup'), at: now, amount, months: round(months, 4), discountRate: rate });
  store.changed();
  return { timescale: round(months, 2), discount_rate: rate };
}

/** What `GET /api/v0/instances/balance/{id}/` shows: zeros for an instance with no deposit. */
export function depositView(data: StoreData, inst: InstanceState, contract: Contract, now: Ms): DepositView {
  const reservation = reservationOf(data, inst.id);
  if (!reservation || reservation.closedAt !== undefined) return { refundable_deposit: 0, total_discount: 0, discount_months: 0 };
  const state = reservationState(reservation, contract, now);
  const perMonth = onDemandPerHour(inst) * RESERVATION_HOURS_PER_MONTH;
  return {
    refundable_deposit: round(Math.max(0, state.remaining - state.discount), 4),
    total_discount: round(state.discount, 4),
    // Whole months what remains still covers at the on-demand price (the OpenAPI types it an integer).
    discount_months: perMonth > 0 ? Math.floor(state.remaining / perMonth + 1e-9) : 0,
  };
}

/** While the instance is prepaid and its deposit lasts: what remains and the discount it bills at. */
export function reservedNow(
  data: StoreData,
  inst: InstanceState,
  contract: Contract,
  now: Ms,
): { remaining: number; rate: number } | undefined {
  const reservation = reservationOf(data, inst.id);
  if (!reservation) return undefined;
  const state = reservationState(reservation, contract, now);
  return state.remaining > 0 ? { remaining: state.remaining, rate: state.rate } : undefined;
}

/** Whether the instance's deposit still pays for it (so running out of credit does not stop it). */
export function paidByDeposit(data: StoreData, contractOf: (id: number) => Contract, instanceId: number, now: Ms): boolean {
  const reservation = reservationOf(data, instanceId);
  return reservation !== undefined && reservationState(reservation, contractOf(instanceId), now).remaining > 0;
}

/** The instance is destroyed (its contract closed): the refundable part of its deposit returns to the credit. */
export function closeReservation(store: Store, contract: Contract, now: Ms): void {
  const reservation: ReservationRecord | undefined = reservationOf(store.data, contract.id);
  if (!reservation || reservation.closedAt !== undefined) return;
  const state = reservationState(reservation, contract, now);
  reservation.closedAt = now;
  const refund = round(Math.max(0, state.remaining - state.discount), 6);
  if (refund > 0)
    store.data.topUps.push({
      id: store.nextId('topup'),
      accountId: reservation.accountId,
      at: now,
      amount: refund,
      service: 'instance_prepay',
      description: `Refund of the deposit on instance ${contract.id}`,
    });
  store.changed();
}
