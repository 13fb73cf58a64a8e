import * as vscode from 'vscode';
import { creditOf } from '../../core/account/funds';
import type { Offer } from '../../core/api/offers';
import { COMMANDS, VIEWS } from '../../core/ids';
import type { HealthAfterRent } from '../../core/health/afterRent';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { presentOffer } from '../../core/offers/present';
import { searchRequest } from '../../core/offers/search';
import type { GpuPriceStats } from '../../core/offers/priceContext';
import { isBidQuery } from '../../core/rent/bid';
import type { RentEnd, RentFollowUp, RentNotice } from '../../core/rent/flow';
import { RentGate } from '../../core/rent/gate';
import { readTemplateMode } from '../../core/rent/launchMode';
import type { RentPlan } from '../../core/rent/plan';
import { rentOfferFlow, type RentFlowDeps, type RentOfferDeps } from '../../core/rent/rentOffer';
import type { Renter } from '../../core/rent/renter';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import type { BootStatus } from '../status/bootStatus';
import type { PendingRents } from '../guards/pendingRents';
import { asker, type Prompts } from '../pickers/prompts';
import { showProgress } from '../pickers/progress';
import type { SpendGuard } from '../guards/spendGuard';
import { statsWithin, type PriceContextSource } from '../../core/offers/priceSource';
import { openRentWizard } from '../pickers/rentWizard';
import { OfferItem, type OffersView } from '../views/offersView';
import { config } from '../host/config';
import { command, type CommandDefinition } from '../registry';

/** What the rent command uses. */
export interface RentDeps {
  readonly session: Session;
  readonly renter: Renter;
  readonly poller: InstancePoller;
  readonly boots: BootStatus;
  readonly spend: SpendGuard;
  readonly pendingRents: PendingRents;
  readonly offersView: OffersView;
  /** Where the recent images and templates are kept. */
  readonly state: Pick<GpuRentalState, 'get' | 'change'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
  /** The "GPU Rental" channel, for Show Logs. */
  readonly log: { show(): void };
  /** Shared with Rent Best Match: one rent at a time in this window. */
  readonly gate: RentGate;
  /** The going rate of GPU models: the confirmation compares the offer with it when it comes in time. */
  readonly priceContext?: PriceContextSource;
  /** The health check after a rent (core/health/afterRent.ts). */
  readonly health?: Pick<HealthAfterRent, 'expect' | 'checkNodes'>;
}

/** The window's rent gate: a refused second rent is told in a notification. */
export function windowRentGate(renter: Pick<Renter, 'busy'>): RentGate {
  return new RentGate(renter, (text) => void vscode.window.showInformationMessage(text));
}

/** How long a rent waits for the price context before it asks without it. */
const PRICE_CONTEXT_WAIT_MS = 2000;

/**
 * How a rent starts, for this one call only: Rent With Template passes the template it chose, and
 * the next rent starts without one.
 */
export interface RentStart {
  readonly template?: string;
}

function isRentStart(value: unknown): value is RentStart {
  return typeof value === 'object' && value !== null && typeof (value as RentStart).template === 'string';
}

/** Rent an offer: from the offers view, the Offer Explorer (an Offer), an offer id (automation), Rent With Template, or the palette. */
export function rentCommands(deps: RentDeps): CommandDefinition[] {
  return [
    command(COMMANDS.rentOffer, (target?: OfferItem | Offer | number, plan?: RentPlan, start?: unknown) =>
      // One rent at a time: a second click while the first is being asked for or sent does nothing but say so.
      deps.gate.run(async () => (await rentOfferEnd(deps, target, plan, isRentStart(start) ? start.template : undefined))?.instanceId),
    ),
  ];
}

/**
 * Rent Offer's body, run inside the window's rent gate: the flow, then its end shown (the new
 * instance id is `instanceId`); undefined when the user cancelled. `wrap` lets a caller watch the
 * flow's questions and checks (the language model tools tell a decline from a spend cap refusal)
 * without changing what is asked or checked.
 */
export async function rentOfferEnd(
  s: RentDeps,
  target: OfferItem | Offer | number | undefined,
  given: RentPlan | undefined,
  template: string | undefined,
  wrap: (deps: RentOfferDeps) => RentOfferDeps = (deps) => deps,
): Promise<RentEnd | undefined> {
  const deps: RentOfferDeps = {
    ...rentFlowDeps(s),
    template,
    offer: () => resolveOffer(s, target),
    // Listed by a `type=bid` search (not looked up by id, which lists on demand): priced at the minimum bid.
    bidSearch: (offer) => isBidQuery(s.offersView.search.query) && (typeof target !== 'number' || s.offersView.offers.includes(offer)),
    rent: (account, offer, request, info) =>
      showProgress(vscode.l10n.t('renting {0}…', info.description), () => s.renter.rent(account, offer, request, info), {
        cancellable: false,
      }),
  };
  const end = await rentOfferFlow(wrap(deps), given);
  if (end) await showRentEnd(s, end);
  return end;
}

