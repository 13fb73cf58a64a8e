import * as vscode from 'vscode';
import type { Offer } from '../../core/api/offers';
import { unreadableOf } from '../../core/api/unreadable';
import { COMMANDS } from '../../core/ids';
import type { Logger } from '../../core/log';
import { readColumnLayout } from '../../core/offers/explorer/columns';
import {
  EXPLORER_PAGE_SIZE,
  nextPages,
  readWebviewMessage,
  type ExtensionMessage,
  type TimingName,
  type WebviewMessage,
} from '../../core/offers/explorer/protocol';
import type { GpuPriceStats } from '../../core/offers/priceContext';
import { l10nDataBlock } from '../../core/offers/explorer/l10nData';
import { mayLoadMore, parseQuery, searchRequest, withFilter } from '../../core/offers/search';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import type { OffersView } from '../views/offersView';

/** The webview panel type; the serializer restores panels of it after a reload. */
export const EXPLORER_VIEW_TYPE = 'gpuRental.offerExplorer';

export interface ExplorerDeps {
  readonly session: Session;
  readonly offersView: OffersView;
  readonly state: Pick<GpuRentalState, 'get' | 'update'>;
  readonly extensionUri: vscode.Uri;
  readonly logger: Logger;
  /** Going rates per GPU model (src/ui/priceContext.ts); never throws, a missing model is simply absent. */
  readonly priceStats?: (gpuNames: string[]) => Promise<Map<string, GpuPriceStats>>;
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
 * The Offer Explorer panel: one at a time, revealed when opened again. It searches with the
 * Offers view's query (asking for EXPLORER_PAGE_SIZE offers a page instead of the view's 50) and
 * keeps the query in sync both ways: a filter changed here goes to `offersView.setSearch`, and
 * every change of the view's search reloads the panel. Everything the webview sends is checked
 * (readWebviewMessage) before it is acted on.
 */
