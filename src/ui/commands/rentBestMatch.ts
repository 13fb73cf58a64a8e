import { COMMANDS } from '../../core/ids';
import { rentBestMatchFlow, searchArgument, type SearchArgument } from '../../core/rent/bestMatch';
import type { RentPlan } from '../../core/rent/plan';
import { config } from '../host/config';
import { asker } from '../pickers/prompts';
import { command, type CommandDefinition } from '../registry';
import { showProgress } from '../pickers/progress';
import { rentFlowDeps, showRentEnd, type RentDeps } from './rent';

/**
 * Rent Best Match: the best offer of a saved search (its name as the argument, as Saved Searches
 * passes it), of a search given as `{query, sort}`, or of the current search, and the next ones in
 * its order when it is taken first, up to gpuRental.rent.failoverAttempts. Automation passes a plan
 * as the second argument: the wizard is skipped, the price confirmation is not. It shares the rent
 * command's gate: one rent at a time in this window. What it asks and decides: src/core/rent/bestMatch.ts.
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
  const end = await rentBestMatchFlow(
    {
      ...rentFlowDeps(s),
      ask: asker(s.prompts()),
      logger: s.logger,
      renter: s.renter,
      savedSearches: s.state.get('savedSearches'),
      currentSearch: s.offersView.search,
      limit: config.rentFailoverAttempts(),
      search: (request) => s.session.client.offers.search(request),
      progress: showProgress,
    },
    search,
    given,
  );
  return end ? showRentEnd(s, end) : undefined;
}
