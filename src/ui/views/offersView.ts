import * as vscode from 'vscode';
import { ApiError } from '../../core/api/errors';
import type { Offer } from '../../core/api/offers';
import { presentOffer } from '../../core/offers/present';
import { describePriceContext, type GpuPriceStats } from '../../core/offers/priceContext';
import { restoreSearch, type OfferSearchState } from '../../core/offers/search';
import { filtersRow, offerSpoken, offersRows, type OffersActionRow } from '../../core/offers/viewRows';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { UnreadableItem, unreadableRow } from './unreadable';
import type { PriceContextSource } from '../../core/offers/priceSource';

export class OfferItem extends vscode.TreeItem {
  constructor(
    readonly offer: Offer,
    /** Found by an interruptible search: its price is the current minimum bid. */
    private readonly bid = false,
  ) {
    const p = presentOffer(offer, { bid });
    super(p.label, vscode.TreeItemCollapsibleState.None);
    this.id = `offer-${offer.id}`;
    this.description = p.description;
    this.tooltip = new vscode.MarkdownString(p.tooltip);
    this.iconPath = new vscode.ThemeIcon('server');
    this.contextValue = 'offer';
    this.accessibilityInformation = { label: offerSpoken(offer, bid) };
  }

  /** The price context line under the tooltip ("Price: 18% under the 7-day median for …"); plain text, the GPU name being the service's. */
  setPriceContext(stats: GpuPriceStats | undefined): void {
    const tooltip = new vscode.MarkdownString(presentOffer(this.offer, { bid: this.bid }).tooltip);
    tooltip.appendMarkdown('\n\n');
    tooltip.appendText(describePriceContext(this.offer, stats));
    this.tooltip = tooltip;
  }
}

/** Header, "load more", "no results" and "relax" rows around the offers, as core/offers/viewRows.ts decided them. */
class ActionItem extends vscode.TreeItem {
  readonly kind: OffersActionRow['kind'];
  constructor(row: OffersActionRow) {
    super(row.label, vscode.TreeItemCollapsibleState.None);
    this.kind = row.kind;
    this.id = row.id;
    this.description = row.description;
    this.iconPath = new vscode.ThemeIcon(row.icon);
    this.command = row.command;
    this.tooltip = row.tooltip;
    this.contextValue = row.kind;
  }
}

export type OffersViewItem = OfferItem | ActionItem | UnreadableItem;

/**
 * Offers for the saved search (filters in the CLI's query language, plus a sort), paged by
 * "load more". When nothing matches it says which filter to relax, with a one-click fix.
 */
export class OffersView implements vscode.TreeDataProvider<OffersViewItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<OffersViewItem[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly searchChanged = new vscode.EventEmitter<OfferSearchState>();
  /** Fires after the search changed (filters, sort or pages), from any command or view. */
  readonly onDidChangeSearch = this.searchChanged.event;
  private view: vscode.TreeView<OffersViewItem> | undefined;
  private items: OffersViewItem[] = [];
  private searchState: OfferSearchState;
  private priceContext: PriceContextSource | undefined;

  constructor(
    private readonly session: Session,
    private readonly state: GpuRentalState,
  ) {
    this.searchState = restoreSearch(state.get('offerSearch'));
  }

  attach(view: vscode.TreeView<OffersViewItem>): void {
    this.view = view;
  }

  /** Where the offers' tooltips get the going rate of their GPU models. */
  usePriceContext(source: PriceContextSource): void {
    this.priceContext = source;
  }

  get search(): OfferSearchState {
    return this.searchState;
  }

  /** The offers shown now (without the header rows); integration tests read it. */
  get offers(): Offer[] {
    return this.items.filter((i): i is OfferItem => i instanceof OfferItem).map((i) => i.offer);
  }

  get current(): readonly OffersViewItem[] {
    return this.items;
  }

  async setSearch(next: Partial<OfferSearchState>): Promise<void> {
    this.searchState = { ...this.searchState, pages: 1, ...next };
    await this.state.update('offerSearch', { query: this.searchState.query, sort: this.searchState.sort });
    this.searchChanged.fire(this.searchState);
    this.refresh();
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(element: OffersViewItem): vscode.TreeItem {
    return element;
  }

  async getChildren(element?: OffersViewItem): Promise<OffersViewItem[]> {
    if (element) return [];
    this.setMessage(undefined);
    if (this.session.state.kind !== 'ready') return (this.items = []);
    const state = this.searchState;
    const header = new ActionItem(filtersRow(state));
    try {
      const { offers, after, bid } = await offersRows((request) => this.session.client.offers.search(request), state);
      // Offers the answer held but that could not be read are left out; say so rather than hide it.
      const unreadable = unreadableRow(offers, 'offer', 'offers-unreadable');
      const rows: OffersViewItem[] = [header, ...offers.map((o) => new OfferItem(o, bid)), ...(unreadable ? [unreadable] : [])];
      this.items = [...rows, ...after.map((row) => new ActionItem(row))];
      void this.addPriceContext(this.items);
    } catch (error) {
      this.items = [];
      if (error instanceof ApiError && (error.kind === 'auth' || error.kind === 'network' || error.kind === 'timeout')) {
        this.session.reportError(error);
      } else {
        this.items = [header];
        this.setMessage(error instanceof Error ? error.message : String(error));
      }
    }
    return this.items;
  }

  dispose(): void {
    this.changed.dispose();
    this.searchChanged.dispose();
  }

  /** After the rows are shown, adds each offer's price context to its tooltip; a failure leaves the tooltips as they were. */
  private async addPriceContext(rows: readonly OffersViewItem[]): Promise<void> {
    const offers = rows.filter((r): r is OfferItem => r instanceof OfferItem);
    if (!this.priceContext || offers.length === 0) return;
    const stats = await this.priceContext.statsFor(offers.map((o) => o.offer.gpu_name));
    for (const item of offers) item.setPriceContext(stats.get(item.offer.gpu_name));
    // Only the rows still shown are redrawn; a newer search has its own.
    const shown = offers.filter((o) => this.items.includes(o));
    if (shown.length > 0) this.changed.fire(shown);
  }

  private setMessage(message: string | undefined): void {
    if (this.view) this.view.message = message;
  }
}
