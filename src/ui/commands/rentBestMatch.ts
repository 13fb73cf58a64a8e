import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import { findSearch } from '../../core/offers/saved';
import { describeSearch, isOfferSort, parseQuery, searchRequest, type OfferSearchState } from '../../core/offers/search';
import {
  failoverCandidates,
  failoverEnd,
  failoverPreview,
  failoverPriceQuestion,
  failoverProgress,
  rentBestMatch,
  type FailoverResult,
} from '../../core/rent/failover';
import { isBidQuery } from '../../core/rent/bid';
import { priceRent, rentConfirmation, unsettledNotice } from '../../core/rent/flow';
import type { RentPlan } from '../../core/rent/plan';
import { config } from '../config';
import { pickOf } from '../prompts';
import { command, type CommandDefinition } from './registry';
import { currentCredit, notify, offerPriceStats, openRentWizard, rentSetup, showRentEnd, templateMode, type RentDeps } from './rent';

/** Offers searched beyond the attempts: some may not fit the plan (disk, direct ports, a volume's machine). */
const EXTRA_OFFERS = 5;

/** The search Rent Best Match rents from: a saved one by name, or the Offers view's current one. */
interface ChosenSearch {
  /** How messages name it: "the current search", "RTX 4090 cheap" (a saved one), or the query given. */
  what: string;
  state: OfferSearchState;
}

/** What the command is given: a saved search's name, a search (automation: `{query, sort?}`), or nothing (ask). */
type SearchArgument = string | { query: string; sort?: unknown } | undefined;

function searchArgument(value: unknown): SearchArgument {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { query?: unknown }).query === 'string')
    return value as { query: string; sort?: unknown };
  return undefined;
}

/**
 * Rent Best Match: the best offer of a saved search (its name as the argument, as Saved Searches
 * passes it), of a search given as `{query, sort}`, or of the current search, and the next ones in
 * its order when it is taken first, up to gpuRental.rent.failoverAttempts. Automation passes a plan
 * as the second argument: the wizard is skipped, the price confirmation is not. It shares the rent
 * command's gate: one rent at a time in this window.
 */
export function rentBestMatchCommands(deps: RentDeps): CommandDefinition[] {
  return [
    command(COMMANDS.rentBestMatch, (search?: unknown, plan?: RentPlan) =>
      deps.gate.run(() => rentBest(deps, searchArgument(search), plan)),
    ),
  ];
}

