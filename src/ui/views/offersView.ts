import * as vscode from 'vscode';
import { ApiError } from '../../core/api/errors';
import { unreadableOf } from '../../core/api/unreadable';
import type { Offer } from '../../core/api/offers';
import { COMMANDS } from '../../core/ids';
import { spokenRate } from '../../core/instances/present';
import { presentOffer } from '../../core/offers/present';
import { describePriceContext, type GpuPriceStats } from '../../core/offers/priceContext';
import {
  OFFER_SORTS,
  describeDiskPricing,
  describeSearch,
  mayLoadMore,
  relaxations,
  restoreSearch,
  searchDiskGb,
  searchRequest,
  type OfferSearchState,
} from '../../core/offers/search';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { UnreadableItem, unreadableRow } from './unreadable';
import type { PriceContextSource } from '../priceContext';

/** At most this many filters are tried one by one when a search finds nothing. */
const MAX_RELAX_PROBES = 6;

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
    // Read aloud without the "·" separators and abbreviations: "RTX 4090 times 2 offer, 82 cents per hour, 24 GB of VRAM each, in Texas, US".
    const gpus = offer.num_gpus > 1 ? vscode.l10n.t('{0} times {1}', offer.gpu_name, offer.num_gpus) : offer.gpu_name;
    const vram = offer.gpu_ram
      ? offer.num_gpus > 1
        ? vscode.l10n.t(', {0} GB of VRAM each', Math.round(offer.gpu_ram / 1024))
        : vscode.l10n.t(', {0} GB of VRAM', Math.round(offer.gpu_ram / 1024))
      : '';
    const where = offer.geolocation ? vscode.l10n.t(', in {0}', offer.geolocation) : '';
    const rate = spokenRate(offer.dph_total);
    this.accessibilityInformation = {
      label: bid
        ? vscode.l10n.t('{0} offer, bids from {1}{2}{3}', gpus, rate, vram, where)
        : vscode.l10n.t('{0} offer, {1}{2}{3}', gpus, rate, vram, where),
    };
  }

  /** The price context line under the tooltip ("Price: 18% under the 7-day median for …"); plain text, the GPU name being the service's. */
  setPriceContext(stats: GpuPriceStats | undefined): void {
    const tooltip = new vscode.MarkdownString(presentOffer(this.offer, { bid: this.bid }).tooltip);
    tooltip.appendMarkdown('\n\n');
    tooltip.appendText(describePriceContext(this.offer, stats));
    this.tooltip = tooltip;
  }
}

/** Header, "load more", "no results" and "relax" rows around the offers. */
class ActionItem extends vscode.TreeItem {
  constructor(
    label: string,
    description: string,
    icon: string,
    command: vscode.Command | undefined,
    readonly kind: 'filters' | 'more' | 'empty' | 'relax',
    id: string,
  ) {
    super(label, vscode.TreeItemCollapsibleState.None);
    this.id = id;
    this.description = description;
    this.iconPath = new vscode.ThemeIcon(icon);
    this.command = command;
    this.contextValue = kind;
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
    const header = new ActionItem(
      vscode.l10n.t('Filters'),
      `${describeSearch(state)} · ${OFFER_SORTS[state.sort].label.toLowerCase()} · ${describeDiskPricing(state.query)}`,
      'filter',
      { title: vscode.l10n.t('Search Offers'), command: COMMANDS.searchOffers },
      'filters',
      'offers-filters',
    );
    header.tooltip = vscode.l10n.t(
      'Click to change the filters. The query uses the same language as the marketplace CLI.\n\nEach price includes {0} GB of disk, the size a rent starts with; add allocated_storage=N to the query to price another size.',
      searchDiskGb(state.query),
    );
    try {
      const request = searchRequest(state);
      const offers = await this.session.client.offers.search(request);
      const bid = request.query.type === 'bid';
      const rows: OffersViewItem[] = [header, ...offers.map((o) => new OfferItem(o, bid))];
      // Offers the answer held but that could not be read are left out; say so rather than hide it.
      const unreadable = unreadableRow(offers, 'offer', 'offers-unreadable');
      if (unreadable) rows.push(unreadable);
      // A full page, counting the offers left out, means there may be more.
      if (mayLoadMore(state, offers.length + (unreadableOf(offers)?.dropped ?? 0))) {
        rows.push(
          new ActionItem(
            vscode.l10n.t('Load more…'),
            `showing ${offers.length}`,
            'fold-down',
            { title: vscode.l10n.t('Load More'), command: COMMANDS.loadMoreOffers },
            'more',
            'offers-more',
          ),
        );
      }
      if (offers.length === 0 && !unreadable) rows.push(...(await this.noResults(state)));
      this.items = rows;
      void this.addPriceContext(rows);
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

  /** Tries the search without each filter in turn, and offers the ones that find something. */
  private async noResults(state: OfferSearchState): Promise<OffersViewItem[]> {
    const rows: OffersViewItem[] = [
      new ActionItem(
        vscode.l10n.t('No offers match these filters'),
        vscode.l10n.t('relax one below'),
        'info',
        undefined,
        'empty',
        'offers-empty',
      ),
    ];
    const candidates = relaxations(state.query).slice(0, MAX_RELAX_PROBES);
    for (const candidate of candidates) {
      const found = await this.session.client.offers.search(searchRequest({ ...state, query: candidate.without }, 1)).catch(() => []);
      if (found.length === 0) continue;
      rows.push(
        new ActionItem(
          vscode.l10n.t('Remove {0}', candidate.description),
          vscode.l10n.t('finds offers'),
          'debug-restart',
          { title: vscode.l10n.t('Relax'), command: COMMANDS.searchOffers, arguments: [candidate.without] },
          'relax',
          `offers-relax-${candidate.field}`,
        ),
      );
    }
    if (rows.length === 1) {
      rows.push(
        new ActionItem(
          vscode.l10n.t('Clear all filters'),
          '',
          'clear-all',
          { title: vscode.l10n.t('Clear'), command: COMMANDS.clearOfferFilters },
          'relax',
          'offers-relax-all',
        ),
      );
    }
    return rows;
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
