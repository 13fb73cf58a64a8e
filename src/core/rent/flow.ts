/**
 * The decisions of a rent, from the chosen offer to what the user is told: whether an earlier rent
 * blocks it, what it costs and whether the credit covers an hour, what the spend cap check says
 * (the confirmation: confirmation.ts), which start-up script is sent, and after the renter's answer, what happens next
 * and what the notification says. The rent command asks, shows and runs these; it decides nothing.
 */
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { ONSTART_MAX_CHARS } from '../api/limits';
import { OnstartTooLong, withWatchdog } from '../idle/watchdog';
import { resumeHook } from '../jobs/resumeScripts';
import { presentOffer } from '../offers/present';
import type { PendingRent } from './journal';
import { rentOutcomeMessage } from './messages';
import type { RentPlan } from './plan';
import { quoteRent, type QuotePricing, type RentQuote } from './quote';
import type { RentInfo, RentOutcome } from './renter';
import { l10n } from '../l10n';
import type { Notice } from '../notice';

/** A notification's button (its label, in the display language) and what clicking it does. */
export type RentAction =
  | { button: string; run: 'showLogs' }
  | { button: string; run: 'refreshOffers' }
  | { button: string; run: 'setApiKey' }
  /** The template search, to pick a template that exists. */
  | { button: string; run: 'searchTemplates' }
  /** The Account view, where the account's volumes are. */
  | { button: string; run: 'showVolumes' }
  /** Waits for the boot and the SSH banner, then hands over to Remote-SSH. */
  | { button: string; run: 'connect'; instanceId: number };

/** What the user is told, and how loudly; its one button carries its own label and what it runs. */
export interface RentNotice extends Notice {
  readonly action?: RentAction;
}

/** Something the extension does once the renter has answered, before the notice is shown. */
export type RentFollowUp =
  /** The status bar follows the new instance's boot. */
  | { kind: 'trackBoot'; instanceId: number }
  /** The wizard offers this image, or template, first next time. */
  | { kind: 'rememberImage'; image: string }
  | { kind: 'rememberTemplate'; hash: string }
  | { kind: 'refreshOffers' }
  /** Waits for a fresh instance list, so the new instance is in the view when the notice shows. */
  | { kind: 'refreshInstances' }
  /** The status bar shows the check of a rent whose outcome is not known. */
  | { kind: 'showPendingRents' };

/** Why a rent stops before it is sent. */
export const NO_ACCOUNT_NOTICE: RentNotice = {
  severity: 'error',
  text: l10n.t('GPU Rental: not rented: no API key is set for this service. Set one and try again.'),
  action: { button: l10n.t('Set API Key'), run: 'setApiKey' },
};

/** An earlier rent on this account whose outcome is not known yet: renting again could rent twice. */
export function unsettledNotice(pending: readonly PendingRent[]): RentNotice | undefined {
  if (pending.length === 0) return undefined;
  return { severity: 'warning', text: l10n.t('GPU Rental: {0}', rentOutcomeMessage({ kind: 'unsettled', pending: [...pending] })) };
}

/** What a rent costs and what the renter, the spend cap check and the progress title call it. */
export interface PricedRent {
  quote: RentQuote;
  /** Set when the known credit cannot cover one hour: the rent stops here. An unknown credit is not checked. */
  refusal: RentNotice | undefined;
  /** What the spend cap check says would not happen ("not rented: …"). */
  capReason: string;
  /** What the journal and the renter record about it. */
  info: RentInfo;
}

export function priceRent(offer: Offer, disk: number, credit: number | undefined, pricing: QuotePricing = {}): PricedRent {
  const quote = quoteRent(offer, disk, credit, pricing);
  const description = presentOffer(offer).label;
  const perHour = formatDollars(quote.totalPerHour);
  return {
    quote,
    refusal: quote.affordable
      ? undefined
      : {
          severity: 'error',
          text: l10n.t(
            'GPU Rental: not rented. This machine costs {0}/h and the credit left is {1}: not enough for one hour. Add credit, or pick a cheaper offer.',
            perHour,
            formatDollars(credit ?? 0),
          ),
        },
    capReason: l10n.t('rented: {0} costs {1}/h', description, perHour),
    info: { description, perHour: quote.totalPerHour },
  };
}

/** The gpuRental.idleStop settings a rent reads. */
export interface IdleStopSettings {
  enabled: boolean;
  minutes: number;
  gpuThreshold: number;
}

