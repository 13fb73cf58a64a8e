/**
 * Control routes and in-process controls for what a renter is told about: a host's price increase
 * (priceIncreases.ts), credit falling low, and the webhook deliveries made (webhooks.ts). control.ts
 * serves them with the others; test/marketplace/README.md ("Control API") lists them.
 */
import { askPriceIncrease, logOf, rowOf, type PriceIncreaseAsk, type PriceIncreaseLog, type PriceIncreaseRow } from '../priceIncreases';
import { LOW_CREDIT_THRESHOLD } from '../notifications';
import { round } from '../random';
import { fail, ok, type Sim } from '../router';
import type { DeliveryAttempt } from '../webhooks';
import type { ControlRoute } from './control';

export interface NoticeControl {
  /**
   * The instance's host asks a higher price (priceIncreases.ts): by default the GPU 20 % up, disk
   * unchanged, the contract to end 30 days after its end now. A pending increase on the same
   * instance expires. Answers the new row as the pending list shows it.
   */
  priceIncrease(id: number, ask?: PriceIncreaseAsk): PriceIncreaseRow;
  /** Every price increase made, of every account, oldest first: the row, its status and the body that answered it. */
  priceIncreases(): PriceIncreaseLog[];
  /**
   * Takes credit away (a `transfer` invoice) so the account's credit is `balance` dollars (default
   * half the low-credit threshold); a webhook on `client:low_credit` hears of it when this crosses
   * the threshold. Answers the credit now and the threshold.
   */
  lowCredit(accountId: number, balance?: number): { credit: number; threshold: number };
  /** Every webhook delivery attempt so far, oldest first. */
  webhookDeliveries(): DeliveryAttempt[];
  /** Resolves once no webhook delivery is in flight or waiting for a retry. */
  webhooksIdle(): Promise<void>;
}

export function createNoticeControl(sim: Sim): NoticeControl {
  const store = sim.store;
  return {
    priceIncrease(id, ask = {}) {
      const found = sim.live(id);
      const offer = found && sim.offerById.get(found.inst.offerId);
      if (!found || !offer) throw fail(404, 'not_found', `Instance ${id} not found.`);
      const record = askPriceIncrease(store.data, () => store.nextId('priceincrease'), found.inst, offer, ask, sim.now());
      store.changed();
      return rowOf(record);
    },
    priceIncreases() {
      sim.tick();
      return (store.data.priceIncreases ?? []).map(logOf);
    },
    lowCredit(accountId, balance = LOW_CREDIT_THRESHOLD / 2) {
      if (!store.account(accountId)) throw fail(404, 'not_found', `No account ${accountId}.`);
      const now = sim.now();
      sim.tick();
      const credit = store.balance(accountId, now);
      if (!(Number.isFinite(balance) && balance < credit))
        throw fail(400, 'invalid_args', `balance must be below the credit now (${round(credit, 6)}); this control only takes credit away.`);
      store.data.topUps.push({
        id: store.nextId('topup'),
        accountId,
        at: now,
        amount: -(credit - balance),
        service: 'transfer',
        description: 'Credit taken away (simulator control)',
      });
      store.changed();
      // The crossing is noticed now (and instances stop when nothing is left), not at the next request.
      sim.tick();
      return { credit: round(store.balance(accountId, now), 6), threshold: LOW_CREDIT_THRESHOLD };
    },
    webhookDeliveries: () => sim.notifications.sender.attempts(),
    webhooksIdle: () => sim.notifications.sender.idle(),
  };
}

/** A body number, or the 400 saying it is not one; absent stays undefined. */
function optionalNumber(b: Record<string, unknown>, name: string, nullable = false): number | null | undefined {
  const value = b[name];
  if (value === undefined || (nullable && value === null)) return value as undefined | null;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw fail(400, 'invalid_args', `${name} must be a number${nullable ? ' or null' : ''}.`);
  return value;
}

export const NOTICE_CONTROL: readonly ControlRoute[] = [
  {
    method: 'POST',
    path: '/__control/instances/:id/price-increase',
    handler: (control, { params, b }) => {
      const ask: PriceIncreaseAsk = {
        gpu_costpersec: optionalNumber(b, 'gpu_costpersec') ?? undefined,
        disk_ram_costpersec: optionalNumber(b, 'disk_ram_costpersec', true),
        ask_end_date: optionalNumber(b, 'ask_end_date') ?? undefined,
      };
      return ok({ success: true, pending_price_increase: control.priceIncrease(Number(params.id), ask) });
    },
  },
  { method: 'GET', path: '/__control/price-increases', handler: (control) => ok({ price_increases: control.priceIncreases() }) },
  {
    method: 'POST',
    path: '/__control/accounts/:id/low-credit',
    handler: (control, { params, b }) => {
      const balance = optionalNumber(b, 'balance') ?? undefined;
      return ok({ success: true, ...control.lowCredit(Number(params.id), balance) });
    },
  },
  {
    method: 'GET',
    path: '/__control/webhook-deliveries',
    handler: (control) => ok({ deliveries: control.webhookDeliveries() }),
  },
];
