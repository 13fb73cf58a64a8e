/**
 * Rent Best Match: rent the best offer of a search, and when it is taken before the rent lands,
 * the next, up to a limit the user saw. Every attempt goes through the one Renter (journal first,
 * never two creates, unknown outcomes settled), strictly one after another. Only "the service said
 * the offer is gone" moves on; any other outcome stops here and is told as a normal rent's is.
 */
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { minBidOf } from './bid';
import { presentOffer } from '../offers/present';
import { priceRent, rentEnd, type PricedRent, type RentEnd } from './flow';
import { rentOutcomeMessage } from './messages';
import { rentRequest, type RentPlan } from './plan';
import type { RentAccount, RentOutcome, Renter } from './renter';
import { l10n, sentences } from '../l10n';

/** The most offers one Rent Best Match may try (gpuRental.rent.failoverAttempts' maximum). */
export const MAX_FAILOVER_ATTEMPTS = 10;

/** One offer tried, and what came of it. */
export interface FailoverAttempt {
  offerId: number;
  /** "RTX 4090 ×2 in NL". */
  description: string;
  /** The total $/h of this offer for the plan's disk. */
  perHour: number;
  /** The renter's outcome, or why nothing was sent for this offer. */
  outcome: RentOutcome['kind'] | 'declined' | 'capped' | 'unaffordable';
}

export type FailoverResult =
  /** The renter answered something other than "taken" (created, refused, uncertain, unsettled, busy): it stops here. */
  | { kind: 'ended'; outcome: Exclude<RentOutcome, { kind: 'unavailable' }>; offer: Offer; priced: PricedRent; attempts: FailoverAttempt[] }
  /** Every offer tried was taken: `limit` of them, or all there were when fewer matched. */
  | { kind: 'allTaken'; attempts: FailoverAttempt[]; limit: number; candidates: number }
  /** The next offer costs a different price and the user declined it: nothing was sent for it. */
  | { kind: 'declined'; offer: Offer; priced: PricedRent; acceptedPerHour: number; attempts: FailoverAttempt[] }
  /** The spend cap check refused the next offer (it has told the user why): nothing was sent for it. */
  | { kind: 'capped'; offer: Offer; priced: PricedRent; attempts: FailoverAttempt[] }
  /** The known credit cannot cover an hour of the next offer: nothing was sent for it. */
  | { kind: 'unaffordable'; offer: Offer; priced: PricedRent; attempts: FailoverAttempt[] }
  /** The renter was busy with another rent when the failover was asked to start: nothing was sent. */
  | { kind: 'busy'; attempts: [] }
  /** Cancelled between attempts (never during one: a create in flight is not abandoned). */
  | { kind: 'cancelled'; attempts: FailoverAttempt[] }
  /** No offer fits the plan. */
  | { kind: 'noOffers'; attempts: [] };

/** What is told before each attempt, for the progress notification. */
export interface FailoverStep {
  /** 1-based. */
  attempt: number;
  /** How many offers will be tried at most (the limit, or fewer when fewer fit). */
  of: number;
  offer: Offer;
  description: string;
  /** The attempt before this one (it was taken), when there was one. */
  previous?: FailoverAttempt;
}

export interface FailoverInput {
  renter: Pick<Renter, 'busy' | 'rent'>;
  /** The account every attempt goes to, fixed when the failover starts. */
  account: RentAccount;
  /** The search's offers in its order; the first is the one the wizard was run on. */
  offers: readonly Offer[];
  /** At most this many offers are tried (1 to MAX_FAILOVER_ATTEMPTS). */
  limit: number;
  /** What the wizard (or automation) chose; sent unchanged to every offer. */
  plan: RentPlan;
  /** The start-up script the plan sends (see `rentOnstart`). */
  onstart: string | undefined;
  /** The total $/h the user accepted: the first offer's, for the plan's disk. */
  acceptedPerHour: number;
  /** The account's credit, when known (the same check as a normal rent). */
  credit: number | undefined;
  /** The offers came from a `type=bid` search (their listed price is the minimum bid): see QuotePricing. */
  bidSearch?: boolean;
  /** Asked before an offer whose total $/h differs from the accepted one; false stops the failover. */
  confirmPrice(offer: Offer, priced: PricedRent, acceptedPerHour: number, attempts: readonly FailoverAttempt[]): Promise<boolean>;
  /** The spend cap check, per attempt; false stops the failover (the check has said why). */
  allowsSpend(perHour: number, capReason: string): Promise<boolean>;
  /** Told before each attempt is priced and sent. */
  onStep?(step: FailoverStep): void;
  /** Cancels between attempts. */
  signal?: AbortSignal;
}

/**
 * The offers a plan can be sent to, in the search's order: one per id, with the disk the plan asks
 * for, direct ports when it connects directly, the same machine when it attaches a volume (a volume
 * lives on one machine), and a minimum bid the plan's bid meets when it is interruptible.
 */
