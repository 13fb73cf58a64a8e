import * as vscode from 'vscode';
import { creditOf } from '../../core/account/funds';
import type { Offer } from '../../core/api/offers';
import { COMMANDS, VIEWS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { presentOffer } from '../../core/offers/present';
import { searchDiskGb, searchRequest } from '../../core/offers/search';
import type { GpuPriceStats } from '../../core/offers/priceContext';
import {
  NO_ACCOUNT_NOTICE,
  priceRent,
  rentConfirmation,
  rentEnd,
  rentOnstart,
  unsettledNotice,
  type RentEnd,
  type RentFollowUp,
  type RentNotice,
} from '../../core/rent/flow';
import { templateLaunchMode, type LaunchMode } from '../../core/rent/launchMode';
import { isBidQuery } from '../../core/rent/bid';
import { rentRequest, type RentPlan } from '../../core/rent/plan';
import type { RentQuote } from '../../core/rent/quote';
import type { RentAccount, RentOutcome, Renter } from '../../core/rent/renter';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import type { BootStatus } from '../bootStatus';
import type { PendingRents } from '../pendingRents';
import type { Prompts } from '../prompts';
import type { SpendGuard } from '../spendGuard';
import { statsWithin, type PriceContextSource } from '../priceContext';
import { rentWizard, type VolumeChoice, type WizardInput } from '../rent/wizard';
import { OfferItem, type OffersView } from '../views/offersView';
import { config } from '../config';
import { formatDollars } from '../../core/format';
import { command, type CommandDefinition } from './registry';

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
}

/** How long a rent waits for the price context before it asks without it. */
const PRICE_CONTEXT_WAIT_MS = 2000;

/** The going rate of the offer's GPU model, if known within PRICE_CONTEXT_WAIT_MS; never fails. */
export async function offerPriceStats(s: Pick<RentDeps, 'priceContext'>, offer: Offer): Promise<GpuPriceStats | undefined> {
  if (!s.priceContext) return undefined;
  const stats = await statsWithin(s.priceContext, [offer.gpu_name], PRICE_CONTEXT_WAIT_MS);
  return stats.get(offer.gpu_name);
}

/**
 * One rent at a time in this window, across Rent Offer and Rent Best Match: held from the first
 * question to the renter's answer, so a second click neither opens a second wizard nor slips a rent
 * in between a failover's attempts.
 */
export class RentGate {
  private held = false;
  constructor(private readonly renter: Pick<Renter, 'busy'>) {}

  get busy(): boolean {
    return this.held || this.renter.busy;
  }

  /** Runs `fn` holding the gate; when a rent is already in progress, says so and resolves undefined. */
  async run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    if (this.busy) {
      void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: a rent is already in progress. Wait for it to finish.'));
      return undefined;
    }
    this.held = true;
    try {
      return await fn();
    } finally {
      this.held = false;
    }
  }
}

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
      deps.gate.run(() => rentOffer(deps, target, plan, isRentStart(start) ? start.template : undefined)),
    ),
  ];
}

/** Resolves with the new instance id, or undefined when nothing was rented. */
async function rentOffer(
  s: RentDeps,
  target: OfferItem | Offer | number | undefined,
  given: RentPlan | undefined,
  preset: string | undefined,
): Promise<number | undefined> {
  // An earlier rent whose outcome is not known yet: renting again could rent twice.
  const bound = s.session.bound();
  const unsettled = unsettledNotice(bound ? s.renter.journal.for(bound.baseUrl, bound.profileId) : []);
  if (unsettled) return notify(s, unsettled);
  const offer = await resolveOffer(s, target);
  if (!offer) return undefined;
  // Asked beside the credit, so the wait for it (at most 2 s, usually none: the tooltip asked first) overlaps.
  const pricing = offerPriceStats(s, offer);
  const credit = await currentCredit(s);
  const priceStats = await pricing;
  // Listed by a `type=bid` search (not looked up by id, which lists on demand): priced at the minimum bid.
  const bidSearch = isBidQuery(s.offersView.search.query) && (typeof target !== 'number' || s.offersView.offers.includes(offer));

  let plan = given;
  if (!plan) {
    plan = await openRentWizard(s, offer, credit, preset, { bidSearch, priceStats });
    if (!plan) return undefined;
  }

  const { quote, refusal, capReason, info } = priceRent(offer, plan.disk, credit, { bid: plan.bid, bidSearch });
  if (refusal) return notify(s, refusal);
  if (!(await s.spend.allows(s.poller, quote.totalPerHour, capReason))) return undefined;
  if (given) {
    // Automation skips the wizard, not the price: the confirmation still shows it.
    const mode = plan.template ? await templateMode(s, plan.template) : undefined;
    const { title, detail, button } = rentConfirmation(offer, plan, quote, credit, mode, priceStats);
    if (!(await s.prompts().confirm(title, detail, button))) return undefined;
  }

  const setup = rentSetup(s, plan);
  if (!setup) return undefined;
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('GPU Rental: renting {0}…', info.description) },
    () => s.renter.rent(setup.account, offer, rentRequest(plan, setup.onstart), info),
  );
  return finishRent(s, outcome, plan, quote);
}

/**
 * The account's credit, read fresh. Unknown (a record without credit, or a key that may not read
 * the account) stays unknown: the rent is not checked against it, and the confirmation says so.
 */
export async function currentCredit(s: RentDeps): Promise<number | undefined> {
  await s.session.refresh();
  const state = s.session.state;
  return state.kind === 'ready' ? creditOf(state.user) : undefined;
}