/** Resolves with the new instance id, or undefined when nothing was rented. */
async function rentBest(s: RentDeps, search: SearchArgument, given: RentPlan | undefined): Promise<number | undefined> {
  // An earlier rent whose outcome is not known yet: renting again could rent twice.
  const bound = s.session.bound();
  const unsettled = unsettledNotice(bound ? s.renter.journal.for(bound.baseUrl, bound.profileId) : []);
  if (unsettled) return notify(s, unsettled);
  const chosen = await chooseSearch(s, search);
  if (!chosen) return undefined;
  const what = chosen.what;
  const limit = config.rentFailoverAttempts();
  const offers = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental: searching {0}…', what) },
    () => s.session.client.offers.search(searchRequest(chosen.state, limit + EXTRA_OFFERS)),
  );
  const first = offers[0];
  if (!first)
    return notify(s, {
      severity: 'warning',
      text: vscode.l10n.t('GPU Rental: no offer matches {0} now, so nothing was rented. Change the search, or try again later.', what),
      action: { button: vscode.l10n.t('Refresh Offers'), run: 'refreshOffers' },
    });
  const pricing = offerPriceStats(s, first);
  const credit = await currentCredit(s);
  const priceStats = await pricing;
  // A `type=bid` search lists offers at their minimum bid: priced as the rent command prices them.
  const bidSearch = isBidQuery(chosen.state.query);
  const preview = (plan: RentPlan) => failoverPreview(failoverCandidates(offers, plan), limit);

  let plan = given;
  if (!plan) {
    // The wizard runs once, on the best offer; its confirmation says what happens if that one is taken.
    plan = await openRentWizard(s, first, credit, undefined, { failover: preview, bidSearch, priceStats });
    if (!plan) return undefined;
  }
  const accepted = priceRent(first, plan.disk, credit, { bid: plan.bid, bidSearch });
  if (accepted.refusal) return notify(s, accepted.refusal);
  if (given) {
    // Automation skips the wizard, not the price, nor what happens when the offer is taken.
    const mode = plan.template ? await templateMode(s, plan.template) : undefined;
    const { title, detail, button } = rentConfirmation(first, plan, accepted.quote, credit, mode, priceStats);
    const next = preview(plan);
    if (!(await s.prompts().confirm(title, `${detail} ${next.title}: ${next.detail}.`, button))) return undefined;
  }
  const setup = rentSetup(s, plan);
  if (!setup) return undefined;
  const rentPlan = plan;
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental: Rent Best Match of {0}', what), cancellable: true },
    (progress, token) => {
      // Cancel stops between attempts; a create already sent is awaited (its outcome is money).
      const controller = new AbortController();
      const cancelled = token.onCancellationRequested(() => controller.abort());
      return rentBestMatch({
        renter: s.renter,
        account: setup.account,
        offers,
        limit,
        plan: rentPlan,
        onstart: setup.onstart,
        acceptedPerHour: accepted.quote.totalPerHour,
        credit,
        bidSearch,
        confirmPrice: (_offer, priced, acceptedPerHour, attempts) => {
          const q = failoverPriceQuestion(priced, acceptedPerHour, attempts);
          return s.prompts().confirm(q.title, q.detail, q.button);
        },
        allowsSpend: (perHour, reason) => s.spend.allows(s.poller, perHour, reason),
        onStep: (step) => progress.report({ message: vscode.l10n.t('renting {0}…', failoverProgress(step)) }),
        signal: controller.signal,
      }).finally(() => cancelled.dispose());
    },
  );
  logAttempts(s, what, result);
  const end = failoverEnd(result, rentPlan);
  return end ? showRentEnd(s, end) : undefined;
}

/**
 * The saved search called `name`, or the search given; without either, a choice between the current
 * search and the saved ones. A query that does not parse throws (the guard shows why).
 */
async function chooseSearch(s: RentDeps, name: SearchArgument): Promise<ChosenSearch | undefined> {
  if (typeof name === 'object') {
    parseQuery(name.query);
    return { what: `"${name.query}"`, state: { query: name.query, sort: isOfferSort(name.sort) ? name.sort : 'value', pages: 1 } };
  }
  const saved = s.state.get('savedSearches');
  if (name !== undefined) {
    const found = findSearch(saved, name);
    if (!found) {
      notify(s, {
        severity: 'warning',
        text: vscode.l10n.t(
          'GPU Rental: there is no saved search named "{0}", so nothing was rented. Pick one from Saved Searches, or save the current search first.',
          name,
        ),
      });
      return undefined;
    }
    return { what: `"${found.name}"`, state: { query: found.query, sort: found.sort, pages: 1 } };
  }
  const current: ChosenSearch = { what: vscode.l10n.t('the current search'), state: { ...s.offersView.search, pages: 1 } };
  // Nothing to choose from: the current search is the only one.
  if (saved.length === 0) return current;
  return pickOf(s.prompts())<ChosenSearch>({
    title: vscode.l10n.t('GPU Rental: Rent Best Match'),
    placeholder: vscode.l10n.t('Rent the best offer of which search?'),
    items: [
      { label: vscode.l10n.t('$(search) Current search'), description: describeSearch(current.state), value: current },
      ...saved.map((x) => ({
        label: `$(bookmark) ${x.name}`,
        description: `saved: ${describeSearch({ query: x.query, sort: x.sort, pages: 1 })}`,
        value: { what: `"${x.name}"`, state: { query: x.query, sort: x.sort, pages: 1 } },
      })),
    ],
  });
}

/** Every attempt in the log: which offer, at what price, and what came of it. */
function logAttempts(s: RentDeps, what: string, result: FailoverResult): void {
  const tried = result.attempts.map((a) => `offer ${a.offerId} (${a.description}, $${a.perHour.toFixed(4)}/h): ${a.outcome}`);
  s.logger.info(`Rent Best Match of ${what}: ${result.kind}${tried.length ? `; ${tried.join('; ')}` : ''}.`);
}
