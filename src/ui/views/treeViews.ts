import * as vscode from 'vscode';
import type { CostTracker } from '../../core/billing/costs';
import { VIEWS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { AccountView } from './account/accountView';
import { InstancesView } from './instancesView';
import { OffersView } from './offersView';

/** The three views of the activity bar, each with its tree view registered. */
export class TreeViews implements vscode.Disposable {
  readonly instances: InstancesView;
  readonly offers: OffersView;
  readonly account: AccountView;
  private readonly disposables: vscode.Disposable[];

  constructor(session: Session, poller: InstancePoller, costs: CostTracker, state: GpuRentalState) {
    this.instances = new InstancesView(session, poller, costs);
    this.offers = new OffersView(session, state);
    this.account = new AccountView(session);
    const instancesTree = vscode.window.createTreeView(VIEWS.instances, {
      treeDataProvider: this.instances,
      // Stop, Start and Destroy take the selection: several instances with one confirmation.
      canSelectMany: true,
    });
    const offersTree = vscode.window.createTreeView(VIEWS.offers, { treeDataProvider: this.offers });
    this.instances.attach(instancesTree);
    this.offers.attach(offersTree);
    const accountTree = vscode.window.createTreeView(VIEWS.account, { treeDataProvider: this.account });
    this.disposables = [this.instances, this.offers, this.account, instancesTree, offersTree, accountTree];
  }

  /** Reloads all three, as after a change of account. */
  refresh(): void {
    this.instances.refresh();
    this.offers.refresh();
    this.account.refresh();
  }

  dispose(): void {
    for (const d of this.disposables.reverse()) d.dispose();
  }
}
