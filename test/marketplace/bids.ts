/**
 * Interruptible rents. An instance rented with a `price` keeps that bid as its GPU rate. The
 * machine's minimum bid can rise (another renter bids more: `outbid`, driven by the control API);
 * an instance whose bid is then below it is stopped as the service does (GPU billing ends, the
 * disk keeps billing) and keeps wanting to run (`intended_status` stays `running`). Changing the
 * bid (`setBid`) to at least the machine's minimum boots it again.
 *
 * A raised minimum is kept in the state file (`minBids`, by machine) and laid over the generated
 * catalogue (`applyMinBids`), so searches, rents and instance records all see the same minimum.
 */
import type { Offer } from './catalogue';
import { openSegment, closeSegment } from './ledger';
import { addLog, start, stop } from './lifecycle';
import type { Contract, InstanceState, Ms } from './model';
import { round } from './random';
import { fail, type Sim } from './router';

/** The change-bid route's bounds in $/hour (the create route allows up to 128). */
export const CHANGE_BID_MIN = 0.001;
export const CHANGE_BID_MAX = 32;

/** Why an instance stops when outbid; also its `status_msg` while it waits. */
export const OUTBID_REASON = 'Outbid: a higher bid took the GPU; waiting for your bid to be the highest again';

/** Lays the raised minimum bids of the state file over the catalogue (at start, and after each raise). */
export function applyMinBids(sim: Pick<Sim, 'offers' | 'store'>): void {
  const raised = sim.store.data.minBids ?? {};
  for (const offer of sim.offers) {
    const min = raised[String(offer.machine_id)];
    if (min !== undefined && min > offer.min_bid) offer.min_bid = min;
  }
}

/** The machine's minimum bid now ($/hour), as its offers list it. */
export function machineMinBid(offer: Offer): number {
  return offer.min_bid;
}

/** Whether a start must wait: the instance was outbid and its bid is still below the machine's minimum. */
export function stillOutbid(inst: InstanceState, offer: Offer): boolean {
  return inst.isBid && inst.outbid === true && inst.gpuRate < machineMinBid(offer);
}

/**
 * Another renter outbids the instance: the machine's minimum bid rises to `minBid` (default a
 * quarter over the instance's bid), and the instance, when it runs or boots, stops. Throws a 400 for
 * an on-demand instance or a minimum that does not beat its bid.
 */
export function outbid(sim: Sim, id: number, minBid: number | undefined): { inst: InstanceState; minBid: number } {
  const found = sim.live(id);
  if (!found) throw fail(404, 'not_found', `Instance ${id} not found.`);
  const { inst, contract } = found;
  if (!inst.isBid) throw fail(400, 'invalid_args', `Instance ${id} rents on demand; only an interruptible (bid) instance can be outbid.`);
  const min = minBid ?? round(Math.max(inst.gpuRate * 1.25, inst.gpuRate + 0.01), 4);
  if (!(min > inst.gpuRate))
    throw fail(400, 'invalid_args', `minBid ${min} does not beat the instance's bid ${inst.gpuRate}; give more than that.`);
  const offer = sim.offerById.get(inst.offerId);
  if (!offer) throw new Error(`instance ${id} refers to unknown offer ${inst.offerId}`);
  raiseMinBid(sim, offer.machine_id, min);
  const now = sim.now();
  if (inst.phase !== 'stopped' && inst.phase !== 'failed') {
    stop(inst, contract, now, OUTBID_REASON, sim.network);
    inst.outbid = true;
  } else if (inst.phase === 'stopped' && inst.outbid) {
    addLog(inst, now, `The minimum bid rose to ${min}`);
  }
  sim.store.changed();
  return { inst, minBid: min };
}

function raiseMinBid(sim: Sim, machineId: number, min: number): void {
  const data = sim.store.data;
  data.minBids = { ...(data.minBids ?? {}), [String(machineId)]: Math.max(min, data.minBids?.[String(machineId)] ?? 0) };
  applyMinBids(sim);
}

/**
 * Changes an interruptible instance's bid. A running instance bills at the new bid from now on; an
 * outbid one whose new bid reaches the machine's minimum boots again; an outbid one still below it
 * waits, stopped. A running one below the minimum is outbid at once.
 */
export function setBid(sim: Sim, inst: InstanceState, contract: Contract, price: number, now: Ms): void {
  const offer = sim.offerById.get(inst.offerId);
  if (!offer) throw new Error(`instance ${inst.id} refers to unknown offer ${inst.offerId}`);
  inst.gpuRate = round(price, 6);
  addLog(inst, now, `Bid changed to ${inst.gpuRate} $/hour`);
  const min = machineMinBid(offer);
  if (inst.phase === 'running') {
    // The GPU bills at the new bid from now on.
    closeSegment(contract, 'gpu', now);
    if (inst.gpuRate >= min) openSegment(contract, 'gpu', inst.gpuRate, now);
  }
  if (inst.gpuRate < min && inst.phase !== 'stopped' && inst.phase !== 'failed') {
    stop(inst, contract, now, OUTBID_REASON, sim.network);
    inst.outbid = true;
  } else if (inst.outbid && inst.gpuRate >= min) {
    start(inst, now, sim.network, offer);
  }
  sim.store.changed();
}