export class OfferExplorer implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private panelDisposables: vscode.Disposable[] = [];
  private readonly disposables: vscode.Disposable[] = [];
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

  constructor(private readonly deps: ExplorerDeps) {
    this.disposables.push(
      deps.offersView.onDidChangeSearch((search) => {
        // The view's own "Load more" changes only its page count; the panel pages on its own.
        const key = `${search.sort} ${search.query}`;
        if (key === this.searchKey) return;
        this.searchKey = key;
        this.pages = 1;
        if (this.panel && this.ready) void this.load();
      }),
      vscode.window.registerWebviewPanelSerializer(EXPLORER_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.attach(panel),
      }),
    );
  }

  snapshot(): ExplorerSnapshot {
    return {
      open: this.panel !== undefined,
      readyCount: this.readyCount,
      query: this.shownQuery,
      shown: this.offers,
      error: this.shownError,
      timings: { ...this.timingsSeen },
    };
  }

  /** Opens the panel, or brings the open one to the front. */
  open(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      EXPLORER_VIEW_TYPE,
      vscode.l10n.t('Offer Explorer'),
      vscode.ViewColumn.Active,
      this.webviewOptions(),
    );
    this.attach(panel);
  }

  /** Handles a message as if the webview had sent it (the integration test drives the panel this way). */
  async receive(raw: unknown): Promise<void> {
    const message = readWebviewMessage(raw);
    if (!message) {
      this.deps.logger.warn(`Offer Explorer: ignored a message the webview should not send (${describe(raw)}).`);
      return;
    }
    await this.handle(message);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }

  private webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      // State survives hiding through the webview's getState/setState, not by keeping it alive.
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, 'dist', 'webview')],
    };
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.ready = false;
    panel.webview.options = this.webviewOptions();
    panel.webview.html = this.html(panel.webview);
    this.panelDisposables = [
      panel.webview.onDidReceiveMessage((raw: unknown) =>
        this.receive(raw).catch((error: unknown) => this.deps.logger.error(`Offer Explorer: ${String(error)}`)),
      ),
      panel.onDidDispose(() => {
        for (const d of this.panelDisposables) d.dispose();
        this.panelDisposables = [];
        this.panel = undefined;
        this.ready = false;
      }),
    ];
  }

  private async handle(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.readyCount++;
        this.post({ type: 'layout', layout: readColumnLayout(this.deps.state.get('explorerColumns')) });
        await this.load();
        return;
      case 'setQuery':
        // The view fires onDidChangeSearch, which reloads the panel with the new query.
        if (m.query !== this.deps.offersView.search.query) await this.deps.offersView.setSearch({ query: m.query });
        else await this.load();
        return;
      case 'loadMore': {
        const pages = nextPages(this.pages);
        if (pages === undefined) return;
        this.pages = pages;
        await this.load();
        return;
      }
      case 'rent': {
        const offer = this.offers.find((o) => o.id === m.offerId);
        // An id the panel never listed is looked up by the rent command itself.
        const rented = await vscode.commands.executeCommand<number | undefined>(COMMANDS.rentOffer, offer ?? m.offerId);
        // A rented offer is no longer on offer: search again so the table says so.
        if (typeof rented === 'number') await this.load();
        return;
      }
      case 'copyId':
        // Only the number reaches the clipboard; the message was checked to hold a positive integer.
        await vscode.env.clipboard.writeText(String(m.offerId));
        this.post({ type: 'notice', text: vscode.l10n.t('Copied offer ID {0}', m.offerId) });
        return;
      case 'machineOffers': {
        const query = withFilter(this.deps.offersView.search.query, 'machine_id', { eq: m.machineId });
        await this.deps.offersView.setSearch({ query });
        return;
      }
      case 'layout':
        await this.deps.state.update('explorerColumns', m.layout);
        return;
      case 'timing':
        this.timingsSeen[m.name] = { ms: m.ms, rows: m.rows };
        this.deps.logger.info(`Offer Explorer: ${m.name} of ${m.rows} offers took ${m.ms.toFixed(1)} ms in the webview.`);
        return;
    }
  }

  /** Searches with the view's query and this panel's page count; only the newest search's answer is shown. */
  private async load(): Promise<void> {
    const seq = ++this.searchSeq;
    const search = this.deps.offersView.search;
    const query = search.query;
    this.post({ type: 'loading', query });
    if (this.deps.session.state.kind !== 'ready') {
      this.post({ type: 'error', query, message: vscode.l10n.t('GPU Rental: sign in to search offers (GPU Rental: Set API Key).') });
      return;
    }
    try {
      const request = searchRequest({ ...search, pages: this.pages }, EXPLORER_PAGE_SIZE);
      const offers = await this.deps.session.client.offers.search(request);
      if (seq !== this.searchSeq || !this.panel) return;
      const unreadable = unreadableOf(offers)?.dropped ?? 0;
      this.offers = offers;
      this.shownQuery = query;
      this.shownError = undefined;
      const ownLimit = parseQuery(query).limit !== undefined;
      this.post({
        type: 'offers',
        query,
        offerType: request.query.type,
        // A plain copy: the list carries a hidden count of unreadable offers that need not travel.
        offers: [...offers],
        unreadable,
        canLoadMore:
          nextPages(this.pages) !== undefined &&
          mayLoadMore({ ...search, pages: this.pages }, offers.length + unreadable, EXPLORER_PAGE_SIZE),
        ownLimit,
      });
      await this.sendPriceStats(offers, seq);
    } catch (error) {
      if (seq !== this.searchSeq) return;
      const message = error instanceof Error ? error.message : String(error);
      this.shownError = vscode.l10n.t('GPU Rental: the search failed: {0}. Change the query or try again.', message);
      this.post({ type: 'error', query, message: this.shownError });
    }
  }

  private async sendPriceStats(offers: readonly Offer[], seq: number): Promise<void> {
    if (!this.deps.priceStats || offers.length === 0) return;
    const names = [...new Set(offers.map((o) => o.gpu_name))];
    const stats = await this.deps.priceStats(names);
    if (seq !== this.searchSeq) return;
    this.post({ type: 'priceStats', stats: Object.fromEntries(stats) });
  }

  private post(message: ExtensionMessage): void {
    void this.panel?.webview.postMessage(message);
  }

  private html(webview: vscode.Webview): string {
    const nonce = makeNonce();
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.deps.extensionUri, 'dist', 'webview', name)).toString();
    const csp = [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src ${webview.cspSource} 'nonce-${nonce}'`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="${pageLanguage()}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${asset('codicon.css')}" nonce="${nonce}">
<link rel="stylesheet" href="${asset('explorer.css')}" nonce="${nonce}">
<title>${escapeHtml(vscode.l10n.t('Offer Explorer'))}</title>
${l10nDataBlock(vscode.l10n.bundle)}
</head>
<body>
<script nonce="${nonce}" src="${asset('explorer.js')}"></script>
</body>
</html>`;
  }
}

/** VS Code's display language for the page's `lang` (screen readers pick a voice by it); English if it is not a plain tag. */
function pageLanguage(): string {
  return /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(vscode.env.language) ? vscode.env.language : 'en';
}

/** Text for an HTML text node: a translation is shown as written, never read as markup. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function makeNonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '');
}

/** A short, safe description of a refused message for the log: its type, never its content. */
function describe(raw: unknown): string {
  if (raw && typeof raw === 'object' && typeof (raw as { type?: unknown }).type === 'string') {
    return `type ${JSON.stringify((raw as { type: string }).type.slice(0, 40))}`;
  }
  return typeof raw;
}
