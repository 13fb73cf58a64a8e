/**
 * What a tool tells a model when it did nothing, in one or two sentences: what happened and what
 * to try. A tool throws these (VS Code hands a thrown error's message to the model as the tool's
 * failed result); a declined confirmation is a result instead, since nothing failed.
 */
import type { SessionStateKind } from '../session/session';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/** A failure a model can act on: its message says what to try. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** Why the account cannot be asked now, or undefined when it can. */
export function sessionProblem(kind: SessionStateKind): string | undefined {
  switch (kind) {
    case 'ready':
    case 'checking':
      return undefined;
    case 'noKey':
      return l10n.t('GPU Rental has no API key for this service. Ask the person to run "GPU Rental: Set API Key", then try again.');
    case 'rejected':
      return l10n.t('The service refused GPU Rental\'s API key. Ask the person to set a working key with "GPU Rental: Set API Key".');
    case 'unreachable':
      return l10n.t('The service cannot be reached now. Try again in a minute.');
    case 'badUrl':
      return l10n.t('The service address in gpuRental.apiUrl is not valid. Ask the person to correct it.');
  }
}

export const toolErrors = {
  instanceNotFound: (id: number) =>
    new ToolError(l10n.t('Instance #{0} is not in the account. Call gpuRental_listInstances for the instance ids.', id)),
  offerNotFound: (id: number) =>
    new ToolError(l10n.t('Offer {0} is not available any more. Search again with gpuRental_searchOffers and pick another offer.', id)),
  badQuery: (problem: string) =>
    new ToolError(l10n.t('The offer query does not read: {0}. Fix it and try again.', visibleText(problem, 300))),
  noMatch: (query: string) =>
    new ToolError(
      l10n.t(
        'No offer matches "{0}" now; nothing was rented. Loosen the query (check it with gpuRental_searchOffers) and try again.',
        visibleText(query, 200),
      ),
    ),
  rentBusy: () =>
    new ToolError(
      l10n.t(
        'Another rent is in progress in this window, so this call rented nothing. Wait for it to end, then check gpuRental_listInstances before renting again.',
      ),
    ),
  notRunning: (name: string, phase: string) =>
    new ToolError(l10n.t('{0} is {1}, not running. Start it with gpuRental_startInstance first, or pick a running instance.', name, phase)),
  noJob: (name: string) => new ToolError(l10n.t('{0} has no job this window knows of. Start one with gpuRental_runJob.', name)),
  jobNotFound: (jobId: string, name: string) =>
    new ToolError(l10n.t('{0} has no job {1}. Call gpuRental_listInstances for its job ids.', name, visibleText(jobId, 60))),
  /** What GPU Rental told the person, when it refused or failed (its notice text), for the model. */
  refused: (text: string) => new ToolError(visibleText(text, 600)),
};

/** The result of a tool whose confirmation the person declined: nothing happened, and the model should not insist. */
export function declinedText(): string {
  return l10n.t("Nothing was done: the person declined in GPU Rental's confirmation. Do not try again unless they ask.");
}