/** What both rent flows read and ask through, from the window's session, settings and boxes. */
export function rentFlowDeps(s: RentDeps): RentFlowDeps {
  const bound = s.session.bound();
  return {
    ask: asker(s.prompts()),
    unsettled: () => (bound ? s.renter.journal.for(bound.baseUrl, bound.profileId) : []),
    credit: () => currentCredit(s),
    priceStats: (offer) => offerPriceStats(s, offer),
    wizard: (offer, credit, extra) => openRentWizard(s, offer, credit, extra, (notice) => notify(s, notice)),
    templateMode: (hash) => readTemplateMode(s.session.client.templates, hash, s.logger),
    allowsSpend: (perHour, reason) => s.spend.allows(s.poller, perHour, reason),
    idle: { enabled: config.idleStopEnabled(), minutes: config.idleStopMinutes(), gpuThreshold: config.idleGpuThreshold() },
    baseUrl: s.session.normalizedBaseUrl ?? s.session.baseUrl,
    account: () => s.session.bound(),
  };
}

/** The going rate of the offer's GPU model, if known within PRICE_CONTEXT_WAIT_MS; never fails. */
async function offerPriceStats(s: Pick<RentDeps, 'priceContext'>, offer: Offer): Promise<GpuPriceStats | undefined> {
  if (!s.priceContext) return undefined;
  const stats = await statsWithin(s.priceContext, [offer.gpu_name], PRICE_CONTEXT_WAIT_MS);
  return stats.get(offer.gpu_name);
}

/**
 * The account's credit, read fresh. Unknown (a record without credit, or a key that may not read
 * the account) stays unknown: the rent is not checked against it, and the confirmation says so.
 */
async function currentCredit(s: RentDeps): Promise<number | undefined> {
  await s.session.refresh();
  const state = s.session.state;
  return state.kind === 'ready' ? creditOf(state.user) : undefined;
}

/** Runs the follow-ups, then shows the notice (not awaited). Resolves with the new instance id. */
export async function showRentEnd(s: RentDeps, end: RentEnd): Promise<number | undefined> {
  for (const followUp of end.followUps) await runFollowUp(s, followUp);
  notify(s, end.notice);
  return end.instanceId;
}

/** Does what the rent flow says follows the renter's answer. */
async function runFollowUp(s: RentDeps, followUp: RentFollowUp): Promise<void> {
  switch (followUp.kind) {
    case 'trackBoot':
      s.boots.track(followUp.instanceId);
      // Its health is checked once it runs (unless gpuRental.health.checkAfterRent is off).
      return s.health?.expect(followUp.instanceId);
    case 'rememberImage':
      await s.state.change('recentImages', (recent) => [followUp.image, ...recent.filter((i) => i !== followUp.image)].slice(0, 5));
      return;
    case 'rememberTemplate':
      await s.state.change('recentTemplates', (recent) => [followUp.hash, ...recent.filter((h) => h !== followUp.hash)].slice(0, 5));
      return;
    case 'refreshOffers':
      return s.offersView.refresh();
    case 'refreshInstances':
      return s.poller.refresh();
    case 'showPendingRents':
      return s.pendingRents.update();
  }
}

/**
 * Shows a rent notice without waiting for it: the command finishes now, and its button works
 * whenever it is clicked.
 */
function notify(s: Pick<RentDeps, 'log' | 'offersView'>, notice: RentNotice): void {
  const action = notice.action;
  const buttons = action ? [action.button] : [];
  const shown =
    notice.severity === 'error'
      ? vscode.window.showErrorMessage(notice.text, ...buttons)
      : notice.severity === 'warning'
        ? vscode.window.showWarningMessage(notice.text, ...buttons)
        : vscode.window.showInformationMessage(notice.text, ...buttons);
  void shown.then((choice) => {
    if (!choice || !action) return;
    if (action.run === 'showLogs') s.log.show();
    else if (action.run === 'refreshOffers') s.offersView.refresh();
    else if (action.run === 'setApiKey') void vscode.commands.executeCommand(COMMANDS.setApiKey);
    else if (action.run === 'searchTemplates') void vscode.commands.executeCommand(COMMANDS.searchTemplates);
    else if (action.run === 'showVolumes') void vscode.commands.executeCommand(`${VIEWS.account}.focus`);
    else void vscode.commands.executeCommand(COMMANDS.connect, action.instanceId);
  });
}

async function resolveOffer(s: RentDeps, target: OfferItem | Offer | number | undefined): Promise<Offer | undefined> {
  if (target instanceof OfferItem) return target.offer;
  // The Offer Explorer passes the offer it listed (its offers are not the view's).
  if (typeof target === 'object' && typeof target.id === 'number' && typeof target.gpu_name === 'string') return target;
  if (typeof target === 'number') {
    const known = s.offersView.offers.find((o) => o.id === target);
    if (known) return known;
    const [found] = await s.session.client.offers.search({
      query: { filters: { id: { eq: target } }, order: [], type: 'on-demand' },
      limit: 1,
    });
    if (!found) void vscode.window.showWarningMessage(vscode.l10n.t('GPU Rental: offer {0} is not available any more.', target));
    return found;
  }
  const offers = s.offersView.offers.length
    ? s.offersView.offers
    : await s.session.client.offers.search(searchRequest(s.offersView.search));
  const picked = await vscode.window.showQuickPick(
    offers.map((offer) => ({ ...presentOffer(offer), offer })),
    {
      title: vscode.l10n.t('GPU Rental: Rent which offer?'),
      placeHolder: vscode.l10n.t('Pick an offer (the current search)'),
      matchOnDescription: true,
    },
  );
  return picked?.offer;
}
