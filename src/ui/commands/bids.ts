import * as vscode from 'vscode';
import { stillOnAccount } from '../host/accountCheck';
import type { Instance } from '../../core/api/instances';
import type { Offer } from '../../core/api/offers';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { presentOffer } from '../../core/offers/present';
import { onDemandGpuPerHour } from '../../core/rent/bid';
import { changeBidFlow, moveToOnDemandQuestion, onDemandAlternatives, sameMachineOnDemand } from '../../core/rent/changeBid';
import type { Session } from '../../core/session/session';
import { notify } from '../pickers/notify';
import { inputOf, type Prompts } from '../pickers/prompts';
import type { BootStatus } from '../status/bootStatus';
import type { SpendGuard } from '../guards/spendGuard';
import { resolveTarget, type Target } from './instances';
import { command, type CommandDefinition } from '../registry';

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
      if (isBidAccount(account) && !stillOnAccount(s.session, account)) return undefined;
      const instance = await resolveTarget(s, t, vscode.l10n.t('Change the bid of which instance?'), undefined);
      return instance ? changeBid(s, instance, typeof suggested === 'number' ? suggested : undefined) : undefined;
    }),
    command(COMMANDS.moveToOnDemand, async (t?: Target, account?: unknown) => {
      if (isBidAccount(account) && !stillOnAccount(s.session, account)) return undefined;
      const instance = await resolveTarget(s, t, vscode.l10n.t('Move which instance to an on-demand offer?'), ['stopped']);
      return instance ? moveToOnDemand(s, instance) : undefined;
    }),
  ];
}

/** Change Bid (src/core/rent/changeBid.ts), in VS Code's input box; the status bar follows a boot, the poller the rest. */
async function changeBid(s: BidDeps, instance: Instance, suggested: number | undefined): Promise<string | undefined> {
  const end = await changeBidFlow(
    {
      ask: { input: inputOf(s.prompts()) },
      onDemandPrice: (i) => onDemandPrice(s, i),
      allowsSpend: (perHour, reason) => s.spend.allows(s.poller, perHour, reason),
      instances: s.session.client.instances,
    },
    instance,
    suggested,
  );
  if (!end) return undefined;
  void notify(end.notice);
  if (!end.sent) return undefined;
  if (end.sent.follow === 'boot') s.boots.track(instance.id);
  else s.poller.watch(instance.id);
  void s.poller.refresh();
  return end.sent.kind;
}

/** What the instance's machine costs on demand for its GPU part, when an offer of it is listed; undefined otherwise. */
async function onDemandPrice(s: BidDeps, instance: Instance): Promise<number | undefined> {
  const request = sameMachineOnDemand(instance);
  if (!request) return undefined;
  try {
    const [offer] = await s.session.client.offers.search(request);
    return offer ? onDemandGpuPerHour(offer, false) : undefined;
  } catch (error) {
    s.logger.warn(`Could not read the on-demand price of machine ${instance.machine_id}: ${String(error)}`);
    return undefined;
  }
}

/**
 * On-demand offers for the same GPU model and count, cheapest first, then the rent wizard for the
 * one picked. The outbid instance stays as it is: the pick says what it still bills and how its data
 * moves.
 */
async function moveToOnDemand(s: BidDeps, instance: Instance): Promise<number | undefined> {
  const offers: Offer[] = await s.session.client.offers.search(onDemandAlternatives(instance));
  const question = moveToOnDemandQuestion(instance, offers);
  if ('notice' in question) return void notify(question.notice);
  return pickOfferToRent(offers, question.title, question.placeholder);
}

/** A pick of `offers`, then the rent wizard for the one picked; the new instance's id, undefined when dismissed. */
export async function pickOfferToRent(offers: readonly Offer[], title: string, placeholder: string): Promise<number | undefined> {
  const picked = await vscode.window.showQuickPick(
    offers.map((offer) => ({ ...presentOffer(offer), offer })),
    { title, placeHolder: placeholder, matchOnDescription: true, ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  return vscode.commands.executeCommand<number | undefined>(COMMANDS.rentOffer, picked.offer.id);
}
