/**
 * The arithmetic of a reservation (money prepaid on an instance; prepay.ts makes the deposits).
 *
 * Each deposit opens a term that lasts until the next deposit: the discount rate it bought applies
 * to everything the instance bills in that term (GPU and disk, as its segments in the ledger say),
 * and the discounted cost is drawn from what remains deposited. When the deposit runs dry mid-term,
 * the rest of the term bills at the full price from the account's credit, as any instance does. A
 * new deposit adds to what remains, and its discount is worked out again over that whole remaining
 * sum (service notes §15.2): a small deposit late in a long term covers few months, so it can
 * lower the discount.
 *
 * The result is a list of windows, `{start, end, factor}`: while inside one, the contract bills
 * `factor` (1 - discount) of its price from the deposit and nothing from credit. The ledger
 * (ledger.ts) lays them over the contract's segments for the balance and the charges.
 */
import type { Contract, Ms, ReservationRecord, Segment, StoreData } from './model';

const HOUR: Ms = 3_600_000;

/** Hours in the month a deposit is measured in (365 days / 12). */
export const RESERVATION_HOURS_PER_MONTH = 730;

/** A deposit that covers fewer months than this buys no discount (it is still drawn from first). */
export const MIN_DISCOUNT_MONTHS = 0.25;

/**
 * Months covered -> discount (a fraction), interpolated linearly between the points and flat after
 * the last: about 20 % for one month and 30 % for three (the CLI's help), up to 50 % (the docs).
 */
export const DISCOUNT_SCHEDULE: ReadonlyArray<readonly [months: number, discount: number]> = [
  [0, 0],
  [1, 0.2],
  [3, 0.3],
  [6, 0.4],
  [12, 0.5],
];

/** The discount a deposit covering `months` months buys. */
export function discountFor(months: number): number {
  if (!(months >= MIN_DISCOUNT_MONTHS)) return 0;
  for (let i = 1; i < DISCOUNT_SCHEDULE.length; i++) {
    const [m1, d1] = DISCOUNT_SCHEDULE[i]!;
    if (months > m1) continue;
    const [m0, d0] = DISCOUNT_SCHEDULE[i - 1]!;
    return d0 + ((d1 - d0) * (months - m0)) / (m1 - m0);
  }
  return DISCOUNT_SCHEDULE.at(-1)![1];
}

/** A stretch in which the contract bills `factor` of its price, drawn from the deposit. */
export interface Window {
  start: Ms;
  end: Ms;
  factor: number;
}

export interface ReservationState {
  windows: Window[];
  /** Everything deposited up to `now`, in dollars. */
  deposited: number;
  /** What the discounted billing has drawn from the deposits so far. */
  drawn: number;
  /** What the discount saved so far: the full price of the drawn stretches less what they cost. */
  discount: number;
  /** What is still deposited. */
  remaining: number;
  /** The discount now: the last deposit's, while anything remains; 0 once it has run dry. */
  rate: number;
}

/** The contract's billing rate ($/hour, every kind together) over [a, b], where no segment starts or ends inside. */
function rateOver(segments: readonly Segment[], a: Ms, b: Ms): number {
  let rate = 0;
  for (const s of segments) if (s.start <= a && (s.end ?? Infinity) >= b) rate += s.rate;
  return rate;
}

/** What the reservation has drawn and saved up to `now`, and the windows it bills in. */
export function reservationState(reservation: ReservationRecord, contract: Contract, now: Ms): ReservationState {
  const deposits = reservation.deposits.filter((d) => d.at <= now).sort((a, b) => a.at - b.at || a.id - b.id);
  const stop = Math.min(now, contract.end ?? now);
  const windows: Window[] = [];
  let deposited = 0;
  let remaining = 0;
  let drawn = 0;
  let discount = 0;
  let dryAt: Ms | undefined;
  deposits.forEach((deposit, i) => {
    deposited += deposit.amount;
    remaining += deposit.amount;
    dryAt = undefined;
    const start = deposit.at;
    const end = Math.min(deposits[i + 1]?.at ?? Infinity, stop);
    if (end <= start) return;
    const factor = 1 - deposit.discountRate;
    const cuts = new Set<Ms>([start, end]);
    for (const s of contract.segments) {
      if (s.start > start && s.start < end) cuts.add(s.start);
      if (s.end !== null && s.end > start && s.end < end) cuts.add(s.end);
    }
    const points = [...cuts].sort((x, y) => x - y);
    for (let k = 1; k < points.length && dryAt === undefined; k++) {
      const a = points[k - 1]!;
      const b = points[k]!;
      const rate = rateOver(contract.segments, a, b);
      if (rate <= 0) continue;
      const full = (rate * (b - a)) / HOUR;
      const cost = full * factor;
      if (cost <= remaining) {
        remaining -= cost;
        drawn += cost;
        discount += full - cost;
        continue;
      }
      // The deposit runs dry inside [a, b]: the part it pays for ends there.
      const paidFull = remaining / factor;
      dryAt = a + (paidFull / rate) * HOUR;
      drawn += remaining;
      discount += paidFull - remaining;
      remaining = 0;
    }
    windows.push({ start, end: dryAt ?? end, factor });
  });
  const last = deposits.at(-1);
  return { windows, deposited, drawn, discount, remaining, rate: last && remaining > 0 ? last.discountRate : 0 };
}

/** The instance's reservation, when it has one. */
export function reservationOf(data: StoreData, instanceId: number): ReservationRecord | undefined {
  return data.reservations?.find((r) => r.instanceId === instanceId);
}

/** Dollars the account moved from its credit into reservations, up to `now`. */
export function depositedBy(data: StoreData, accountId: number, now: Ms): number {
  let total = 0;
  for (const r of data.reservations ?? []) {
    if (r.accountId !== accountId) continue;
    for (const d of r.deposits) if (d.at <= now) total += d.amount;
  }
  return total;
}
