/**
 * Billing. Usage is recorded as segments of constant $/hour; balances and charges are computed
 * from them for any instant, so credit drains lazily with the (injectable) clock.
 *
 * A prepaid instance (reservations.ts) bills at its discount from its deposit while that lasts: the
 * deposit left the credit when it was made, its windows cost the credit nothing, and its charges
 * show the discounted amounts.
 */
import type { Contract, Ms, Segment, StoreData } from './model';
import { round } from './random';
import { depositedBy, reservationOf, reservationState, type Window } from './reservations';

const HOUR: Ms = 3_600_000;

export function openSegment(contract: Contract, kind: Segment['kind'], rate: number, at: Ms): void {
  if (contract.segments.some((s) => s.kind === kind && s.end === null)) return;
  contract.segments.push({ kind, rate, start: at, end: null });
}

export function closeSegment(contract: Contract, kind: Segment['kind'], at: Ms): void {
  for (const s of contract.segments) if (s.kind === kind && s.end === null) s.end = Math.max(s.start, at);
}

export function closeContract(contract: Contract, at: Ms): void {
  closeSegment(contract, 'gpu', at);
  closeSegment(contract, 'disk', at);
  contract.end = at;
}

interface Usage {
  hours: number;
  amount: number;
  rate: number;
  /** Whether a reservation's discount lowered the amount. */
  discounted: boolean;
}

/**
 * Hours and dollars of one kind within [from, to]. Inside `windows` (a reservation's, or those
 * with factor 0 for what the credit pays) the price is multiplied by the window's factor.
 */
export function usage(contract: Contract, kind: Segment['kind'], from: Ms, to: Ms, windows: readonly Window[] = []): Usage {
  let ms = 0;
  let amount = 0;
  let rate = 0;
  let discounted = false;
  for (const s of contract.segments) {
    if (s.kind !== kind) continue;
    const a = Math.max(s.start, from);
    const b = Math.min(s.end ?? to, to);
    if (b <= a) continue;
    ms += b - a;
    amount += (s.rate * (b - a)) / HOUR;
    for (const w of windows) {
      const overlap = Math.min(b, w.end) - Math.max(a, w.start);
      if (overlap <= 0 || w.factor === 1) continue;
      amount -= (s.rate * overlap * (1 - w.factor)) / HOUR;
      discounted = true;
    }
    rate = s.rate;
  }
  return { hours: ms / HOUR, amount, rate, discounted };
}

/** The windows in which a prepaid contract bills from its deposit (none for the others). */
function windowsOf(data: StoreData, contract: Contract, now: Ms): Window[] {
  const reservation = contract.type === 'instance' ? reservationOf(data, contract.id) : undefined;
  return reservation ? reservationState(reservation, contract, now).windows : [];
}

/** Dollars spent by an account up to `now`: what its contracts billed to its credit, and what it prepaid on instances. */
export function spent(data: StoreData, accountId: number, now: Ms): number {
  let total = 0;
  const reserved = (data.reservations?.length ?? 0) > 0;
  for (const c of data.contracts) {
    if (c.accountId !== accountId) continue;
    // Inside a reservation's windows the deposit pays, not the credit.
    const windows = reserved ? windowsOf(data, c, now).map((w) => ({ ...w, factor: 0 })) : [];
    total += usage(c, 'gpu', -Infinity, now, windows).amount + usage(c, 'disk', -Infinity, now, windows).amount;
  }
  return reserved ? total + depositedBy(data, accountId, now) : total;
}

export function toppedUp(data: StoreData, accountId: number, now: Ms): number {
  return data.topUps.filter((t) => t.accountId === accountId && t.at <= now).reduce((sum, t) => sum + t.amount, 0);
}

/** Spendable credit in dollars at `now`. */
export function balance(data: StoreData, accountId: number, now: Ms): number {
  return toppedUp(data, accountId, now) - spent(data, accountId, now);
}

export interface ChargeRow {
  start: number;
  end: number;
  type: string;
  source: string;
  description: string;
  amount: number;
  metadata: Record<string, unknown>;
  items: Array<Record<string, unknown>>;
}

function line(kind: 'gpu' | 'disk', u: Usage, start: number, end: number): Record<string, unknown> {
  // A reservation's discount shows as the average rate paid.
  const rate = u.discounted && u.hours > 0 ? u.amount / u.hours : u.rate;
  return {
    start,
    end,
    type: kind,
    source: null,
    description: `${u.hours.toFixed(3)} hours at $${rate.toFixed(3)}/hour`,
    amount: round(u.amount, 3),
    metadata: {},
    items: [],
  };
}

/** Per-contract charges overlapping [fromSec, toSec] (epoch seconds), clipped to that range. */
export function charges(data: StoreData, accountId: number, fromSec: number, toSec: number, now: Ms): ChargeRow[] {
  const from = fromSec * 1000;
  const to = Math.min(toSec * 1000, now);
  const rows: ChargeRow[] = [];
  for (const c of data.contracts) {
    if (c.accountId !== accountId) continue;
    const start = Math.max(c.start, from);
    const end = Math.min(c.end ?? to, to);
    if (end < start) continue;
    const windows = windowsOf(data, c, now);
    const gpu = usage(c, 'gpu', from, to, windows);
    const disk = usage(c, 'disk', from, to, windows);
    const items = [];
    if (gpu.hours > 0) items.push(line('gpu', gpu, Math.floor(start / 1000), Math.floor(end / 1000)));
    if (disk.hours > 0) items.push(line('disk', disk, Math.floor(start / 1000), Math.floor(end / 1000)));
    const metadata: Record<string, unknown> = {};
    if (c.label !== null) metadata.label = c.label;
    if (c.templateId !== null) metadata.template_id = c.templateId;
    const days = (end - start) / (24 * HOUR);
    const name = c.type === 'instance' ? 'Instance' : 'Volume';
    rows.push({
      start: Math.floor(start / 1000),
      end: Math.floor(end / 1000),
      type: c.type,
      source: `${c.type}-${c.id}`,
      description: `${name} ${c.id} Charges - ${days >= 1 ? `${Math.floor(days)} days` : `${((end - start) / HOUR).toFixed(2)} hours`}`,
      amount: round(gpu.amount + disk.amount, 3),
      metadata,
      items,
    });
  }
  return rows;
}
