import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { outbidNoticeText, outbidsToNotify } from '../../core/instances/outbid';
import { OutbidPolicies, outbidActionLabel, type OutbidOutcome, type PolicyProgress } from '../../core/jobs/outbidPolicy';
import { creditOf } from '../../core/account/funds';
import type { JobBook } from '../../core/jobs/book';
import { outbidRenter } from '../../core/rent/outbidRent';
import type { Renter } from '../../core/rent/renter';
import { runRemote, type SshTarget } from '../../core/ssh/remote';
import type { SpendGuard } from './spendGuard';
import { stillOnAccount } from '../host/accountCheck';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { notify as showNotice } from '../pickers/notify';

export interface OutbidDeps {
  readonly session: Pick<Session, 'bound'>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate' | 'watch' | 'refresh'>;
  readonly state: Pick<GpuRentalState, 'change'>;
  readonly logger: Logger;
  /**
   * The outbid policies of resumable jobs (core/jobs/outbidPolicy.ts), built by the composition root
   * with `policyProgress` and `policyConfirm` below; without them every outbid gets the plain notice.
   */
  readonly policies?: OutbidPolicies;
}

type Account = { baseUrl: string; profileId: string };

/** The outbid policies' progress: a notification whose Cancel aborts the signal. */
export const policyProgress: PolicyProgress = (title, work) =>
  Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
      const controller = new AbortController();
      const subscription = token.onCancellationRequested(() => controller.abort());
      return work((message) => progress.report({ message }), controller.signal).finally(() => subscription.dispose());
    }),
  );

/** The outbid policies' question before Destroy New Instance: a modal. */
export const policyConfirm = {
  confirm: async (title: string, detail: string, button: string): Promise<boolean> =>
    (await vscode.window.showWarningMessage(title, { modal: true, detail }, button)) === button,
};

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

  private notify(instance: Instance, account: Account): void {
    const policies = this.deps.policies;
    if (policies) void this.act(instance, account, policies);
    else this.plain(instance, account);
  }

  /** An instance with resumable jobs follows their policy; one without gets the plain notice. */
  private async act(instance: Instance, account: Account, policies: OutbidPolicies): Promise<void> {
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
  private async show(id: number, account: Account, policies: OutbidPolicies, outcome: OutbidOutcome): Promise<void> {
    // A move already on its way says nothing more.
    if (outcome.kind === 'inFlight') return;
    const { notice, move, boots } = outcome;
    this.shown.push({ instanceId: id, text: notice.text, buttons: (notice.actions ?? []).map(outbidActionLabel) });
    if (boots !== undefined) {
      this.deps.poller.watch(boots);
      void this.deps.poller.refresh();
    }
    const action = await showNotice(notice, outbidActionLabel);
    if (action === 'raiseBid') void vscode.commands.executeCommand(COMMANDS.changeBid, id, undefined, account);
    else if (action === 'moveToOnDemand') void vscode.commands.executeCommand(COMMANDS.moveToOnDemand, id, account);
    else if ((action === 'retryCopy' || action === 'destroyNew') && move) {
      if (!stillOnAccount(this.deps.session, account)) return;
      const next = action === 'retryCopy' ? await policies.retryCopy(move) : await policies.destroyNew(move);
      await this.show(id, account, policies, next);
    }
  }

  private plain(instance: Instance, account: Account): void {
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

/** What the outbid policies are built from: the composition root's long-lived objects. */
export interface OutbidPolicyWiring {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly renter: Renter;
  readonly spend: Pick<SpendGuard, 'allows'>;
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly book: Pick<JobBook, 'resumableJobs' | 'resume'>;
  readonly logger: Logger;
}

/**
 * The outbid policies of resumable jobs over this window's objects. The client is read at each call,
 * so a profile switched since is the one asked.
 */
export function outbidPolicies(w: OutbidPolicyWiring): OutbidPolicies {
  const client = () => w.session.client;
  const allowsSpend = (perHour: number, reason: string) => w.spend.allows(w.poller, perHour, reason);
  return new OutbidPolicies({
    jobs: { resumableJobs: (id) => w.book.resumableJobs(id), resume: (id, jobId, options) => w.book.resume(id, jobId, options) },
    instances: {
      show: (...a) => client().instances.show(...a),
      changeBid: (...a) => client().instances.changeBid(...a),
      stop: (...a) => client().instances.stop(...a),
      destroy: (...a) => client().instances.destroy(...a),
    },
    copy: {
      copyBetweenInstances: (...a) => client().copy.copyBetweenInstances(...a),
      cancelCopy: (...a) => client().copy.cancelCopy(...a),
    },
    poller: w.poller,
    rent: outbidRenter({
      renter: w.renter,
      account: () => w.session.bound(),
      search: (request) => client().offers.search(request),
      credit: async () => {
        await w.session.refresh();
        const state = w.session.state;
        return state.kind === 'ready' ? creditOf(state.user) : undefined;
      },
      allowsSpend,
      logger: w.logger,
    }),
    allowsSpend,
    sshTarget: w.sshTarget,
    run: (target, script, timeoutMs) => runRemote(target, script, { timeoutMs }),
    progress: policyProgress,
    ask: policyConfirm,
    logger: w.logger,
  });
}
