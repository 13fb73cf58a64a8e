import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import type { Offer } from '../../core/api/offers';
import { formatDollars } from '../../core/format';
import { COMMANDS } from '../../core/ids';
import { bidOf, bidRunsAgain, changeInstanceBid, isInterruptible, isOutbid, minBidNow, outbidDiskRate } from '../../core/instances/outbid';
import type { InstancePoller } from '../../core/instances/poller';
import { gpuSummary, instanceName } from '../../core/instances/names';
import type { Logger } from '../../core/log';
import { decimalText } from '../../core/numbers';
import { presentOffer } from '../../core/offers/present';
import { parseQuery } from '../../core/offers/search';
import { BID_MIN, CHANGE_BID_MAX, checkBid, onDemandGpuPerHour, parseBid, suggestBid } from '../../core/rent/bid';
import type { Session } from '../../core/session/session';
import { inputOf, type Prompts } from '../prompts';
import type { BootStatus } from '../bootStatus';
import type { SpendGuard } from '../spendGuard';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from './registry';

/** What the bid commands use. */
export interface BidDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  /** An outbid instance whose new bid runs it again boots: the status bar follows it. */
  readonly boots: Pick<BootStatus, 'track'>;
  readonly spend: Pick<SpendGuard, 'allows'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

/**
 * The account an outbid notification was about. Its buttons may be clicked after the window
 * switched profile: then nothing is sent, and the user is told to switch back.
 */
export interface BidAccount {
  readonly baseUrl: string;
  readonly profileId: string;
}

function isBidAccount(value: unknown): value is BidAccount {
  const v = value as Partial<BidAccount> | undefined;
  return typeof v === 'object' && v !== null && typeof v.baseUrl === 'string' && typeof v.profileId === 'string';
}

/** Change Bid… (any interruptible instance) and Move to On-Demand… (an outbid one): from the tree, the palette or the outbid notification. */
export function bidCommands(s: BidDeps): CommandDefinition[] {
  return [
    command(COMMANDS.changeBid, async (t?: Target, suggested?: unknown, account?: unknown) => {
      if (isBidAccount(account) && !activeAccount(s, account)) return undefined;
      const instance = await resolveTarget(s, t, vscode.l10n.t('Change the bid of which instance?'), undefined);
      return instance ? changeBid(s, instance, typeof suggested === 'number' ? suggested : undefined) : undefined;
    }),
    command(COMMANDS.moveToOnDemand, async (t?: Target, account?: unknown) => {
      if (isBidAccount(account) && !activeAccount(s, account)) return undefined;
      const instance = await resolveTarget(s, t, vscode.l10n.t('Move which instance to an on-demand offer?'), ['stopped']);
      return instance ? moveToOnDemand(s, instance) : undefined;
    }),
  ];
}

/** Whether the window still uses the account a notification was about; says what to do when it does not. */
function activeAccount(s: BidDeps, account: BidAccount): boolean {
  const bound = s.session.bound();
  if (bound && bound.baseUrl === account.baseUrl && bound.profileId === account.profileId) return true;
  void vscode.window.showWarningMessage(
    vscode.l10n.t(
      'GPU Rental: that instance belongs to the profile "{0}" ({1}), which this window no longer uses. Nothing was sent. Switch to that profile (GPU Rental: Switch Profile) and try again there.',
      account.profileId,
      account.baseUrl,
    ),
  );
  return false;
}