export function failoverCandidates(offers: readonly Offer[], plan: RentPlan): Offer[] {
  const first = offers[0];
  const seen = new Set<number>();
  const direct = plan.runtype !== undefined && /direc/.test(plan.runtype);
  return offers.filter((offer) => {
    if (seen.has(offer.id)) return false;
    seen.add(offer.id);
    if (offer === first) return true; // the wizard checked the plan against it
    if (typeof offer.disk_space === 'number' && offer.disk_space < plan.disk) return false;
    if (direct && !((offer.direct_port_count ?? 0) > 0)) return false;
    if (plan.volume && (offer.machine_id == null || offer.machine_id !== first?.machine_id)) return false;
    // A bid under an offer's minimum would not run there.
    if (plan.bid !== undefined && (minBidOf(offer) ?? 0) > plan.bid) return false;
    return true;
  });
}

/** Whether two totals differ, beyond the noise of adding floating point dollars. */
export function priceDiffers(perHour: number, acceptedPerHour: number): boolean {
  return Math.abs(perHour - acceptedPerHour) > 1e-9;
}

/**
 * Rents the best of `offers` that is still there, trying at most `limit`, one at a time. Resolves
 * with what happened and every attempt. It never starts while the renter is busy, and never sends a
 * create before the previous one's outcome is known.
 */
export async function rentBestMatch(input: FailoverInput): Promise<FailoverResult> {
  if (input.renter.busy) return { kind: 'busy', attempts: [] };
  const limit = Math.min(MAX_FAILOVER_ATTEMPTS, Math.max(1, Math.floor(input.limit)));
  const candidates = failoverCandidates(input.offers, input.plan).slice(0, limit);
  if (candidates.length === 0) return { kind: 'noOffers', attempts: [] };
  const attempts: FailoverAttempt[] = [];
  for (const [index, offer] of candidates.entries()) {
    if (input.signal?.aborted) return { kind: 'cancelled', attempts };
    const priced = priceRent(offer, input.plan.disk, input.credit, { bid: input.plan.bid, bidSearch: input.bidSearch });
    const attempt: Omit<FailoverAttempt, 'outcome'> = {
      offerId: offer.id,
      description: priced.info.description,
      perHour: priced.quote.totalPerHour,
    };
    input.onStep?.({ attempt: index + 1, of: candidates.length, offer, description: attempt.description, previous: attempts.at(-1) });
    const stopBefore = async (): Promise<'unaffordable' | 'declined' | 'capped' | undefined> => {
      if (priced.refusal) return 'unaffordable';
      if (priceDiffers(priced.quote.totalPerHour, input.acceptedPerHour)) {
        if (!(await input.confirmPrice(offer, priced, input.acceptedPerHour, attempts))) return 'declined';
        if (input.signal?.aborted) return undefined;
      }
      if (!(await input.allowsSpend(priced.quote.totalPerHour, priced.capReason))) return 'capped';
      return undefined;
    };
    const stop = await stopBefore();
    if (stop) {
      attempts.push({ ...attempt, outcome: stop });
      if (stop === 'declined') return { kind: 'declined', offer, priced, acceptedPerHour: input.acceptedPerHour, attempts };
      return { kind: stop, offer, priced, attempts };
    }
    if (input.signal?.aborted) return { kind: 'cancelled', attempts };
    const outcome = await input.renter.rent(input.account, offer, rentRequest(input.plan, input.onstart), priced.info);
    attempts.push({ ...attempt, outcome: outcome.kind });
    if (outcome.kind !== 'unavailable') return { kind: 'ended', outcome, offer, priced, attempts };
  }
  return { kind: 'allTaken', attempts, limit, candidates: candidates.length };
}

/** "RTX 4090 in NL ($0.41/h)". */
function attemptName(a: FailoverAttempt): string {
  return `${a.description} (${formatDollars(a.perHour)}/h)`;
}

/** "The 2 offers before it were taken first: …", or undefined when none was. */
function takenBefore(attempts: readonly FailoverAttempt[]): string | undefined {
  const taken = attempts.filter((a) => a.outcome === 'unavailable');
  if (taken.length === 0) return undefined;
  const names = taken.map(attemptName).join(', ');
  return taken.length === 1
    ? l10n.t('The offer before it was taken first: {0}.', names)
    : l10n.t('The {0} offers before it were taken first: {1}.', taken.length, names);
}

/** The progress notification's line for a step: "offer 2 of 3: RTX 4090 in SE (RTX 4090 in NL was taken)". */
export function failoverProgress(step: FailoverStep): string {
  const trying = l10n.t('offer {0} of {1}: {2}', step.attempt, step.of, step.description);
  return step.previous ? l10n.t('{0} ({1} was taken)', trying, step.previous.description) : trying;
}

/**
 * What the user sees before the first attempt (a row of the rent confirmation): how many offers may
 * be tried, and which come after the first, in order.
 */
export function failoverPreview(offers: readonly Offer[], limit: number): { title: string; detail: string } {
  const tried = offers.slice(0, Math.min(MAX_FAILOVER_ATTEMPTS, Math.max(1, Math.floor(limit))));
  const next = tried.slice(1).map((o) => `${presentOffer(o).label} ${formatDollars(o.dph_total)}/h`);
  if (next.length === 0)
    return {
      title: l10n.t('Only this offer is tried'),
      detail: l10n.t(
        'if it is taken first, nothing is rented ({0})',
        offers.length > 1 ? l10n.t('gpuRental.rent.failoverAttempts is 1') : l10n.t('no other offer matches'),
      ),
    };
  return {
    title: l10n.t('If it is taken first, tries up to {0} offers in this order', tried.length),
    detail: l10n.t('then {0}; a different price is asked about before it is rented', next.join(', ')),
  };
}

