/**
 * What the user is told when an interruptible instance is outbid, once per outbid and in one window
 * only: an instance with resumable jobs follows their policy (outbidPolicy.ts) and its outcome is
 * told, with Retry Copy and Destroy New Instance going on from it; any other gets the plain notice
 * with what it still bills, Raise Bid and Move to On-Demand. It follows the poller's snapshots, so
 * only the active profile's instances are seen. Windows share what was notified through stored
 * state: the first window to see the outbid records it and notifies; the others find it recorded.
 * ui answers the ports: the notification, the commands Raise Bid and Move to On-Demand run, and the
 * check that a button still acts on the window's account.
 */
import type { Instance } from '../api/instances';
import type { Disposable } from '../events';
import { outbidNoticeText, outbidsToNotify } from '../instances/outbid';
import type { InstancePoller } from '../instances/poller';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import type { Session } from '../session/session';
import type { StoredAccess } from '../state/storedState';
import { outbidActionLabel, type OutbidOutcome, type OutbidPolicies } from './outbidPolicy';

/** The account an outbid was seen on: a button acts there only. */
export interface OutbidAccount {
  readonly baseUrl: string;
  readonly profileId: string;
}

/** A notification shown for an outbid: which instance, its text and its buttons' words (the test API reads them). */
export interface OutbidNoticeShown {
  readonly instanceId: number;
  readonly text: string;
  readonly buttons: readonly string[];
}

export interface OutbidNoticesDeps {
  readonly session: Pick<Session, 'bound'>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate' | 'watch' | 'refresh'>;
  readonly state: Pick<StoredAccess<{ outbidNotified: Record<string, number> }>, 'change'>;
  readonly logger: Logger;
  /** The outbid policies of resumable jobs; without them every outbid gets the plain notice. */
  readonly policies?: OutbidPolicies;
  /** Shows a notice with its buttons worded by `label`; resolves the button pressed. */
  notify<A extends string>(notice: Notice<A>, label?: (action: A) => string): Promise<A | undefined>;
  /** Runs Change Bid or Move to On-Demand on the instance, on the account it was seen on. */
  command(action: 'raiseBid' | 'moveToOnDemand', instanceId: number, account: OutbidAccount): void;
  /** Whether the window still uses `account`; when not, it has said what to do. */
  stillOnAccount(account: OutbidAccount): boolean;
  now?(): number;
}

export class OutbidNotices implements Disposable {
  private readonly subscription: Disposable;
  /** Notifications this window showed, oldest first. */
  readonly shown: OutbidNoticeShown[] = [];

  constructor(private readonly deps: OutbidNoticesDeps) {
    this.subscription = deps.poller.onDidUpdate((snapshot) => void this.check(snapshot.instances));
  }

  /** Notifies each outbid among `instances` that no window notified yet; forgets outbids that ended. */
  async check(instances: readonly Instance[]): Promise<void> {
    const bound = this.deps.session.bound();
    if (!bound) return;
    const account = { baseUrl: bound.baseUrl, profileId: bound.profileId };
    let notify: Instance[] = [];
    try {
      await this.deps.state.change('outbidNotified', (notified) => {
        const found = outbidsToNotify(notified, account, instances, this.deps.now?.() ?? Date.now());
        notify = found.notify;
        return found.next;
      });
    } catch (error) {
      // Without the record, notifying could repeat in every window on every poll: say nothing this time.
      this.deps.logger.warn(`Could not record outbid notifications: ${String(error)}`);
      return;
    }
    for (const instance of notify) {
      const policies = this.deps.policies;
      if (policies) void this.act(instance, account, policies);
      else this.plain(instance, account);
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /** An instance with resumable jobs follows their policy; one without gets the plain notice. */
  private async act(instance: Instance, account: OutbidAccount, policies: OutbidPolicies): Promise<void> {
    let outcome: OutbidOutcome | undefined;
    try {
      outcome = await policies.onOutbid(instance);
    } catch (error) {
      this.deps.logger.error(`The outbid policy of instance #${instance.id} failed: ${String(error)}`);
    }
    if (!outcome) return this.plain(instance, account);
    await this.show(instance.id, account, policies, outcome);
  }

  /** Shows what a policy ended with; its buttons act on the same instance and account. */
  private async show(id: number, account: OutbidAccount, policies: OutbidPolicies, outcome: OutbidOutcome): Promise<void> {
    // A move already on its way says nothing more.
    if (outcome.kind === 'inFlight') return;
    const { notice, move, boots } = outcome;
    this.shown.push({ instanceId: id, text: notice.text, buttons: (notice.actions ?? []).map(outbidActionLabel) });
    if (boots !== undefined) {
      this.deps.poller.watch(boots);
      void this.deps.poller.refresh();
    }
    const action = await this.deps.notify(notice, outbidActionLabel);
    if (action === 'raiseBid' || action === 'moveToOnDemand') this.deps.command(action, id, account);
    else if ((action === 'retryCopy' || action === 'destroyNew') && move) {
      if (!this.deps.stillOnAccount(account)) return;
      const next = action === 'retryCopy' ? await policies.retryCopy(move) : await policies.destroyNew(move);
      await this.show(id, account, policies, next);
    }
  }

  private plain(instance: Instance, account: OutbidAccount): void {
    const notice: Notice<'raiseBid' | 'moveToOnDemand'> = {
      severity: 'warning',
      text: outbidNoticeText(instance),
      actions: ['raiseBid', 'moveToOnDemand'],
    };
    this.shown.push({ instanceId: instance.id, text: notice.text, buttons: notice.actions!.map(outbidActionLabel) });
    this.deps.logger.info(`Instance #${instance.id} was outbid and stopped by the service.`);
    // Change Bid reads the instance when clicked and suggests just over the minimum then, which may have risen since.
    void this.deps.notify(notice, outbidActionLabel).then((action) => {
      if (action) this.deps.command(action, instance.id, account);
    });
  }
}
