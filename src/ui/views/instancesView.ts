import * as vscode from 'vscode';
import { ApiError } from '../../core/api/errors';
import type { Instance } from '../../core/api/instances';
import { VIEWS } from '../../core/ids';
import type { CostTracker } from '../../core/billing/costs';
import { LifetimeCosts, tooltipWithCost } from '../../core/billing/lifetime';
import { groupClusters, type ClusterGroup } from '../../core/instances/cluster';
import { OverlayDirectory } from '../../core/instances/clusterCache';
import { presentCluster } from '../../core/instances/clusterPresent';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { viewSummary } from '../../core/instances/many';
import type { InstancePresentation, RowExtra } from '../../core/instances/present';
import type { DepositRecord } from '../../core/api/contracts';
import { tooltipWithDeposit } from '../../core/contracts/rows';
import { PresentationCache } from '../../core/instances/presentCache';
import type { Session } from '../../core/session/session';
import { UnreadableItem, unreadableRow } from './unreadable';
import type { JobItem } from './jobItems';

/** What a row shows about its contract (src/ui/guards/contracts.ts): a host's price increase, an end near, a deposit. */
export interface InstanceContracts {
  extraOf(instance: Instance): RowExtra | undefined;
  depositOf(instance: Instance): Promise<DepositRecord | undefined>;
  readonly onDidChange: vscode.Event<void>;
}

/** What shows under an instance row: its jobs. The row expands only when it has some. */
export interface InstanceChildren {
  hasJobs(instanceId: number): boolean;
  rows(instanceId: number): JobItem[];
  /** The rows are seen when the tree opens an instance: a stale listing is read again (in the background). */
  opened(instanceId: number): void;
  readonly onDidChange: vscode.Event<void>;
}

export class InstanceItem extends vscode.TreeItem {
  constructor(
    readonly instance: Instance,
    private readonly p: InstancePresentation,
    hasJobs = false,
  ) {
    super(p.label, hasJobs ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    this.id = `instance-${instance.id}`;
    this.description = p.description;
    this.iconPath = new vscode.ThemeIcon(p.icon.id, p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined);
    this.contextValue = p.contextValue;
    this.accessibilityInformation = { label: p.accessibilityLabel };
  }

  /**
   * The tooltip's Markdown without the cost so far, built when first asked: `tooltip` stays unset
   * until hovered, so that VS Code asks `resolveTreeItem`, which adds the cost (one read, cached per
   * instance).
   */
  get markdownTooltip(): string {
    return this.p.tooltip;
  }
}

/**
 * One cluster (the instances of one overlay network): its nodes are the instance rows under it, in
 * rank order, then a row for each node the overlay lists that the account does not show.
 */
export class ClusterItem extends vscode.TreeItem {
  constructor(readonly cluster: ClusterGroup) {
    const p = presentCluster(cluster);
    super(p.label, vscode.TreeItemCollapsibleState.Expanded);
    this.id = `cluster-${cluster.overlayId}`;
    this.description = p.description;
    this.tooltip = new vscode.MarkdownString(p.tooltip);
    this.iconPath = new vscode.ThemeIcon(p.icon.id, p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined);
    this.contextValue = p.contextValue;
    this.accessibilityInformation = { label: p.accessibilityLabel };
  }
}

/** A node the overlay network lists that the account's instance list does not hold: named, never dropped. */
export class MissingNodeItem extends vscode.TreeItem {
  constructor(
    readonly overlayId: number,
    readonly instanceId: number,
  ) {
    super(vscode.l10n.t('#{0}', instanceId), vscode.TreeItemCollapsibleState.None);
    this.id = `cluster-${overlayId}-missing-${instanceId}`;
    this.description = vscode.l10n.t("not among your account's instances");
    this.tooltip = vscode.l10n.t(
      "The overlay network lists instance #{0}, but your account's instance list does not show it. It may have just been rented or destroyed: refresh the view.",
      instanceId,
    );
    this.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    this.contextValue = 'clusterMissingNode';
  }
}

/**
 * The account's instances, read from the poller's snapshot (the status bar reads the same one).
 * While the view is visible the poller keeps it fresh; a failed poll keeps the last list and says so.
 */
export type InstancesViewItem = InstanceItem | ClusterItem | MissingNodeItem | UnreadableItem | JobItem;

export class InstancesView implements vscode.TreeDataProvider<InstancesViewItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  private view: vscode.TreeView<InstancesViewItem> | undefined;
  private items: InstanceItem[] = [];
  /** The same rows by instance id: a cluster's nodes are looked up here. */
  private itemsById = new Map<number, InstanceItem>();
  private clusterItems: ClusterItem[] = [];
  /** The account's overlay networks, listed once per poll the view draws; a failed listing keeps the last grouping. */
  private readonly overlays: OverlayDirectory;
  private unreadable: UnreadableItem | undefined;
  private children: InstanceChildren | undefined;
  private contracts: InstanceContracts | undefined;
  /** Each instance's cost since it started, read when its tooltip is first shown, never per poll. */
  private readonly lifetime: LifetimeCosts;
  /** Each instance's row text, presented again only when its record (or cost, or uptime as shown) changed. */
  private readonly rows = new PresentationCache();

