import type { Offer, SearchOffersRequest } from '../../api/offers';
import { unreadableOf } from '../../api/unreadable';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import type { GpuPriceStats } from '../priceContext';
import { mayLoadMore, parseQuery, searchRequest, withFilter, type OfferSearchState } from '../search';
import { readColumnLayout, type ColumnLayout } from './columns';
import { EXPLORER_PAGE_SIZE, nextPages, readWebviewMessage, type ExtensionMessage, type TimingName, type WebviewMessage } from './protocol';
import { encodeOffers, pageFields, type TransferField } from './transfer';

/*
 * The Offer Explorer's decisions, apart from the webview panel: what each checked message from the
 * webview does, which search's answer is shown, when the panel follows the Offers view's search,
 * and what it says when a search fails. The ui (src/ui/views/explorerPanel.ts) owns the panel and
 * hands this what it reads and acts through.
 */

/** What the explorer reads and acts through. */
export interface ExplorerPort {
  /** Posts to the webview (nothing when no panel is open). */
  post(message: ExtensionMessage): void;
  isOpen(): boolean;
  signedIn(): boolean;
  /** The Offers view's search, which the panel follows; setting it reloads the panel through `searchChanged`. */
  search(): OfferSearchState;
  setSearch(next: Partial<OfferSearchState>): Promise<void>;
  searchOffers(request: SearchOffersRequest): Promise<Offer[]>;
  /** Going rates per GPU model; never throws, a missing model is simply absent. */
  priceStats?(gpuNames: string[]): Promise<Map<string, GpuPriceStats>>;
  /** The rent command, with the offer (or an id the panel never listed); resolves with the new instance's id, if rented. */
  rent(offer: Offer | number): Promise<number | undefined>;
  /** The Rent Cluster… command with a cluster of the last results and its offers; resolves with the ids of the nodes rented, if any. */
  rentCluster(request: ClusterRentRequest): Promise<readonly number[] | undefined>;
  copyText(text: string): Promise<void>;
  readonly layout: { get(): unknown; set(layout: ColumnLayout): Promise<void> };
  readonly logger: Logger;
}

/** What Rent Cluster… from the explorer hands the command: a cluster of the last results, and the offers of it the page listed. */
export interface ClusterRentRequest {
  readonly clusterId: number;
  readonly offerIds: readonly number[];
}

/** What the webview measured last, per step: for the benchmark and the integration test. */
export type ExplorerTimings = Partial<Record<TimingName, { ms: number; rows: number }>>;

/** The panel as tests see it. */
export interface ExplorerSnapshot {
  readonly open: boolean;
  /** How many times a webview said `ready` (opened, shown again after hiding, restored after a reload). */
  readonly readyCount: number;
  /** The query of the offers shown, and the offers. */
  readonly query: string | undefined;
  readonly shown: readonly Offer[];
  /** What the panel says about the last search when it failed (the query stays). */
  readonly error: string | undefined;
  readonly timings: ExplorerTimings;
}

/**
 * Searches with the Offers view's query (EXPLORER_PAGE_SIZE offers a page instead of the view's
 * 50) and keeps the query in sync both ways. Everything the webview sends is checked
 * (readWebviewMessage) before it is acted on; only the newest search's answer is shown.
 */
export class ExplorerController {
  private pages = 1;
  private offers: Offer[] = [];
  private searchSeq = 0;
  private ready = false;
  private readyCount = 0;
  private shownQuery: string | undefined;
  private shownError: string | undefined;
  /** The view's sort and query the panel last followed. */
  private searchKey: string | undefined;
  private readonly timingsSeen: ExplorerTimings = {};
  /** What the page was last told of the offers shown besides the offers, to send them again with more fields. */
  private shownMeta: Omit<Extract<ExtensionMessage, { type: 'offers' }>, 'type' | 'offers' | 'sentAt'> | undefined;
  /** The fields of the offers the page holds. */
  private sentFields: ReadonlySet<TransferField> = new Set();

  constructor(private readonly port: ExplorerPort) {}

  snapshot(): ExplorerSnapshot {
    const { readyCount, offers: shown, shownQuery: query, shownError: error } = this;
    return { open: this.port.isOpen(), readyCount, query, shown, error, timings: { ...this.timingsSeen } };
  }

  /** A new webview was attached (opened or restored): it is not ready until it says so. */
  attached(): void {
    this.ready = false;
  }

  /** The Offers view's search changed: its own "Load more" changes only its page count; the panel pages on its own. */
  async searchChanged(search: OfferSearchState): Promise<void> {
    const key = `${search.sort} ${search.query}`;
    if (key === this.searchKey) return;
    this.searchKey = key;
    this.pages = 1;
    if (this.port.isOpen() && this.ready) await this.load();
  }

  /** Handles what the webview sent, after checking it; a message it should not send is logged (its type only) and ignored. */
  async receive(raw: unknown): Promise<void> {
    const message = readWebviewMessage(raw);
    if (!message) {
      this.port.logger.warn(`Offer Explorer: ignored a message the webview should not send (${describe(raw)}).`);
      return;
    }
    await this.handle(message);
  }

