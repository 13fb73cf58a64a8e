/**
 * The rent of an outbid policy's move (core/jobs/outbidPolicy.ts, MoveRentPort): an instance like
 * the outbid one on another machine. Offers like it: the same GPU model and count, at least its GPU
 * memory and disk, rentable. Interruptible ones whose minimum bid fits the ceiling come first (the
 * bid: the old one when it beats their minimum, else just over their minimum, never over the
 * ceiling), then on-demand ones whose GPU price fits it. The same image, disk, label and start-up
 * script as the old instance. Each offer goes through Rent Best Match's one attempt (failover.ts):
 * the Renter and its journal, never two creates, and only "taken" moves on to the next offer.
 */
import type { Instance } from '../api/instances';
import type { Offer, SearchOffersRequest } from '../api/offers';
import type { OfferFilters, OfferType } from '../api/offerQuery';
import { formatDollars } from '../format';
import { bidOf } from '../instances/outbid';
import type { MoveRent, MoveRentPort } from '../jobs/outbidPorts';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import { parseQuery } from '../offers/search';
import { minBidOf, onDemandGpuPerHour, suggestBid } from './bid';
import { failoverProgress, MAX_FAILOVER_ATTEMPTS, rentBestMatch, type FailoverAttempt, type FailoverInput } from './failover';
import { priceRent } from './flow';
import { isRentRuntype } from './launchMode';
import { rentOutcomeMessage } from './messages';
import type { RentPlan } from './plan';
import type { RentAccount, Renter } from './renter';

export interface OutbidRentDeps {
  readonly renter: Pick<Renter, 'busy' | 'rent' | 'uniqueLabel'>;
  /** The account the outbid instance belongs to, with its key; undefined when the window is signed out. */
  account(): RentAccount | undefined;
  search(request: SearchOffersRequest): Promise<Offer[]>;
  /** The account's credit, when known. */
  credit(): Promise<number | undefined>;
  /** The spend cap check; false when it refuses (it has told the user why). */
  allowsSpend(perHour: number, reason: string): Promise<boolean>;
  readonly logger: Logger;
  /** At most this many offers are tried (default 5). */
  readonly limit?: number;
}

/** One offer to try, with the bid it would be rented at (undefined: on demand). */
export interface MoveCandidate {
  readonly offer: Offer;
  readonly bid: number | undefined;
  readonly bidSearch: boolean;
}

/** The search for offers like `old` of one type, cheapest first, priced with its disk. */
export function likeRequest(old: Instance, type: OfferType): SearchOffersRequest {
  const defaults = parseQuery('');
  const filters: OfferFilters = { ...defaults.filters, rentable: { eq: true } };
  if (old.gpu_name) filters['gpu_name'] = { eq: old.gpu_name };
  if (old.num_gpus) filters['num_gpus'] = { eq: old.num_gpus };
  if (typeof old.gpu_ram === 'number') filters['gpu_ram'] = { gte: old.gpu_ram };
  if (typeof old.disk_space === 'number') filters['disk_space'] = { gte: old.disk_space };
  if (typeof old.machine_id === 'number') filters['machine_id'] = { neq: old.machine_id };
  return {
    query: { ...defaults, filters, order: [['dph_total', 'asc']], type },
    limit: 20,
    allocatedStorage: diskOf(old),
  };
}

function diskOf(old: Instance): number {
  return Math.max(1, Math.ceil(old.disk_space ?? 10));
}

/** Whether `offer` is like `old` (checked here too: a search's filters are the service's to honour). */
export function isLike(offer: Offer, old: Instance): boolean {
  if (offer.rentable === false) return false;
  if (typeof old.machine_id === 'number' && offer.machine_id === old.machine_id) return false;
  if (old.gpu_name && offer.gpu_name !== old.gpu_name) return false;
  if (old.num_gpus && offer.num_gpus !== old.num_gpus) return false;
  if (typeof old.gpu_ram === 'number' && offer.gpu_ram < old.gpu_ram) return false;
  if (typeof old.disk_space === 'number' && typeof offer.disk_space === 'number' && offer.disk_space < old.disk_space) return false;
  return true;
}

/** The bid for an interruptible offer: the old bid when it beats its minimum, else just over it, never over the ceiling; undefined when it cannot run within the ceiling. */
export function moveBid(offer: Offer, oldBid: number | undefined, ceiling: number): number | undefined {
  const min = minBidOf(offer);
  if (min === undefined || min > ceiling) return undefined;
  const wanted = oldBid !== undefined && oldBid > min ? oldBid : suggestBid(min);
  return Math.max(min, Math.min(wanted, ceiling));
}

/** The offers to try in order: interruptible ones within the ceiling (cheapest bid first), then on-demand ones. */
export function moveCandidates(old: Instance, ceiling: number, bids: readonly Offer[], onDemand: readonly Offer[]): MoveCandidate[] {
  const oldBid = bidOf(old);
  const seen = new Set<number>();
  const once = (o: Offer) => {
    if (seen.has(o.id)) return false;
    seen.add(o.id);
    return true;
  };
  const interruptible = bids
    .filter((o) => isLike(o, old))
    .map((offer) => ({ offer, bid: moveBid(offer, oldBid, ceiling), bidSearch: true }))
    .filter((c): c is MoveCandidate & { bid: number } => c.bid !== undefined)
    .sort((a, b) => a.bid - b.bid)
    .filter((c) => once(c.offer));
  const demand = onDemand
    .filter((o) => isLike(o, old) && onDemandGpuPerHour(o, false) <= ceiling + 1e-9)
    .sort((a, b) => onDemandGpuPerHour(a, false) - onDemandGpuPerHour(b, false))
    .filter(once)
    .map((offer) => ({ offer, bid: undefined, bidSearch: false }));
  return [...interruptible, ...demand];
}