/** The question before a fallback whose total differs from the accepted one. */
export function failoverPriceQuestion(
  priced: PricedRent,
  acceptedPerHour: number,
  attempts: readonly FailoverAttempt[],
): { title: string; detail: string; button: string } {
  const q = priced.quote;
  const taken = attempts.filter((a) => a.outcome === 'unavailable').map((a) => a.description);
  return {
    title: l10n.t(
      'Rent {0} for {1}/h instead of {2}/h?',
      priced.info.description,
      formatDollars(q.totalPerHour),
      formatDollars(acceptedPerHour),
    ),
    detail: sentences(
      taken.length === 1
        ? l10n.t('{0} was taken before the rent landed.', taken[0]!)
        : taken.length > 1 && l10n.t('{0} were taken before the rent landed.', taken.join(', ')),
      l10n.t(
        "This is the next offer in the search's order: GPU {0}/h + disk {1}/h, about {2} per day. Nothing is rented unless you choose Rent.",
        formatDollars(q.gpuPerHour),
        formatDollars(q.diskPerHour),
        formatDollars(q.perDay),
      ),
    ),
    button: l10n.t('Rent'),
  };
}

/**
 * What follows a failover: the normal rent's follow-ups and notice when the renter answered (with the
 * offers taken before it), otherwise the failover's own notice. Undefined when the spend cap check
 * has already told the user.
 */
export function failoverEnd(result: FailoverResult, plan: RentPlan): RentEnd | undefined {
  const nothing = l10n.t('Nothing was rented and nothing is billed.');
  switch (result.kind) {
    case 'ended': {
      const end = rentEnd(result.outcome, plan, result.priced.quote);
      const text = sentences(
        end.notice.text,
        takenBefore(result.attempts),
        result.outcome.kind !== 'created' && l10n.t('Rent Best Match stopped here: no other offer is tried after this answer.'),
      );
      return { ...end, notice: { ...end.notice, text } };
    }
    case 'allTaken': {
      const tried = result.attempts.map(attemptName).join(', ');
      const why =
        result.candidates < result.limit
          ? l10n.t('every offer that matched ({0}) was taken before the rent landed: {1}.', result.candidates, tried)
          : result.limit === 1
            ? l10n.t('the 1 offer tried (the limit, gpuRental.rent.failoverAttempts) was taken before the rent landed: {0}.', tried)
            : l10n.t(
                'the {0} offers tried (the limit, gpuRental.rent.failoverAttempts) were taken before the rent landed: {1}.',
                result.limit,
                tried,
              );
      return {
        followUps: [],
        notice: {
          severity: 'warning',
          text: l10n.t('GPU Rental: not rented: {0} {1} Refresh the offers and try again.', why, nothing),
          action: { button: l10n.t('Refresh Offers'), run: 'refreshOffers' },
        },
        instanceId: undefined,
      };
    }
    case 'declined':
      return {
        followUps: [],
        notice: {
          severity: 'info',
          text: sentences(
            l10n.t(
              'GPU Rental: not rented: {0} costs {1}/h, not the {2}/h you accepted, and you declined it.',
              result.priced.info.description,
              formatDollars(result.priced.quote.totalPerHour),
              formatDollars(result.acceptedPerHour),
            ),
            takenBefore(result.attempts),
            nothing,
          ),
        },
        instanceId: undefined,
      };
    case 'unaffordable':
      // priceRent's refusal says what the credit is and what to do; it is set whenever this is the outcome.
      return result.priced.refusal ? { followUps: [], notice: result.priced.refusal, instanceId: undefined } : undefined;
    case 'capped':
      return undefined;
    case 'busy':
      return {
        followUps: [],
        notice: { severity: 'error', text: l10n.t('GPU Rental: {0}', rentOutcomeMessage({ kind: 'busy' })) },
        instanceId: undefined,
      };
    case 'cancelled': {
      const n = result.attempts.length;
      const after =
        n === 0
          ? l10n.t('before anything was sent')
          : n === 1
            ? l10n.t('after 1 offer was taken')
            : l10n.t('after {0} offers were taken', n);
      return {
        followUps: [],
        notice: { severity: 'info', text: l10n.t('GPU Rental: Rent Best Match cancelled {0}. {1}', after, nothing) },
        instanceId: undefined,
      };
    }
    case 'noOffers':
      return {
        followUps: [],
        notice: {
          severity: 'warning',
          text: l10n.t(
            'GPU Rental: not rented: no offer of this search fits the rent (its disk, connection or volume). {0} Change the search and try again.',
            nothing,
          ),
          action: { button: l10n.t('Refresh Offers'), run: 'refreshOffers' },
        },
        instanceId: undefined,
      };
  }
}
