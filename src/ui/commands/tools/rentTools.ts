import { bestMatchConfirmation, rentOfferConfirmation } from '../../../core/agent/confirm';
import { declinedText, ToolError, toolErrors } from '../../../core/agent/errors';
import { readBestMatchInput, readRentOfferInput, type RentInput } from '../../../core/agent/inputs';
import type { Offer } from '../../../core/api/offers';
import { formatDollars } from '../../../core/format';
import { l10n } from '../../../core/l10n';
import { searchRequest } from '../../../core/offers/search';
import type { RentEnd } from '../../../core/rent/flow';
import type { RentPlan } from '../../../core/rent/plan';
import type { RentFlowDeps } from '../../../core/rent/rentOffer';
import { visibleText } from '../../../core/text';
import { queryProblem } from '../offers';
import { rentOfferEnd, type RentDeps } from '../rent';
import { rentBestEnd } from '../rentBestMatch';
import { config } from '../../host/config';
import type { AgentDeps } from './tools';
import { ensureSession, type ToolBody } from './toolKit';

/** The plan automation passes: the wizard is skipped, GPU Rental's confirmation (with the price) is not. */
function planOf(input: RentInput): RentPlan {
  return { image: input.image, disk: input.disk, label: input.label };
}

/** The offer with this id that can be rented now (as Rent Offer looks one up by id), or the error that says to search again. */
async function rentableOffer(s: RentDeps, id: number, signal: AbortSignal): Promise<Offer> {
  const known = s.offersView.offers.find((o) => o.id === id);
  if (known) return known;
  const [found] = await s.session.client.offers.search(
    { query: { filters: { id: { eq: id } }, order: [], type: 'on-demand' }, limit: 1 },
    { signal },
  );
  if (!found) throw toolErrors.offerNotFound(id);
  return found;
}

/** What the flow did that its end does not say: the person declined, or the spend cap refused. */
interface Watched {
  declined: boolean;
  capRefused: boolean;
}

/** The flow's deps with its confirmations and its spend cap check watched; what they ask and decide is unchanged. */
function watched<D extends RentFlowDeps>(deps: D, seen: Watched): D {
  return {
    ...deps,
    ask: {
      ...deps.ask,
      confirm: async (message: string, detail: string, action: string) => {
        const yes = await deps.ask.confirm(message, detail, action);
        if (!yes) seen.declined = true;
        return yes;
      },
    },
    allowsSpend: async (perHour: number, reason: string) => {
      const ok = await deps.allowsSpend(perHour, reason);
      if (!ok) seen.capRefused = true;
      return ok;
    },
  };
}

/**
 * Runs a rent inside the window's rent gate, as the command does, and says what came of it: the
 * new instance, or why nothing was rented. An end without an instance (a refusal, a taken offer, an
 * answer not seen) is GPU Rental's own notice, which the person sees too: an outcome not seen is
 * said to be unknown, never that nothing happened.
 */
async function gatedRent(s: RentDeps, run: (seen: Watched) => Promise<RentEnd | undefined>, label: string): Promise<string> {
  const seen: Watched = { declined: false, capRefused: false };
  let entered = false;
  const end = await s.gate.run(async () => {
    entered = true;
    return run(seen);
  });
  if (!entered) throw toolErrors.rentBusy();
  if (!end) {
    if (seen.capRefused)
      throw new ToolError(
        l10n.t(
          'Not rented: it would take the account over its spend limit (gpuRental.maxHourlySpend). Ask the person to raise the limit, or stop an instance first.',
        ),
      );
    if (seen.declined) return declinedText();
    return l10n.t('Nothing was rented: the rent was cancelled.');
  }
  if (end.instanceId === undefined) throw toolErrors.refused(end.notice.text);
  const rented = s.poller.snapshot?.instances.find((i) => i.id === end.instanceId);
  return l10n.t(
    'Rented: instance #{0}, labelled "{1}", billing {2}/h from now until it is destroyed. It boots in a minute or two; check it with gpuRental_listInstances, and destroy it with gpuRental_destroyInstance when done.',
    end.instanceId,
    visibleText(label, 100),
    rented?.dph_total ? formatDollars(rented.dph_total) : '?',
  );
}

/** Rent Offer: one offer by id, with the plan the input gives. */
export function rentOfferTool(s: AgentDeps): ToolBody {
  return {
    async prepare(raw, signal) {
      const input = readRentOfferInput(raw, Date.now());
      ensureSession(s.session);
      const offer = await rentableOffer(s.rent, input.offerId, signal);
      return { message: l10n.t('Renting offer {0}…', offer.id), confirmation: rentOfferConfirmation(offer, input) };
    },
    async invoke(raw, signal) {
      const input = readRentOfferInput(raw, Date.now());
      ensureSession(s.session);
      // Said precisely here; Rent Offer then looks it up again by id, as automation's call does.
      await rentableOffer(s.rent, input.offerId, signal);
      return gatedRent(
        s.rent,
        (seen) => rentOfferEnd(s.rent, input.offerId, planOf(input), undefined, (deps) => watched(deps, seen)),
        input.label,
      );
    },
  };
}

/** Rent Best Match: the best offer of a search, and the next ones when it is taken (gpuRental.rent.failoverAttempts). */
export function rentBestMatchTool(s: AgentDeps): ToolBody {
  const read = (raw: unknown) => {
    const input = readBestMatchInput(raw, Date.now());
    ensureSession(s.session);
    const problem = queryProblem(input.query);
    if (problem) throw toolErrors.badQuery(problem);
    return input;
  };
  return {
    async prepare(raw, signal) {
      const input = read(raw);
      const request = searchRequest({ query: input.query, sort: input.sort, pages: 1 }, 1);
      const [best] = await s.session.client.offers.search({ ...request, limit: 1 }, { signal });
      if (!best) throw toolErrors.noMatch(input.query);
      return {
        message: l10n.t('Renting the best match of "{0}"…', visibleText(input.query, 100)),
        confirmation: bestMatchConfirmation(best, input, config.rentFailoverAttempts()),
      };
    },
    async invoke(raw) {
      const input = read(raw);
      return gatedRent(
        s.rent,
        (seen) => rentBestEnd(s.rent, { query: input.query, sort: input.sort }, planOf(input), (deps) => watched(deps, seen)),
        input.label,
      );
    },
  };
}
