import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { outbidNoticeText, outbidsToNotify } from '../../core/instances/outbid';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';

export interface OutbidDeps {
  readonly session: Pick<Session, 'bound'>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate'>;
  readonly state: Pick<GpuRentalState, 'change'>;
  readonly logger: Logger;
}

/** A notification shown for an outbid: which instance, its text and its buttons (kept for the test API). */
export interface OutbidNotice {
  readonly instanceId: number;
  readonly text: string;
  readonly buttons: readonly string[];
}

const RAISE = vscode.l10n.t('Raise Bid');
const MOVE = vscode.l10n.t('Move to On-Demand');

/**
 * Tells the user, once per outbid and in one window only, that an interruptible instance was
 * stopped for a higher bid, with what it still bills, and offers Raise Bid and Move to On-Demand.
 * It follows the poller's snapshots, so only the active profile's instances are seen. Windows
 * share what was notified through global state: the first window to see the outbid records it and
 * notifies; the others find it recorded.
 */
export class OutbidNotifier implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  /** Notifications this window showed, oldest first. */
  readonly shown: OutbidNotice[] = [];

  constructor(private readonly deps: OutbidDeps) {
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
        const found = outbidsToNotify(notified, account, instances, Date.now());
        notify = found.notify;
        return found.next;
      });
    } catch (error) {
      // Without the record, notifying could repeat in every window on every poll: say nothing this time.
      this.deps.logger.warn(`Could not record outbid notifications: ${String(error)}`);
      return;
    }
    for (const instance of notify) this.notify(instance, account);
  }

  private notify(instance: Instance, account: { baseUrl: string; profileId: string }): void {
    const text = outbidNoticeText(instance);
    this.shown.push({ instanceId: instance.id, text, buttons: [RAISE, MOVE] });
    this.deps.logger.info(`Instance #${instance.id} was outbid and stopped by the service.`);
    void vscode.window.showWarningMessage(text, RAISE, MOVE).then((choice) => {
      // Change Bid reads the instance when clicked and suggests just over the minimum then, which may have risen since.
      if (choice === RAISE) void vscode.commands.executeCommand(COMMANDS.changeBid, instance.id, undefined, account);
      else if (choice === MOVE) void vscode.commands.executeCommand(COMMANDS.moveToOnDemand, instance.id, account);
    });
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
