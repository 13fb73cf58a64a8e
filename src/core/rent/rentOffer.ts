/**
 * Rent Offer as a core flow: what stops a rent before it is sent, which questions come in which
 * order (the wizard, or automation's modal), and what follows the renter's answer. The command in
 * `src/ui/commands/rent.ts` hands it the offer, the readers and the boxes, and shows the end.
 */
import type { Offer } from '../api/offers';
import type { GpuPriceStats } from '../offers/priceContext';
import type { Ask } from '../prompts';
import { rentConfirmation } from './confirmation';
import {
  NO_ACCOUNT_NOTICE,
  priceRent,
  rentEnd,
  rentOnstart,
  unsettledNotice,
  type IdleStopSettings,
  type PricedRent,
  type RentEnd,
  type RentNotice,
} from './flow';
import type { PendingRent } from './journal';
import type { LaunchMode } from './launchMode';
import { rentRequest, type RentPlan } from './plan';
import type { RentAccount, RentInfo, RentOutcome } from './renter';
import type { WizardInput } from './wizard/state';

/** What a rent flow reads and asks through; the ui builds it once per command. */
export interface RentFlowDeps {
  /** Only automation's modal confirmation is asked here; the wizard asks through its own steps. */
  ask: Pick<Ask, 'confirm'>;
  /** Rents on the window's account whose outcome is not known yet. */
  unsettled(): readonly PendingRent[];
  /** The account's credit, read fresh; undefined when not reported. */
  credit(): Promise<number | undefined>;
  /** The going rate of the offer's GPU model, when known in time; never fails. */
  priceStats(offer: Offer): Promise<GpuPriceStats | undefined>;
  /** The rent wizard on `offer`; undefined when cancelled. */
  wizard(offer: Offer, credit: number | undefined, extra: Partial<WizardInput>): Promise<RentPlan | undefined>;
  /** A template's own launch mode; undefined when it cannot be read. */
  templateMode(hash: string): Promise<LaunchMode | undefined>;
  /** The spend cap check; false when it refuses (it has told the user why). */
  allowsSpend(perHour: number, reason: string): Promise<boolean>;
  /** The gpuRental.idleStop settings and the service's address, for the start-up script. */
  idle: IdleStopSettings;
  baseUrl: string;
  /** The account a rent goes to now; undefined with no key. */
  account(): RentAccount | undefined;
}

/** Rent Offer's own: the offer and the renter (the ui shows its progress). */
export interface RentOfferDeps extends RentFlowDeps {
  /** The offer to rent: the one given, or the one the user picks; undefined when none. */
  offer(): Promise<Offer | undefined>;
  /** Whether `offer` was listed by a `type=bid` search (priced at its minimum bid). */
  bidSearch(offer: Offer): boolean;
  /** Rent With Template's template: the wizard starts with it. */
  template?: string;
  rent(account: RentAccount, offer: Offer, request: ReturnType<typeof rentRequest>, info: RentInfo): Promise<RentOutcome>;
}

/** A rent stopped by a notice only: nothing follows it, and nothing was made. */
export function stopped(notice: RentNotice): RentEnd {
  return { followUps: [], notice, instanceId: undefined };
}

/** What ends a rent before the renter is asked: a notice to show, or undefined (cancelled, said already). */
export type Stop = { stop: RentEnd | undefined };

export function isStop(value: object): value is Stop {
  return 'stop' in value;
}

/**
 * Rents one offer: refused while an earlier rent is unsettled, asked through the wizard (or, for a
 * plan automation gave, confirmed in a modal with the price), checked against the credit and the
 * spend cap, then sent. Resolves with what to show, or undefined when the user cancelled.
 */
export async function rentOfferFlow(deps: RentOfferDeps, given: RentPlan | undefined): Promise<RentEnd | undefined> {
  const unsettled = unsettledNotice(deps.unsettled());
  if (unsettled) return stopped(unsettled);
  const offer = await deps.offer();
  if (!offer) return undefined;
  const { credit, priceStats } = await readPrices(deps, offer);
  const bidSearch = deps.bidSearch(offer);
  const plan = given ?? (await deps.wizard(offer, credit, { bidSearch, priceStats, template: deps.template }));
  if (!plan) return undefined;
  const accepted = await acceptRent(deps, { offer, plan, credit, priceStats, bidSearch, automated: given !== undefined });
  if (isStop(accepted)) return accepted.stop;
  const setup = rentSetup(deps, plan);
  if (isStop(setup)) return setup.stop;
  const outcome = await deps.rent(setup.account, offer, rentRequest(plan, setup.onstart), accepted.info);
  return rentEnd(outcome, plan, accepted.quote);
}

/** The credit and the going rate, asked side by side (the wait for the rate, at most 2 s, overlaps). */
export async function readPrices(
  deps: Pick<RentFlowDeps, 'credit' | 'priceStats'>,
  offer: Offer,
): Promise<{ credit: number | undefined; priceStats: GpuPriceStats | undefined }> {
  const pricing = deps.priceStats(offer);
  const credit = await deps.credit();
  return { credit, priceStats: await pricing };
}

export interface Acceptance {
  offer: Offer;
  plan: RentPlan;
  credit: number | undefined;
  priceStats: GpuPriceStats | undefined;
  bidSearch: boolean;
  /** The plan came from automation: the wizard was skipped, the price confirmation is not. */
  automated: boolean;
  /** Rent Best Match: what happens when the offer is taken, said in automation's confirmation. */
  failover?: { title: string; detail: string };
}

/**
 * The money checks before a rent is sent: the credit must cover an hour, the spend cap must allow
 * it, and automation's plan is confirmed with the same confirmation the wizard showed.
 */
export async function acceptRent(deps: RentFlowDeps, a: Acceptance): Promise<PricedRent | Stop> {
  const priced = priceRent(a.offer, a.plan.disk, a.credit, { bid: a.plan.bid, bidSearch: a.bidSearch });
  if (priced.refusal) return { stop: stopped(priced.refusal) };
  if (!(await deps.allowsSpend(priced.quote.totalPerHour, priced.capReason))) return { stop: undefined };
  if (!a.automated) return priced;
  const { title, detail, button } = rentConfirmation({
    offer: a.offer,
    plan: a.plan,
    credit: a.credit,
    templateMode: a.plan.template ? await deps.templateMode(a.plan.template) : undefined,
    priceStats: a.priceStats,
    bidSearch: a.bidSearch,
    failover: a.failover,
  });
  return (await deps.ask.confirm(title, detail, button)) ? priced : { stop: undefined };
}

/** What a rent of `plan` sends besides the plan: the account it goes to (fixed now) and the start-up script. */
export function rentSetup(
  deps: Pick<RentFlowDeps, 'idle' | 'baseUrl' | 'account'>,
  plan: RentPlan,
): { account: RentAccount; onstart: string | undefined } | Stop {
  const script = rentOnstart(plan, deps.idle, deps.baseUrl);
  if (script.refusal) return { stop: stopped(script.refusal) };
  const account = deps.account();
  if (!account) return { stop: stopped(NO_ACCOUNT_NOTICE) };
  return { account, onstart: script.onstart };
}
