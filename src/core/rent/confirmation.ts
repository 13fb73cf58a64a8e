/**
 * THE RENT CONFIRMATION, built once: what a rent costs and what comes with it, as the wizard's last
 * step shows it (rows to pick from) and as automation's modal shows it (a title and sentences). Both
 * come from `rentConfirmation`, from the same quote, so the price a user accepts is the same whichever
 * way the rent started.
 */
import type { VolumeAttachment } from '../api/instances';
import type { Offer } from '../api/offers';
import { describeRentEnv } from '../account/secrets';
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import { presentOffer } from '../offers/present';
import { priceContextPhrase, rentPriceContext, type GpuPriceStats, type PriceContext } from '../offers/priceContext';
import { minBidOf, onDemandGpuPerHour } from './bid';
import { describeLaunch, type LaunchMode } from './launchMode';
import type { RentPlan } from './plan';
import { quoteRent, type RentQuote } from './quote';
import type { PickItem } from './steps';

/** A volume picked in the wizard: what to send, how it reads, and what a new one bills per hour (0 for an existing one). */
export interface ChosenVolume {
  attachment: VolumeAttachment;
  text: string;
  perHour: number;
}

/** What a confirmation row does when picked: rent, or open what it describes and come back. */
export type ConfirmationChoice = 'rent' | 'bid' | 'toggleIdle' | 'env' | 'volume';

export interface ConfirmationInput {
  offer: Offer;
  plan: RentPlan;
  /** The account's credit; undefined when not reported (the rent is not checked against it). */
  credit: number | undefined;
  /** The template's own launch mode, when the plan has a template and it was read. */
  templateMode: LaunchMode | undefined;
  /** The going rate of the offer's GPU model, when known. */
  priceStats?: GpuPriceStats;
  /** The offer was listed by a `type=bid` search (its listed price is the minimum bid). */
  bidSearch?: boolean;
  /** Rent Best Match: what happens when the offer is taken first. */
  failover?: { title: string; detail: string };
  /** The wizard's volume row: a chosen volume, 'none', or undefined when no volume can be offered (no row). */
  volume?: ChosenVolume | 'none';
  /**
   * Rent Cluster: the plan is for each of this many nodes. The first row goes on to the cluster's own
   * confirmation (every node and the total) instead of renting, and the credit row is left to it.
   */
  clusterNodes?: number;
}

export interface RentConfirmation {
  quote: RentQuote;
  /** The modal (automation): its title, its sentences and its button. */
  title: string;
  detail: string;
  button: string;
  /** The wizard's last step: its hint and its rows, the first of which rents. */
  placeholder: string;
  rows: PickItem<ConfirmationChoice>[];
}

/** The confirmation of renting `offer` as `plan`: the modal's text and the wizard's rows, from one quote. */
export function rentConfirmation(input: ConfirmationInput): RentConfirmation {
  const { offer, plan } = input;
  const quote = quoteRent(offer, plan.disk, input.credit, { bid: plan.bid, bidSearch: input.bidSearch ?? false });
  const priceContext = rentPriceContext(offer, quote.totalPerHour, input.priceStats);
  return {
    quote,
    title: l10n.t('Rent {0} for {1}/h?', presentOffer(offer).label, formatDollars(quote.totalPerHour)),
    detail: dialogDetail(input, quote, priceContext),
    button: l10n.t('Rent'),
    placeholder:
      input.clusterNodes === undefined
        ? l10n.t('Renting starts billing once the instance runs. Press Enter to rent, Escape to cancel.')
        : l10n.t('Each node runs this. Press Enter to see every node and the total before anything is rented.'),
    rows: [
      input.clusterNodes === undefined ? rentRow(quote, input.volume) : clusterNextRow(quote, input.clusterNodes),
      { label: '', separator: true },
      // Information rows: accepting them does nothing.
      { label: l10n.t('GPU {0}/h', formatDollars(quote.gpuPerHour)), description: presentOffer(offer).label },
      ...priceContextRows(offer, priceContext),
      ...rentalRows(input),
      ...(input.failover ? [{ label: l10n.t('$(sync) {0}', input.failover.title), description: input.failover.detail }] : []),
      { label: l10n.t('Disk {0}/h', formatDollars(quote.diskPerHour)), description: l10n.t('{0} GB, billed until destroyed', plan.disk) },
      ...(input.clusterNodes === undefined ? [creditRow(quote, input.credit)] : []),
      launchRow(plan, input.templateMode),
      idleRow(plan),
      envRow(plan),
      ...volumeRows(input.volume),
    ],
  };
}