/**
 * The start-up script the rent sends: the idle watchdog (unless idle stop is off for this rent),
 * then the hook that resumes resumable jobs when the instance starts (jobs/resumeScripts.ts), then
 * the user's own script (never replaced). A plan that uses a template sends the user's script
 * alone: the service runs the template's. A script the service would refuse as too long with the
 * watchdog stops the rent with a notice; without the watchdog, a user's script too long for the
 * hook is sent alone (the extension then resumes the jobs itself while a window is open).
 */
export function rentOnstart(
  plan: RentPlan,
  idle: IdleStopSettings,
  baseUrl: string,
): { onstart: string | undefined; refusal?: undefined } | { refusal: RentNotice } {
  const idleMinutes = plan.idleStopMinutes ?? (idle.enabled ? idle.minutes : 0);
  if (plan.template) return { onstart: plan.onstart };
  const hooked = resumeHook() + (plan.onstart?.trim() ? plan.onstart : '');
  if (!(idleMinutes > 0)) return { onstart: hooked.length <= ONSTART_MAX_CHARS ? hooked : plan.onstart };
  try {
    return { onstart: withWatchdog(hooked, { baseUrl, idleMinutes, gpuThreshold: idle.gpuThreshold }) };
  } catch (error) {
    if (!(error instanceof OnstartTooLong)) throw error;
    return { refusal: { severity: 'error', text: l10n.t('GPU Rental: not rented. {0}', error.message) } };
  }
}

/** What follows the renter's answer: follow-ups in order, then the notice; `instanceId` when one was made. */
export interface RentEnd {
  followUps: RentFollowUp[];
  notice: RentNotice;
  instanceId: number | undefined;
}

export function rentEnd(outcome: RentOutcome, plan: RentPlan, quote: RentQuote): RentEnd {
  const showLogs: RentAction = { button: l10n.t('Show Logs'), run: 'showLogs' };
  switch (outcome.kind) {
    case 'busy':
    case 'unsettled':
      return {
        followUps: [],
        notice: { severity: 'error', text: l10n.t('GPU Rental: {0}', rentOutcomeMessage(outcome)), action: showLogs },
        instanceId: undefined,
      };
    case 'refused': {
      // A missing template or volume is fixed there, not by other offers.
      const missing = outcome.missing;
      const action: RentAction =
        missing?.kind === 'template'
          ? { button: l10n.t('Search Templates'), run: 'searchTemplates' }
          : missing?.kind === 'volume' && !missing.newVolume
            ? { button: l10n.t('Show Volumes'), run: 'showVolumes' }
            : showLogs;
      return {
        followUps: [],
        notice: { severity: 'error', text: l10n.t('GPU Rental: {0}', rentOutcomeMessage(outcome)), action },
        instanceId: undefined,
      };
    }
    case 'unavailable':
      return {
        followUps: [],
        notice: {
          severity: 'warning',
          text: l10n.t('GPU Rental: {0}', rentOutcomeMessage(outcome)),
          action: { button: l10n.t('Refresh Offers'), run: 'refreshOffers' },
        },
        instanceId: undefined,
      };
    case 'uncertain':
      // The status bar shows the check; its outcome is announced when known.
      return {
        followUps: [{ kind: 'showPendingRents' }],
        notice: { severity: 'warning', text: l10n.t('GPU Rental: {0}', rentOutcomeMessage(outcome)), action: showLogs },
        instanceId: undefined,
      };
    case 'created': {
      const id = outcome.instanceId;
      const followUps: RentFollowUp[] = [{ kind: 'trackBoot', instanceId: id }];
      if (plan.image) followUps.push({ kind: 'rememberImage', image: plan.image });
      if (plan.template) followUps.push({ kind: 'rememberTemplate', hash: plan.template });
      followUps.push({ kind: 'refreshOffers' }, { kind: 'refreshInstances' });
      return {
        followUps,
        notice: {
          severity: 'info',
          text:
            plan.bid === undefined
              ? l10n.t(
                  'GPU Rental: rented "{0}" as instance #{1}. It bills {2}/h; watch it boot in the status bar.',
                  plan.label,
                  id,
                  formatDollars(quote.totalPerHour),
                )
              : l10n.t(
                  'GPU Rental: rented "{0}" as instance #{1}. It bills {2}/h while its bid is the highest (interruptible); watch it boot in the status bar.',
                  plan.label,
                  id,
                  formatDollars(quote.totalPerHour),
                ),
          action: { button: l10n.t('Open When Ready'), run: 'connect', instanceId: id },
        },
        instanceId: id,
      };
    }
  }
}
