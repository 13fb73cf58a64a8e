import * as vscode from 'vscode';
import { creditOf } from '../../core/account/funds';
import type { Instance } from '../../core/api/instances';
import type { Offer } from '../../core/api/offers';
import { answerIncreaseFlow } from '../../core/contracts/answer';
import { increaseShort, type PriceIncrease } from '../../core/contracts/increase';
import { reserveFlow } from '../../core/contracts/reserve';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import { instanceName } from '../../core/instances/names';
import { likeRequest } from '../../core/rent/outbidRent';
import type { Session } from '../../core/session/session';
import type { ContractNotifier } from '../guards/contracts';
import { notify } from '../pickers/notify';
import { asker, type Prompts } from '../pickers/prompts';
import { pickOfferToRent } from './bids';
import { resolveTarget, type Target } from './instances';
import { InstanceItem } from '../views/instancesView';
import { command, type CommandDefinition } from '../registry';

export interface ContractCommandDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly contracts: ContractNotifier;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
}

/** Accept and Reject a host's price increase, Rent Like This Elsewhere, and Reserve (prepay). */
export function contractCommands(s: ContractCommandDeps): CommandDefinition[] {
  return [
    command(COMMANDS.acceptPriceIncrease, (t?: Target) => answer(s, 'accept', t)),
    command(COMMANDS.rejectPriceIncrease, (t?: Target) => answer(s, 'reject', t)),
    command(COMMANDS.rentLikeElsewhere, async (t?: Target) => {
      const instance = await resolveTarget(s, t, vscode.l10n.t('Rent like which instance?'), undefined);
      return instance ? rentLikeElsewhere(s, instance) : undefined;
    }),
    command(COMMANDS.reserveInstance, async (t?: Target) => {
      const instance = await resolveTarget(s, t, vscode.l10n.t('Reserve which instance?'), ['running']);
      if (!instance) return undefined;
      const notice = await reserveFlow(
        {
          ask: asker(s.prompts()),
          contracts: s.session.client.contracts,
          credit: async () => {
            await s.session.refresh();
            return s.session.state.kind === 'ready' ? creditOf(s.session.state.user) : undefined;
          },
        },
        instance,
      );
      s.contracts.forgetDeposit(instance.id);
      void notify(notice);
      return notice?.severity;
    }),
  ];
}

/** The increase a command acts on: the row's or the id's, else one picked among those pending. */
async function pendingFor(s: ContractCommandDeps, t: Target): Promise<{ inc: PriceIncrease; instance?: Instance } | undefined> {
  await s.contracts.watch.refresh(true);
  const instances = s.poller.snapshot?.instances ?? [];
  const id = t instanceof InstanceItem ? t.instance.id : typeof t === 'number' ? t : undefined;
  if (id !== undefined) {
    const inc = s.contracts.watch.increaseOf(id);
    if (inc) return { inc, instance: instances.find((i) => i.id === id) };
    void vscode.window.showInformationMessage(
      vscode.l10n.t('GPU Rental: nothing pending any more on instance #{0}: its host asks no higher price now.', id),
    );
    return undefined;
  }
  const pending = s.contracts.watch.increases;
  if (pending.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: no host asks a higher price on your instances.'));
    return undefined;
  }
  const items = pending.map((inc) => {
    const instance = instances.find((i) => i.id === inc.instanceId);
    return { label: instance ? instanceName(instance) : `#${inc.instanceId}`, description: increaseShort(inc), inc, instance };
  });
  return vscode.window.showQuickPick(items, { title: vscode.l10n.t('GPU Rental: Which price increase?') });
}

async function answer(s: ContractCommandDeps, how: 'accept' | 'reject', t: Target): Promise<boolean | undefined> {
  const found = await pendingFor(s, t);
  if (!found) return undefined;
  const end = await answerIncreaseFlow({ ask: asker(s.prompts()), contracts: s.session.client.contracts }, how, found.inc, found.instance);
  if (!end) return undefined;
  void notify(end.notice);
  if (end.sent) {
    await s.contracts.refresh();
    void s.poller.refresh();
  }
  return end.sent;
}

/**
 * Offers like the instance on other machines (same GPU model and count, at least its GPU memory and
 * disk), on demand and cheapest first, then the rent wizard for the one picked. The instance stays.
 */
async function rentLikeElsewhere(s: ContractCommandDeps, instance: Instance): Promise<number | undefined> {
  const offers: Offer[] = await s.session.client.offers.search(likeRequest(instance, 'on-demand'));
  if (offers.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'GPU Rental: no offer like {0} is listed on another machine now. Search the Offers view with other filters.',
        instanceName(instance),
      ),
    );
    return undefined;
  }
  return pickOfferToRent(
    offers,
    vscode.l10n.t('GPU Rental: Rent like {0} elsewhere', instanceName(instance)),
    vscode.l10n.t('{0} keeps running and billing until you stop or destroy it.', instanceName(instance)),
  );
}