  constructor(
    private readonly session: Session,
    private readonly poller: InstancePoller,
    private readonly costs: CostTracker,
    logger?: Logger,
  ) {
    this.overlays = new OverlayDirectory(logger);
    this.lifetime = new LifetimeCosts({ charges: (range) => session.client.billing.charges(range) });
    this.disposables.push(
      // Signed out, or on the way to another account (which passes through checking): its overlays and costs are not the next one's.
      session.onDidChangeState((state) => {
        if (state.kind === 'ready') return;
        this.overlays.forget();
        this.lifetime.forget();
        this.rows.clear();
      }),
      poller.onDidUpdate((snapshot) => {
        this.setMessage(undefined);
        this.setHeader(snapshot.instances);
        this.changed.fire();
        void costs.refresh(snapshot.instances.map((i) => i.id)).then((changed) => changed && this.changed.fire());
      }),
      poller.onDidFail((error) => this.onPollFailed(error)),
    );
  }

  attach(view: vscode.TreeView<InstancesViewItem>): void {
    this.view = view;
    this.poller.setInterest(VIEWS.instances, view.visible);
    this.setHeader(this.poller.snapshot?.instances ?? []);
    this.disposables.push(view.onDidChangeVisibility((e) => this.poller.setInterest(VIEWS.instances, e.visible)));
  }

  /** Gives the instance rows their children (jobs), and redraws when those change. */
  setChildren(children: InstanceChildren): void {
    this.children = children;
    this.disposables.push(children.onDidChange(() => this.changed.fire()));
  }

  /** Gives the rows their contracts' text, and redraws when the hosts' price increases change. */
  setContracts(contracts: InstanceContracts): void {
    this.contracts = contracts;
    this.disposables.push(contracts.onDidChange(() => this.changed.fire()));
  }

  /** The instances the view shows now, a cluster's nodes included; integration tests read it. */
  get current(): readonly InstanceItem[] {
    return this.items;
  }

  /** The cluster rows the view shows now. */
  get clusters(): readonly ClusterItem[] {
    return this.clusterItems;
  }

  /** The "N records could not be read" row shown below them, if any. */
  get unreadableRow(): UnreadableItem | undefined {
    return this.unreadable;
  }

  /** The view's badge (running instances, shown on the activity bar's container) and description (the total $/h); tests read it. */
  get header(): { badge: number | undefined; badgeTooltip: string | undefined; description: string | undefined } {
    return { badge: this.view?.badge?.value, badgeTooltip: this.view?.badge?.tooltip, description: this.view?.description };
  }

  refresh(): void {
    if (this.session.state.kind !== 'ready') this.setHeader([]);
    this.changed.fire();
  }

  getTreeItem(element: InstancesViewItem): vscode.TreeItem {
    return element;
  }

