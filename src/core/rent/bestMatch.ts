/**
 * Rent Best Match as a core flow: which search it rents from (a saved one by name, one given, or the
 * user's pick), what it says when nothing matches, the wizard run once on the best offer with what
 * happens if it is taken, and the failover over the search's next offers (failover.ts).
 */
import type { Offer } from '../api/offers';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import { findSearch, type SavedSearch } from '../offers/saved';
import type { SearchOffersRequest } from '../api/offers';
import { describeSearch, isOfferSort, parseQuery, searchRequest, type OfferSearchState } from '../offers/search';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import {
  failoverCandidates,
  failoverEnd,
  failoverPreview,
  failoverPriceQuestion,
  failoverProgress,
  rentBestMatch,
  type FailoverInput,
  type FailoverResult,
} from './failover';
import { isBidQuery } from './bid';
import type { RentEnd } from './flow';
import { unsettledNotice } from './flow';
import type { RentPlan } from './plan';
import { acceptRent, isStop, readPrices, rentSetup, stopped, type RentFlowDeps, type Stop } from './rentOffer';

/** Offers searched beyond the attempts: some may not fit the plan (disk, direct ports, a volume's machine). */
export const EXTRA_OFFERS = 5;

/** The search Rent Best Match rents from. */
export interface ChosenSearch {
  /** How messages name it: "the current search", "RTX 4090 cheap" (a saved one), or the query given. */
  what: string;
  state: OfferSearchState;
}

/** What the command is given: a saved search's name, a search (automation: `{query, sort?}`), or nothing (ask). */
export type SearchArgument = string | { query: string; sort?: unknown } | undefined;

export function searchArgument(value: unknown): SearchArgument {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { query?: unknown }).query === 'string')
    return value as { query: string; sort?: unknown };
  return undefined;
}

export interface BestMatchDeps extends RentFlowDeps {
  ask: Pick<Ask, 'confirm' | 'pick'>;
  logger: Logger;
  savedSearches: readonly SavedSearch[];
  /** The Offers view's search. */
  currentSearch: OfferSearchState;
  /** gpuRental.rent.failoverAttempts. */
  limit: number;
  renter: FailoverInput['renter'];
  /** The search's offers, in its order. */
  search(request: SearchOffersRequest): Promise<Offer[]>;
  /** The search's and the failover's progress; the failover's Cancel stops between attempts (UI: a notification). */
  readonly progress: Progress;
}

/**
 * The best offer of the search and, when it is taken first, the next ones in its order. Automation
 * passes `given`: the wizard is skipped, the price confirmation is not. Resolves with what to show,
 * or undefined when nothing is to be shown (cancelled, or said already).
 */
export async function rentBestMatchFlow(
  deps: BestMatchDeps,
  search: SearchArgument,
  given: RentPlan | undefined,
): Promise<RentEnd | undefined> {
  const unsettled = unsettledNotice(deps.unsettled());
  if (unsettled) return stopped(unsettled);
  const chosen = await chooseSearch(deps, search);
  if (isStop(chosen)) return chosen.stop;
  const { what } = chosen;
  const request = searchRequest(chosen.state, deps.limit + EXTRA_OFFERS);
  const offers = await deps.progress(l10n.t('searching {0}…', what), () => deps.search(request), { cancellable: false });
  const first = offers[0];
  if (!first) return stopped(noMatch(what));
  const { credit, priceStats } = await readPrices(deps, first);
  // A `type=bid` search lists offers at their minimum bid: priced as the rent command prices them.
  const bidSearch = isBidQuery(chosen.state.query);
  const preview = (plan: RentPlan) => failoverPreview(failoverCandidates(offers, plan), deps.limit);
  // The wizard runs once, on the best offer; its confirmation says what happens if that one is taken.
  const plan = given ?? (await deps.wizard(first, credit, { failover: preview, bidSearch, priceStats }));
  if (!plan) return undefined;
  const accepted = await acceptRent(deps, {
    offer: first,
    plan,
    credit,
    priceStats,
    bidSearch,
    automated: given !== undefined,
    failover: preview(plan),
  });
  if (isStop(accepted)) return accepted.stop;
  const setup = rentSetup(deps, plan);
  if (isStop(setup)) return setup.stop;
  // Cancel stops between attempts; a create already sent is awaited (its outcome is money).
  const result = await deps.progress(l10n.t('Rent Best Match of {0}', what), (task) =>
    rentBestMatch({
      renter: deps.renter,
      account: setup.account,
      offers,
      limit: deps.limit,
      plan,
      onstart: setup.onstart,
      acceptedPerHour: accepted.quote.totalPerHour,
      credit,
      bidSearch,
      confirmPrice: (_offer, priced, acceptedPerHour, attempts) => {
        const q = failoverPriceQuestion(priced, acceptedPerHour, attempts);
        return deps.ask.confirm(q.title, q.detail, q.button);
      },
      allowsSpend: (perHour, reason) => deps.allowsSpend(perHour, reason),
      onStep: (step) => task.report({ message: l10n.t('renting {0}…', failoverProgress(step)) }),
      signal: task.signal,
    }),
  );
  logAttempts(deps.logger, what, result);
  return failoverEnd(result, plan);
}