/**
 * The modal's sentences: an interruptible rent says so first (it can stop at any time, and its disk
 * bills while stopped), then the price, then what comes with the instance.
 */
function dialogDetail(input: ConfirmationInput, quote: RentQuote, priceContext: PriceContext | undefined): string {
  const { plan, offer } = input;
  const money = [formatDollars(quote.gpuPerHour), formatDollars(quote.diskPerHour), plan.disk, formatDollars(quote.perDay)] as const;
  const volume = plan.volume
    ? plan.volume.create_new
      ? l10n.t('With a new {0} GB volume (billed until deleted) at {1}.', plan.volume.size ?? '', plan.volume.mount_path)
      : l10n.t('With volume {0} at {1}.', plan.volume.volume_id, plan.volume.mount_path)
    : undefined;
  const envNames = Object.keys(plan.env ?? {});
  return sentences(
    plan.bid !== undefined && l10n.t('Interruptible: stopped if someone bids more; the disk still bills.'),
    plan.bid === undefined
      ? l10n.t('GPU {0}/h + disk {1}/h ({2} GB). About {3} per day.', ...money)
      : l10n.t('GPU bid {0}/h + disk {1}/h ({2} GB). About {3} per day.', ...money),
    priceContext && l10n.t('Price per GPU: {0}.', priceContextPhrase(priceContext, offer.gpu_name)),
    volume,
    plan.template && l10n.t('Template {0}: {1}.', plan.template, describeLaunch(plan, input.templateMode)),
    envNames.length > 0 && l10n.t('Environment: {0} (values hidden).', envNames.join(', ')),
    input.credit === undefined && l10n.t('The credit left is unknown, so this was not checked against it.'),
    input.failover && l10n.t('{0}: {1}.', input.failover.title, input.failover.detail),
  );
}

function rentRow(quote: RentQuote, volume: ChosenVolume | 'none' | undefined): PickItem<ConfirmationChoice> {
  const volumePerHour = typeof volume === 'object' ? volume.perHour : 0;
  return {
    label: l10n.t('$(rocket) Rent for {0}/h', formatDollars(quote.totalPerHour)),
    // A new volume bills on its own, also after the instance is gone: said beside the total, not hidden in it.
    description:
      volumePerHour > 0
        ? l10n.t('about {0} per day, plus the new volume {1}/h', formatDollars(quote.perDay), formatDollars(volumePerHour))
        : l10n.t('about {0} per day', formatDollars(quote.perDay)),
    value: 'rent',
  };
}

/** Rent Cluster's first row: nothing is rented yet; the cluster's confirmation comes next. */
function clusterNextRow(quote: RentQuote, nodes: number): PickItem<ConfirmationChoice> {
  return {
    label: l10n.t('$(arrow-right) Next: confirm all {0} nodes', nodes),
    description: l10n.t('{0}/h for each node', formatDollars(quote.totalPerHour)),
    value: 'rent',
  };
}

/** "18% under the 7-day median" for the offer's price per GPU, with the median it was compared with. */
function priceContextRows(offer: Offer, context: PriceContext | undefined): PickItem<ConfirmationChoice>[] {
  if (!context) return [];
  const text = context.text.charAt(0).toUpperCase() + context.text.slice(1);
  const label =
    context.relation === 'under'
      ? l10n.t('$(arrow-down) {0}', text)
      : context.relation === 'over'
        ? l10n.t('$(arrow-up) {0}', text)
        : l10n.t('$(dash) {0}', text);
  return [{ label, description: l10n.t('per GPU; the median for {0} is {1}/GPU/h', offer.gpu_name, formatDollars(context.medianPerGpu)) }];
}