  /** On hover: an instance's tooltip with its cost so far (core/billing/lifetime.ts). */
  async resolveTreeItem(item: vscode.TreeItem, element: InstancesViewItem): Promise<vscode.TreeItem> {
    if (!(element instanceof InstanceItem)) return item;
    const [cost, deposit] = element.instance.unreadable
      ? [undefined, undefined]
      : await Promise.all([this.lifetime.costOf(element.instance), this.contracts?.depositOf(element.instance)]);
    const tooltip =
      cost === undefined
        ? element.markdownTooltip
        : tooltipWithDeposit(tooltipWithCost(element.markdownTooltip, cost, Date.now()), deposit);
    item.tooltip = new vscode.MarkdownString(tooltip);
    return item;
  }

  async getChildren(element?: InstancesViewItem): Promise<InstancesViewItem[]> {
    if (element instanceof InstanceItem && this.children) {
      this.children.opened(element.instance.id);
      return this.children.rows(element.instance.id);
    }
    if (element instanceof ClusterItem) {
      const nodes = element.cluster.nodes.map((i) => this.itemsById.get(i.id) ?? this.itemOf(i));
      return [...nodes, ...element.cluster.missing.map((id) => new MissingNodeItem(element.cluster.overlayId, id))];
    }
    if (element) return [];
    this.unreadable = undefined;
    if (this.session.state.kind !== 'ready') {
      this.setHeader([]);
      this.clusterItems = [];
      this.itemsById = new Map();
      return (this.items = []);
    }
    if (!this.poller.snapshot) {
      await this.poller.refresh();
    }
    const snapshot = this.poller.snapshot;
    const instances = snapshot?.instances ?? [];
    // Listed once per poll (the snapshot is the cycle); a failure keeps the last grouping, and an
    // instance no known overlay lists stays a plain row, so a failure never hides one.
    const known = snapshot ? await this.overlays.forCycle(snapshot, () => this.session.client.clusters.overlays()) : undefined;
    const grouping = groupClusters(instances, known?.overlays ?? this.overlays.last);
    const shown = (i: Instance) => i.actual_status !== 'destroyed';
    const plain = grouping.plain.filter(shown).map((i) => this.itemOf(i));
    this.clusterItems = grouping.clusters.map((c) => new ClusterItem(c));
    this.items = [...grouping.clusters.flatMap((c) => c.nodes.filter(shown).map((i) => this.itemOf(i))), ...plain];
    this.itemsById = new Map();
    for (const item of this.items) this.itemsById.set(item.instance.id, item);
    this.rows.retain(instances);
    // Records the list could not read: those with an id are among the items (as "#id (details
    // unreadable)"), the others are only counted here.
    this.unreadable = unreadableRow(instances, 'instance', 'instances-unreadable');
    const rows: InstancesViewItem[] = [...this.clusterItems, ...plain];
    return this.unreadable ? [...rows, this.unreadable] : rows;
  }

  private itemOf(i: Instance): InstanceItem {
    const p = this.rows.present(i, { nowMs: Date.now(), costSoFar: this.costs.costOf(i.id), extra: this.contracts?.extraOf(i) });
    return new InstanceItem(i, p, this.children?.hasJobs(i.id));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
  }

  private onPollFailed(error: unknown): void {
    if (
      error instanceof ApiError &&
      (error.kind === 'auth' || (!this.poller.snapshot && (error.kind === 'network' || error.kind === 'timeout')))
    ) {
      this.session.reportError(error);
      return;
    }
    const problem = error instanceof Error ? error.message : String(error);
    this.setMessage(
      this.poller.snapshot
        ? vscode.l10n.t('{0} Showing the list from {1}.', problem, new Date(this.poller.snapshot.at).toLocaleTimeString())
        : problem,
    );
    if (!this.poller.snapshot) this.changed.fire();
  }

  /** From the same list as the account status bar's burn rate, so the two totals agree. */
  private setHeader(instances: readonly Instance[]): void {
    if (!this.view) return;
    const summary = viewSummary(instances);
    this.view.badge = summary.badgeTooltip ? { value: summary.running, tooltip: summary.badgeTooltip } : undefined;
    this.view.description = summary.description;
  }

  private setMessage(message: string | undefined): void {
    if (this.view) this.view.message = message;
  }
}