/** No offer matches the search now. */
function noMatch(what: string) {
  return {
    severity: 'warning' as const,
    text: l10n.t('GPU Rental: no offer matches {0} now, so nothing was rented. Change the search, or try again later.', what),
    action: { button: l10n.t('Refresh Offers'), run: 'refreshOffers' as const },
  };
}

/**
 * The saved search called `name`, or the search given; without either, a choice between the current
 * search and the saved ones (none saved: the current one). A query that does not parse throws (the
 * command's guard shows why). A name that is not saved stops with a notice.
 */
export async function chooseSearch(
  deps: Pick<BestMatchDeps, 'ask' | 'savedSearches' | 'currentSearch'>,
  name: SearchArgument,
): Promise<ChosenSearch | Stop> {
  if (typeof name === 'object') {
    parseQuery(name.query);
    return { what: `"${name.query}"`, state: { query: name.query, sort: isOfferSort(name.sort) ? name.sort : 'value', pages: 1 } };
  }
  const saved = deps.savedSearches;
  if (name !== undefined) {
    const found = findSearch(saved, name);
    if (!found)
      return {
        stop: stopped({
          severity: 'warning',
          text: l10n.t(
            'GPU Rental: there is no saved search named "{0}", so nothing was rented. Pick one from Saved Searches, or save the current search first.',
            name,
          ),
        }),
      };
    return { what: `"${found.name}"`, state: { query: found.query, sort: found.sort, pages: 1 } };
  }
  const current: ChosenSearch = { what: l10n.t('the current search'), state: { ...deps.currentSearch, pages: 1 } };
  // Nothing to choose from: the current search is the only one.
  if (saved.length === 0) return current;
  const picked = await deps.ask.pick<ChosenSearch>({
    title: l10n.t('GPU Rental: Rent Best Match'),
    placeholder: l10n.t('Rent the best offer of which search?'),
    items: [
      { label: l10n.t('$(search) Current search'), description: describeSearch(current.state), value: current },
      ...saved.map((x) => ({
        label: l10n.t('$(bookmark) {0}', x.name),
        description: l10n.t('saved: {0}', describeSearch({ query: x.query, sort: x.sort, pages: 1 })),
        value: { what: `"${x.name}"`, state: { query: x.query, sort: x.sort, pages: 1 } },
      })),
    ],
  });
  return picked ?? { stop: undefined };
}

/** Every attempt in the log: which offer, at what price, and what came of it. */
function logAttempts(logger: Logger, what: string, result: FailoverResult): void {
  const tried = result.attempts.map((a) => `offer ${a.offerId} (${a.description}, $${a.perHour.toFixed(4)}/h): ${a.outcome}`);
  logger.info(`Rent Best Match of ${what}: ${result.kind}${tried.length ? `; ${tried.join('; ')}` : ''}.`);
}
