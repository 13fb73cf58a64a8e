import * as vscode from 'vscode';
import type { CostTracker } from '../../core/billing/costs';
import type { InstancePoller } from '../../core/instances/poller';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { AccountView } from './account/accountView';
import { InstancesView, type InstancesViewItem } from './instancesView';
import { OffersView, type OffersViewItem } from './offersView';
import type { ShellParts } from '../shell/parts';

/**
 * The three views of the activity bar. Their tree views were created in activate() with stand-in
 * providers (src/ui/shell/); the real providers take them over here.
 */
export class TreeViews implements vscode.Disposable {
  readonly instances: InstancesView;
  readonly offers: OffersView;
  readonly account: AccountView;
  private readonly disposables: vscode.Disposable[];

  constructor(trees: ShellParts['trees'], session: Session, poller: InstancePoller, costs: CostTracker, state: GpuRentalState) {
    this.instances = new InstancesView(session, poller, costs);
    this.offers = new OffersView(session, state);
    this.account = new AccountView(session);
    trees.instances.attach(this.instances as vscode.TreeDataProvider<unknown>);
    trees.offers.attach(this.offers as vscode.TreeDataProvider<unknown>);
    trees.account.attach(this.account as vscode.TreeDataProvider<unknown>);
    this.instances.attach(trees.instances.view as vscode.TreeView<InstancesViewItem>);
    this.offers.attach(trees.offers.view as vscode.TreeView<OffersViewItem>);
    this.disposables = [this.instances, this.offers, this.account];
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
