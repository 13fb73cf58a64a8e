/**
 * Interruptible rents. An instance rented with a `price` keeps that bid as its GPU rate. The
 * machine's minimum bid can rise (another renter bids more: `outbid`, driven by the control API);
 * an instance whose bid is then below it is stopped as the service does (GPU billing ends, the
 * disk keeps billing) and keeps wanting to run (`intended_status` stays `running`). Changing the
 * bid (`setBid`) to at least the machine's minimum boots it again, and so does the minimum falling
 * back to the bid (`lowerBids`: the other renters' bids fall), as the service resumes an outbid
 * instance by itself when its priority returns.
 *
 * Each outbid that stops an instance raises a `client:outbid` notification (notifications.ts).
 *
 * A changed minimum is kept in the state file (`minBids`, by machine) and laid over the generated
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

/** Each offer's minimum bid as listed, before any outbid or lowering changed it. */
const listedMinBids = new WeakMap<Offer, number>();

/** The offer's minimum bid as it was listed, before any outbid changed it ($/hour). */
export function listedMinBid(offer: Offer): number {
  if (!listedMinBids.has(offer)) listedMinBids.set(offer, offer.min_bid);
  return listedMinBids.get(offer)!;
}

/** Lays the changed minimum bids of the state file over the catalogue (at start, and after each change). */
export function applyMinBids(sim: Pick<Sim, 'offers' | 'store'>): void {
  const changed = sim.store.data.minBids ?? {};
  for (const offer of sim.offers) {
    const listed = listedMinBid(offer);
    offer.min_bid = changed[String(offer.machine_id)] ?? listed;
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
  raiseMinBid(sim, offer, min);
  const now = sim.now();
  if (inst.phase !== 'stopped' && inst.phase !== 'failed') {
    stop(inst, contract, now, OUTBID_REASON, sim.network);
    inst.outbid = true;
    sim.notifications.outbid(inst, min, now);
  } else if (inst.phase === 'stopped' && inst.outbid) {
    addLog(inst, now, `The minimum bid rose to ${min}`);
  }
  sim.store.changed();
  return { inst, minBid: min };
}

function raiseMinBid(sim: Sim, offer: Offer, min: number): void {
  const data = sim.store.data;
  data.minBids = { ...(data.minBids ?? {}), [String(offer.machine_id)]: Math.max(min, offer.min_bid) };
  applyMinBids(sim);
}

/**
 * The other renters' bids on the instance's machine fall: its minimum bid drops to `minBid`
 * (default: the minimum its offer listed before any outbid), and every outbid instance on that
 * machine whose bid now reaches it boots again by itself (`start`: scheduling, loading, running;
 * its start-up script runs again, GPU billing resumes). Instances their renter stopped, outbid
 * ones still below the minimum, and those of an account without credit, stay stopped. Throws a 400 for a minimum below CHANGE_BID_MIN or
 * above the machine's minimum now (raising it is `outbid`).
 */
export function lowerBids(sim: Sim, id: number, minBid: number | undefined): { minBid: number; resumed: number[] } {
  const found = sim.live(id);
  if (!found) throw fail(404, 'not_found', `Instance ${id} not found.`);
  const offer = sim.offerById.get(found.inst.offerId);
  if (!offer) throw new Error(`instance ${id} refers to unknown offer ${found.inst.offerId}`);
  const min = round(minBid ?? listedMinBid(offer), 6);
  if (!(min >= CHANGE_BID_MIN))
    throw fail(400, 'invalid_args', `minBid ${min} is below ${CHANGE_BID_MIN} $/hour, the lowest minimum a machine can have.`);
  if (min > machineMinBid(offer))
    throw fail(
      400,
      'invalid_args',
      `minBid ${min} is above the machine's minimum bid ${machineMinBid(offer)}; lowering cannot raise it (outbid raises it).`,
    );
  const data = sim.store.data;
  const machine = String(offer.machine_id);
  const rest = Object.fromEntries(Object.entries(data.minBids ?? {}).filter(([m]) => m !== machine));
  data.minBids = min === listedMinBid(offer) ? rest : { ...rest, [machine]: min };
  applyMinBids(sim);
  const now = sim.now();
  const resumed: number[] = [];
  for (const inst of data.instances) {
    if (!inst.isBid || !inst.outbid || inst.phase !== 'stopped') continue;
    const its = sim.offerById.get(inst.offerId);
    if (its?.machine_id !== offer.machine_id) continue;
    if (inst.gpuRate < machineMinBid(its)) {
      addLog(inst, now, `The minimum bid fell to ${machineMinBid(its)}; your bid ${inst.gpuRate} is still below it`);
      continue;
    }
    if (sim.store.balance(inst.accountId, now) <= 0) {
      addLog(inst, now, `The minimum bid fell to ${machineMinBid(its)}, but the account has no credit left; not resuming`);
      continue;
    }
    addLog(inst, now, `Resuming: the other bids fell, so your bid ${inst.gpuRate} is the highest again (minimum ${machineMinBid(its)})`);
    start(inst, now, sim.network, its);
    resumed.push(inst.id);
  }
  sim.store.changed();
  return { minBid: min, resumed };
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
    sim.notifications.outbid(inst, min, now);
  } else if (inst.outbid && inst.gpuRate >= min) {
    start(inst, now, sim.network, offer);
  }
  sim.store.changed();
}
