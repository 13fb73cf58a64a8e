import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import { OutbidNotices, type OutbidNoticeShown } from '../../core/jobs/outbidNotices';
import type { OutbidPolicies } from '../../core/jobs/outbidPolicy';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { stillOnAccount } from '../host/accountCheck';
import { notify } from '../pickers/notify';

export interface OutbidDeps {
  readonly session: Pick<Session, 'bound'>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate' | 'watch' | 'refresh'>;
  readonly state: Pick<GpuRentalState, 'change'>;
  readonly logger: Logger;
  /**
   * The outbid policies of resumable jobs, built by the composition root (core/rent/outbidWiring.ts,
   * with `showProgress` and `policyConfirm` below); without them every outbid gets the plain notice.
   */
  readonly policies?: OutbidPolicies;
}

/** A notification shown for an outbid: which instance, its text and its buttons (kept for the test API). */
export type OutbidNotice = OutbidNoticeShown;

/** The outbid policies' question before Destroy New Instance: a modal. */
export const policyConfirm = {
  confirm: async (title: string, detail: string, button: string): Promise<boolean> =>
    (await vscode.window.showWarningMessage(title, { modal: true, detail }, button)) === button,
};

/**
 * The outbid notices (decided in core/jobs/outbidNotices.ts) shown in this window: a notification
 * whose Raise Bid and Move to On-Demand run those commands on the account the outbid was seen on.
 */
export class OutbidNotifier implements vscode.Disposable {
  private readonly notices: OutbidNotices;

  constructor(deps: OutbidDeps) {
    this.notices = new OutbidNotices({
      session: deps.session,
      poller: deps.poller,
      state: deps.state,
      logger: deps.logger,
      policies: deps.policies,
      notify: (notice, label) => notify(notice, label),
      command: (action, id, account) =>
        action === 'raiseBid'
          ? void vscode.commands.executeCommand(COMMANDS.changeBid, id, undefined, account)
          : void vscode.commands.executeCommand(COMMANDS.moveToOnDemand, id, account),
      stillOnAccount: (account) => stillOnAccount(deps.session, account),
    });
  }

  /** Notifications this window showed, oldest first. */
  get shown(): readonly OutbidNotice[] {
    return this.notices.shown;
  }

  check(instances: Parameters<OutbidNotices['check']>[0]): Promise<void> {
    return this.notices.check(instances);
  }

  dispose(): void {
    this.notices.dispose();
  }
}