/** Asks the new bid, beside the current one, the machine's minimum and the on-demand price, and sends it. */
async function changeBid(s: BidDeps, instance: Instance, suggested: number | undefined): Promise<string | undefined> {
  const name = instanceName(instance);
  if (!isInterruptible(instance)) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('GPU Rental: {0} rents on demand; only an interruptible instance has a bid to change.', name),
    );
    return undefined;
  }
  const bid = bidOf(instance);
  const min = minBidNow(instance);
  const outbid = isOutbid(instance);
  const onDemand = await onDemandPrice(s, instance);
  const start = suggested ?? (outbid && min !== undefined ? suggestBid(min) : bid);
  const facts = [
    bid === undefined ? undefined : `now ${formatDollars(bid)}/h`,
    min === undefined ? undefined : vscode.l10n.t('minimum now {0}/h', formatDollars(min)),
    onDemand === undefined ? vscode.l10n.t('on demand: not listed now') : vscode.l10n.t('on demand {0}/h', formatDollars(onDemand)),
  ].filter((f): f is string => f !== undefined);
  const bounds = { min: Math.max(min ?? BID_MIN, BID_MIN), max: CHANGE_BID_MAX };
  const answer = await inputOf(s.prompts())({
    title: vscode.l10n.t('GPU Rental: Change the bid of {0}', name),
    prompt: outbid
      ? vscode.l10n.t('Bid in $/h for the GPU part ({0}). A bid of at least the minimum runs it again.', facts.join(' · '))
      : vscode.l10n.t('Bid in $/h for the GPU part ({0}). It is stopped when someone bids more.', facts.join(' · ')),
    value: start === undefined ? '' : decimalText(start),
    validate: (v) => checkBid(v, bounds),
  });
  if (answer === undefined) return undefined;
  const price = parseBid(answer, bounds);
  // A running instance adds the difference; an outbid one starts billing its GPU again at the new bid.
  const adds = outbid ? price : Math.max(0, price - (bid ?? 0));
  if (
    adds > 0 &&
    !(await s.spend.allows(s.poller, adds, vscode.l10n.t('changed: the bid of {0} would be {1}/h', name, formatDollars(price))))
  )
    return undefined;
  const result = await changeInstanceBid(s.session.client.instances, instance, price);
  const text = vscode.l10n.t('GPU Rental: {0}', result.message);
  if (result.kind === 'done') void vscode.window.showInformationMessage(text);
  else void vscode.window.showWarningMessage(text);
  if (result.kind === 'done' && bidRunsAgain(instance, price)) s.boots.track(instance.id);
  else s.poller.watch(instance.id);
  void s.poller.refresh();
  return result.kind;
}

/** What the instance's machine costs on demand for its GPU part, when an offer of it is listed; undefined otherwise. */
async function onDemandPrice(s: BidDeps, instance: Instance): Promise<number | undefined> {
  if (instance.machine_id === undefined || instance.machine_id === null) return undefined;
  try {
    const [offer] = await s.session.client.offers.search({
      query: {
        filters: { machine_id: { eq: instance.machine_id }, ...sameGpus(instance) },
        order: [['dph_total', 'asc']],
        type: 'on-demand',
      },
      limit: 1,
    });
    return offer ? onDemandGpuPerHour(offer, false) : undefined;
  } catch (error) {
    s.logger.warn(`Could not read the on-demand price of machine ${instance.machine_id}: ${String(error)}`);
    return undefined;
  }
}

function sameGpus(instance: Instance): Record<string, { eq: string | number }> {
  return {
    ...(instance.gpu_name ? { gpu_name: { eq: instance.gpu_name } } : {}),
    ...(instance.num_gpus ? { num_gpus: { eq: instance.num_gpus } } : {}),
  };
}

/**
 * On-demand offers for the same GPU model and count, cheapest first, then the rent wizard for the
 * one picked. The outbid instance stays as it is: the pick says what it still bills and how its data
 * moves.
 */
async function moveToOnDemand(s: BidDeps, instance: Instance): Promise<number | undefined> {
  const gpus = gpuSummary(instance);
  const defaults = parseQuery('');
  const offers: Offer[] = await s.session.client.offers.search({
    query: { ...defaults, filters: { ...defaults.filters, ...sameGpus(instance) }, order: [['dph_total', 'asc']], type: 'on-demand' },
    limit: 20,
  });
  if (offers.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'GPU Rental: no on-demand {0} offer is listed now. Search the Offers view with other filters, or raise the bid (Change Bid…).',
        gpus,
      ),
    );
    return undefined;
  }
  const disk = outbidDiskRate(instance);
  const picked = await vscode.window.showQuickPick(
    offers.map((offer) => ({ ...presentOffer(offer), offer })),
    {
      title: vscode.l10n.t('GPU Rental: Move {0} to an on-demand {1}', instanceName(instance), gpus),
      placeHolder:
        disk === undefined
          ? vscode.l10n.t(
              'The outbid instance is kept, billing its disk, until you destroy it. Copy Folder to Another Instance moves its data.',
            )
          : vscode.l10n.t(
              'The outbid instance is kept, billing its disk {0}/h, until you destroy it. Copy Folder to Another Instance moves its data.',
              formatDollars(disk),
            ),
      matchOnDescription: true,
      ignoreFocusOut: true,
    },
  );
  if (!picked) return undefined;
  return vscode.commands.executeCommand<number | undefined>(COMMANDS.rentOffer, picked.offer.id);
}