/**
 * The rental row: on demand with the minimum bid beside it (select to bid), or the bid with the
 * on-demand price beside it and what an outbid costs. None for an offer without a minimum bid.
 */
function rentalRows({ offer, plan, bidSearch }: ConfirmationInput): PickItem<ConfirmationChoice>[] {
  const minBid = minBidOf(offer);
  if (minBid === undefined) return [];
  const onDemand = formatDollars(onDemandGpuPerHour(offer, bidSearch ?? false));
  if (plan.bid === undefined)
    return [
      {
        label: l10n.t('$(tag) Rental: on-demand {0}/h', onDemand),
        description: l10n.t('select to bid instead (minimum now {0}/h)', formatDollars(minBid)),
        value: 'bid',
      },
    ];
  return [
    {
      label: l10n.t('$(tag) Interruptible: bid {0}/h (on-demand {1}/h)', formatDollars(plan.bid), onDemand),
      description: l10n.t('stopped if outbid; the disk still bills · select to change'),
      value: 'bid',
    },
  ];
}

function creditRow(quote: RentQuote, credit: number | undefined): PickItem<ConfirmationChoice> {
  if (quote.creditAfterDay === undefined || credit === undefined)
    return { label: l10n.t('Credit: unknown'), description: l10n.t('not reported to this key; this rent is not checked against it') };
  return {
    label: l10n.t('Credit after a day: {0}', formatDollars(quote.creditAfterDay)),
    description: l10n.t('now {0}', formatDollars(credit)),
  };
}

/** What runs: the image or the template, how to connect, the label, and whether a start-up script comes with it. */
function launchRow(plan: RentPlan, templateMode: LaunchMode | undefined): PickItem<ConfirmationChoice> {
  const launch = describeLaunch(plan, templateMode);
  return {
    label: plan.template ? l10n.t('template {0}', plan.template) : (plan.image ?? ''),
    description: plan.onstart
      ? l10n.t('{0} · "{1}" · with start-up script', launch, plan.label)
      : l10n.t('{0} · "{1}"', launch, plan.label),
  };
}

function idleRow(plan: RentPlan): PickItem<ConfirmationChoice> {
  if (plan.template)
    return {
      label: l10n.t('$(watch) No idle stop'),
      description: l10n.t("a template's own start-up script runs; the watchdog cannot be added"),
    };
  if (plan.idleStopMinutes)
    return {
      label: l10n.t('$(watch) Idle stop after {0} min', plan.idleStopMinutes),
      description: l10n.t('stops itself when the GPU and SSH are idle, even with this window closed · select to turn off'),
      value: 'toggleIdle',
    };
  return { label: l10n.t('$(watch) No idle stop'), description: l10n.t('select to turn it on'), value: 'toggleIdle' };
}

function envRow(plan: RentPlan): PickItem<ConfirmationChoice> {
  const described = describeRentEnv(plan.env);
  return {
    label: described ? l10n.t('$(symbol-variable) {0}', described) : l10n.t('$(symbol-variable) Environment variables…'),
    description: described ? l10n.t('for this rent only · select to change') : l10n.t('optional, for this rent only'),
    value: 'env',
  };
}

function volumeRows(volume: ChosenVolume | 'none' | undefined): PickItem<ConfirmationChoice>[] {
  if (volume === undefined) return [];
  if (volume === 'none')
    return [
      {
        label: l10n.t('$(database) No volume'),
        description: l10n.t('select to attach or create one on this machine'),
        value: 'volume',
      },
    ];
  return [{ label: l10n.t('$(database) Volume: {0}', volume.text), description: l10n.t('select to change'), value: 'volume' }];
}