/** The plan a move sends: the old instance's image, disk, label, launch mode and start-up script. */
export function movePlan(old: Instance, label: string, bid: number | undefined): RentPlan {
  return {
    image: old.image_uuid ?? undefined,
    disk: diskOf(old),
    label,
    ...(isRentRuntype(old.image_runtype) ? { runtype: old.image_runtype } : {}),
    // The start-up script already carries what the old rent added (the idle watchdog, the jobs' resume): sent as it is.
    onstart: old.onstart ?? undefined,
    ...(bid !== undefined ? { bid } : {}),
  };
}

/** The MoveRentPort over the Renter. */
export function outbidRenter(deps: OutbidRentDeps): MoveRentPort {
  return { rentLike: (old, ceiling, o) => rentLike(deps, old, ceiling, o) };
}

async function rentLike(
  deps: OutbidRentDeps,
  old: Instance,
  ceiling: number,
  o: { report(message: string): void; signal: AbortSignal },
): Promise<MoveRent> {
  const account = deps.account();
  if (!account) return { kind: 'notRented', reason: l10n.t('GPU Rental is not signed in to the account of the instance.') };
  const [bids, onDemand] = await Promise.all([deps.search(likeRequest(old, 'bid')), deps.search(likeRequest(old, 'on-demand'))]);
  const candidates = moveCandidates(old, ceiling, bids, onDemand).slice(0, Math.min(MAX_FAILOVER_ATTEMPTS, deps.limit ?? 5));
  deps.logger.info(
    `Move from #${old.id}: ${candidates.length} offers fit (${candidates.map((c) => `${c.offer.id}${c.bid !== undefined ? ` bid $${c.bid}` : ' on demand'}`).join(', ') || 'none'}).`,
  );
  if (candidates.length === 0) return { kind: 'nothingFits' };
  const credit = await deps.credit();
  const label = old.label || deps.renter.uniqueLabel();
  const attempts: FailoverAttempt[] = [];
  for (const [index, c] of candidates.entries()) {
    if (o.signal.aborted) return { kind: 'cancelled' };
    const plan = movePlan(old, label, c.bid);
    const priced = priceRent(c.offer, plan.disk, credit, { bid: c.bid, bidSearch: c.bidSearch });
    const input: FailoverInput = {
      renter: deps.renter,
      account,
      offers: [c.offer],
      limit: 1,
      plan,
      onstart: plan.onstart,
      acceptedPerHour: priced.quote.totalPerHour,
      credit,
      bidSearch: c.bidSearch,
      // Each offer is priced on its own within the ceiling the user set; no other price is asked about.
      confirmPrice: () => Promise.resolve(false),
      allowsSpend: (perHour, reason) => deps.allowsSpend(perHour, reason),
      onStep: (s) =>
        o.report(l10n.t('renting {0}…', failoverProgress({ ...s, attempt: index + 1, of: candidates.length, previous: attempts.at(-1) }))),
      signal: o.signal,
    };
    const result = await rentBestMatch(input);
    attempts.push(...result.attempts);
    deps.logger.info(
      `Move from #${old.id}: offer ${c.offer.id} (${priced.info.description}, $${priced.quote.totalPerHour.toFixed(4)}/h): ${result.kind}${result.kind === 'ended' ? ` ${result.outcome.kind}` : ''}.`,
    );
    switch (result.kind) {
      case 'allTaken':
      case 'noOffers':
        continue;
      case 'ended': {
        const outcome = result.outcome;
        if (outcome.kind === 'created')
          return {
            kind: 'rented',
            instanceId: outcome.instanceId,
            description: priced.info.description,
            perHour: priced.quote.totalPerHour,
            ...(c.bid !== undefined ? { bid: c.bid } : {}),
          };
        return outcome.kind === 'uncertain'
          ? { kind: 'uncertain', reason: rentOutcomeMessage(outcome) }
          : { kind: 'notRented', reason: rentOutcomeMessage(outcome) };
      }
      case 'capped':
        return { kind: 'capped' };
      case 'unaffordable':
        return {
          kind: 'notRented',
          reason: l10n.t(
            '{0} costs {1}/h and the credit left ({2}) does not cover an hour.',
            priced.info.description,
            formatDollars(priced.quote.totalPerHour),
            formatDollars(credit ?? 0),
          ),
        };
      case 'busy':
        return { kind: 'notRented', reason: rentOutcomeMessage({ kind: 'busy' }) };
      case 'cancelled':
        return { kind: 'cancelled' };
      case 'declined':
        return { kind: 'notRented', reason: l10n.t('{0} was not rented.', priced.info.description) };
    }
  }
  return {
    kind: 'notRented',
    reason: l10n.t(
      'every offer that fit was taken before the rent landed: {0}.',
      attempts.map((a) => `${a.description} (${formatDollars(a.perHour)}/h)`).join(', '),
    ),
  };
}
