import { COMMANDS } from '../../core/ids';
import { rentBestMatchFlow, searchArgument, type BestMatchDeps, type SearchArgument } from '../../core/rent/bestMatch';
import type { RentEnd } from '../../core/rent/flow';
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
      deps.gate.run(async () => (await rentBestEnd(deps, searchArgument(search), plan))?.instanceId),
    ),
  ];
}

/**
 * Rent Best Match's body, run inside the window's rent gate: the flow, then its end shown;
 * undefined when the user cancelled. `wrap` lets a caller watch the flow's questions and checks
 * (the language model tools) without changing them.
 */
export async function rentBestEnd(
  s: RentDeps,
  search: SearchArgument,
  given: RentPlan | undefined,
  wrap: (deps: BestMatchDeps) => BestMatchDeps = (deps) => deps,
): Promise<RentEnd | undefined> {
  const deps: BestMatchDeps = {
    ...rentFlowDeps(s),
    ask: asker(s.prompts()),
    logger: s.logger,
    renter: s.renter,
    savedSearches: s.state.get('savedSearches'),
    currentSearch: s.offersView.search,
    limit: config.rentFailoverAttempts(),
    search: (request) => s.session.client.offers.search(request),
    progress: showProgress,
  };
  const end = await rentBestMatchFlow(wrap(deps), search, given);
  if (end) await showRentEnd(s, end);
  return end;
}
