import * as vscode from 'vscode';
import { COMMANDS, EXPLORER_VIEW_TYPE } from '../../core/ids';
import type { Logger } from '../../core/log';
import { ExplorerController, type ExplorerSnapshot } from '../../core/offers/explorer/controller';
import type { GpuPriceStats } from '../../core/offers/priceContext';
import { l10nDataBlock } from '../../core/offers/explorer/l10nData';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import type { OffersView } from './offersView';

export type { ExplorerSnapshot, ExplorerTimings } from '../../core/offers/explorer/controller';

export interface ExplorerDeps {
  readonly session: Session;
  readonly offersView: OffersView;
  readonly state: Pick<GpuRentalState, 'get' | 'update'>;
  readonly extensionUri: vscode.Uri;
  readonly logger: Logger;
  /** Going rates per GPU model (src/core/offers/priceSource.ts); never throws, a missing model is simply absent. */
  readonly priceStats?: (gpuNames: string[]) => Promise<Map<string, GpuPriceStats>>;
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
  /** What each message does, and which search is shown: decided in core. */
  private readonly controller: ExplorerController;

  constructor(private readonly deps: ExplorerDeps) {
    const { offersView, session, state } = deps;
    this.controller = new ExplorerController({
      post: (message) => void this.panel?.webview.postMessage(message),
      isOpen: () => this.panel !== undefined,
      signedIn: () => session.state.kind === 'ready',
      search: () => offersView.search,
      setSearch: (next) => offersView.setSearch(next),
      searchOffers: (request) => session.client.offers.search(request),
      priceStats: deps.priceStats,
      rent: async (offer) => await vscode.commands.executeCommand<number | undefined>(COMMANDS.rentOffer, offer),
      rentCluster: async ({ clusterId, offerIds }) =>
        instanceIds(await vscode.commands.executeCommand<unknown>(COMMANDS.rentCluster, { clusterId, offerIds: [...offerIds] })),
      copyText: async (text) => await vscode.env.clipboard.writeText(text),
      layout: { get: () => state.get('explorerColumns'), set: (layout) => state.update('explorerColumns', layout) },
      logger: deps.logger,
    });
    // The panel serializer is the activation chunk's (src/ui/shell/shell.ts): it hands restored panels to `restore`.
    this.disposables.push(offersView.onDidChangeSearch((search) => void this.controller.searchChanged(search)));
  }

  snapshot(): ExplorerSnapshot {
    return this.controller.snapshot();
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
  receive(raw: unknown): Promise<void> {
    return this.controller.receive(raw);
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

  /** Takes over a panel VS Code restored after a reload (the activation chunk's serializer hands it over). */
  restore(panel: vscode.WebviewPanel): void {
    this.attach(panel);
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.controller.attached();
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
        this.controller.attached();
      }),
    ];
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

/** The nodes Rent Cluster… rented, when it answers with their instance ids; anything else reads as none. */
function instanceIds(result: unknown): number[] | undefined {
  return Array.isArray(result) && result.every((id) => typeof id === 'number') ? (result as number[]) : undefined;
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