/** The rent wizard on `offer`, given what the account and the workspace know; undefined when cancelled. */
export function openRentWizard(
  s: RentDeps,
  offer: Offer,
  credit: number | undefined,
  preset?: string,
  extra: Partial<WizardInput> = {},
): Promise<RentPlan | undefined> {
  const editor = vscode.window.activeTextEditor;
  return rentWizard({
    offer,
    credit,
    recentImages: recentImages(s),
    defaultLabel: s.renter.uniqueLabel(),
    idleStopMinutes: config.idleStopEnabled() ? config.idleStopMinutes() : 0,
    template: preset,
    recentTemplates: recentTemplates(s),
    activeEditor:
      editor && editor.document.getText().trim()
        ? { name: editor.document.fileName.split(/[\\/]/).pop() ?? 'editor', text: editor.document.getText() }
        : undefined,
    volumeChoices: offer.machine_id === undefined || offer.machine_id === null ? undefined : () => volumeChoices(s, offer),
    templateMode: (hash) => templateMode(s, hash),
    searchedDiskGb: searchDiskGb(s.offersView.search.query),
    accountSecretNames: () => s.session.client.secrets.list(),
    ...extra,
  });
}

/**
 * What a rent of `plan` sends besides the plan: the account it goes to (fixed now) and the start-up
 * script. Undefined, with the notice shown, when it cannot be sent.
 */
export function rentSetup(s: RentDeps, plan: RentPlan): { account: RentAccount; onstart: string | undefined } | undefined {
  const idle = { enabled: config.idleStopEnabled(), minutes: config.idleStopMinutes(), gpuThreshold: config.idleGpuThreshold() };
  const script = rentOnstart(plan, idle, s.session.normalizedBaseUrl ?? s.session.baseUrl);
  if (script.refusal) return notify(s, script.refusal);
  const account = s.session.bound();
  if (!account) return notify(s, NO_ACCOUNT_NOTICE);
  return { account, onstart: script.onstart };
}

/** After the renter's answer: what follows it, then the notice. Resolves with the new instance id. */
export function finishRent(s: RentDeps, outcome: RentOutcome, plan: RentPlan, quote: RentQuote): Promise<number | undefined> {
  return showRentEnd(s, rentEnd(outcome, plan, quote));
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
      return s.boots.track(followUp.instanceId);
    case 'rememberImage':
      return rememberImage(s, followUp.image);
    case 'rememberTemplate':
      return rememberTemplate(s, followUp.hash);
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
 * whenever it is clicked. Returns undefined, as the command does when nothing was rented.
 */
export function notify(s: Pick<RentDeps, 'log' | 'offersView'>, notice: RentNotice): undefined {
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
  return undefined;
}

/**
 * Volumes a rent on this offer can mount: the account's free volumes on the same machine, and new
 * ones from the machine's volume offers. A key that may not read volumes just gets none.
 */
async function volumeChoices(s: RentDeps, offer: Offer): Promise<VolumeChoice[]> {
  const client = s.session.client;
  const quiet = <T>(what: string, p: Promise<T[]>) =>
    p.catch((error: unknown) => {
      s.logger.warn(`Could not read ${what} for the rent: ${String(error)}`);
      return [] as T[];
    });
  const [mine, offers] = await Promise.all([
    quiet(vscode.l10n.t('your volumes'), client.volumes.list()),
    quiet(
      vscode.l10n.t('volume offers'),
      client.volumes.search({ filters: { machine_id: { eq: offer.machine_id! } }, order: [['storage_cost', 'asc']], limit: 3 }),
    ),
  ]);
  const existing: VolumeChoice[] = mine
    .filter((v) => v.machine_id === offer.machine_id && !v.instances?.length)
    .map((v) => ({
      label: `$(database) ${v.label || `V.${v.id}`}`,
      description: vscode.l10n.t('yours, {0} GB, free', v.disk_space ?? '?'),
      volumeId: v.id,
    }));
  const fresh: VolumeChoice[] = offers
    .filter((o) => o.machine_id === offer.machine_id)
    .map((o) => ({
      label: vscode.l10n.t('$(add) New volume on this machine…'),
      description: vscode.l10n.t('up to {0} GB at {1}/GB/month', Math.floor(o.disk_space), formatDollars(o.storage_cost ?? 0)),
      volumeId: o.id,
      offer: { maxGb: Math.floor(o.disk_space), costPerGbMonth: o.storage_cost ?? 0 },
    }));
  return [...existing, ...fresh];
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

/** A template's own launch mode, read from the template search; undefined (and logged) when it cannot be read. */
export async function templateMode(s: RentDeps, hash: string): Promise<LaunchMode | undefined> {
  try {
    const found = await s.session.client.templates.search({ selectFilters: { hash_id: { eq: hash } } });
    const template = found.find((t) => t.hash_id === hash);
    if (!template) s.logger.warn(`Template ${hash} was not among the templates this key can read; its launch mode is not known.`);
    return template && templateLaunchMode(template);
  } catch (error) {
    s.logger.warn(`Could not read template ${hash} for its launch mode: ${String(error)}`);
    return undefined;
  }
}

/** Images the rent wizard offers again, most recent first. */
function recentImages(s: RentDeps): string[] {
  return s.state.get('recentImages');
}

/** Template hashes the rent wizard offers again, most recent first. */
function recentTemplates(s: RentDeps): string[] {
  return s.state.get('recentTemplates');
}

async function rememberTemplate(s: RentDeps, hash: string): Promise<void> {
  await s.state.change('recentTemplates', (recent) => [hash, ...recent.filter((h) => h !== hash)].slice(0, 5));
}

async function rememberImage(s: RentDeps, image: string): Promise<void> {
  await s.state.change('recentImages', (recent) => [image, ...recent.filter((i) => i !== image)].slice(0, 5));
}