  private async handle(m: WebviewMessage): Promise<void> {
    const { port } = this;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.readyCount++;
        port.post({ type: 'layout', layout: readColumnLayout(port.layout.get()) });
        return this.load();
      case 'setQuery':
        // The view fires its change, which reloads the panel with the new query.
        return m.query !== port.search().query ? port.setSearch({ query: m.query }) : this.load();
      case 'loadMore': {
        const pages = nextPages(this.pages);
        if (pages === undefined) return;
        this.pages = pages;
        return this.load();
      }
      case 'offerDetails': {
        const offer = this.offers.find((o) => o.id === m.offerId);
        // An id of other results than these is not answered: the page shows the row it has.
        if (offer) port.post({ type: 'offerDetails', offer: { ...offer } });
        return;
      }
      case 'rent': {
        // An id the panel never listed is looked up by the rent command itself.
        const rented = await port.rent(this.offers.find((o) => o.id === m.offerId) ?? m.offerId);
        // A rented offer is no longer on offer: search again so the table says so.
        if (typeof rented === 'number') await this.load();
        return;
      }
      case 'copyId':
        // Only the number reaches the clipboard; the message was checked to hold a positive integer.
        await port.copyText(String(m.offerId));
        port.post({ type: 'notice', text: l10n.t('Copied offer ID {0}', m.offerId) });
        return;
      case 'machineOffers':
        return port.setSearch({ query: withFilter(port.search().query, 'machine_id', { eq: m.machineId }) });
      case 'clusterOffers':
        return port.setSearch({ query: withFilter(port.search().query, 'cluster_id', { eq: m.clusterId }) });
      case 'rentCluster':
        return this.rentCluster({ clusterId: m.clusterId, offerIds: m.offerIds });
      case 'layout': {
        await port.layout.set(m.layout);
        // A column shown now may read a field the page does not have: send the offers again with it.
        const missing = pageFields(m.layout.visible).some((f) => !this.sentFields.has(f));
        if (missing && this.shownMeta && this.ready && port.isOpen()) this.postOffers();
        return;
      }
      case 'timing':
        this.timingsSeen[m.name] = { ms: m.ms, rows: m.rows };
        port.logger.info(`Offer Explorer: ${m.name} of ${m.rows} offers took ${m.ms.toFixed(1)} ms in the webview.`);
        return;
    }
  }

  /**
   * Rent Cluster… for a cluster the last results hold, with offers of that cluster from them; else
   * nothing is rented: the page showed other results than the extension has, so it says so and
   * searches again. Once nodes are rented, searching again shows they are no longer on offer.
   */
  private async rentCluster(request: ClusterRentRequest): Promise<void> {
    const { port } = this;
    const ofCluster = new Set(this.offers.filter((o) => o.cluster_id === request.clusterId).map((o) => o.id));
    if (ofCluster.size === 0 || request.offerIds.some((id) => !ofCluster.has(id))) {
      port.logger.warn(
        `Offer Explorer: refused Rent Cluster for cluster ${request.clusterId}: it or its offers are not in the last results.`,
      );
      port.post({
        type: 'notice',
        text: l10n.t(
          'GPU Rental: the offers of cluster {0} changed since they were shown. Look at the cluster again, then choose Rent Cluster… once more.',
          request.clusterId,
        ),
      });
      return this.load();
    }
    const rented = await port.rentCluster(request);
    if (rented && rented.length > 0) await this.load();
  }

  /** Searches with the view's query and this panel's page count; only the newest search's answer is shown. */
  private async load(): Promise<void> {
    const { port } = this;
    const seq = ++this.searchSeq;
    const search = port.search();
    const query = search.query;
    port.post({ type: 'loading', query });
    if (!port.signedIn()) {
      port.post({ type: 'error', query, message: l10n.t('GPU Rental: sign in to search offers (GPU Rental: Set API Key).') });
      return;
    }
    try {
      const request = searchRequest({ ...search, pages: this.pages }, EXPLORER_PAGE_SIZE);
      const offers = await port.searchOffers(request);
      if (seq !== this.searchSeq || !port.isOpen()) return;
      const unreadable = unreadableOf(offers)?.dropped ?? 0;
      this.offers = offers;
      this.shownQuery = query;
      this.shownError = undefined;
      const canLoadMore =
        nextPages(this.pages) !== undefined &&
        mayLoadMore({ ...search, pages: this.pages }, offers.length + unreadable, EXPLORER_PAGE_SIZE);
      const ownLimit = parseQuery(query).limit !== undefined;
      this.shownMeta = { query, offerType: request.query.type, unreadable, canLoadMore, ownLimit };
      this.postOffers();
      await this.sendPriceStats(offers, seq);
    } catch (error) {
      if (seq !== this.searchSeq) return;
      const message = error instanceof Error ? error.message : String(error);
      this.shownError = l10n.t('GPU Rental: the search failed: {0}. Change the query or try again.', message);
      port.post({ type: 'error', query, message: this.shownError });
    }
  }

  /** Posts the offers shown with the fields the page needs now (the visible columns', the query's filters'). */
  private postOffers(): void {
    const meta = this.shownMeta;
    if (!meta) return;
    const sentAt = Date.now();
    const fields = pageFields(readColumnLayout(this.port.layout.get()).visible, Object.keys(queryFilters(meta.query)));
    this.sentFields = new Set(fields);
    this.port.post({ type: 'offers', ...meta, offers: encodeOffers(this.offers, fields), sentAt });
  }

  private async sendPriceStats(offers: readonly Offer[], seq: number): Promise<void> {
    if (!this.port.priceStats || offers.length === 0) return;
    const stats = await this.port.priceStats([...new Set(offers.map((o) => o.gpu_name))]);
    if (seq !== this.searchSeq) return;
    this.port.post({ type: 'priceStats', stats: Object.fromEntries(stats) });
  }
}

/** The query's filters; none when it does not parse (the search that showed it parsed it). */
function queryFilters(query: string): Record<string, unknown> {
  try {
    return parseQuery(query).filters;
  } catch {
    return {};
  }
}

/** A short, safe description of a refused message for the log: its type, never its content. */
function describe(raw: unknown): string {
  if (raw && typeof raw === 'object' && typeof (raw as { type?: unknown }).type === 'string') {
    return `type ${JSON.stringify((raw as { type: string }).type.slice(0, 40))}`;
  }
  return typeof raw;
}
