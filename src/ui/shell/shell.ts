import * as vscode from 'vscode';
import { COMMAND_IDS, EXPLORER_VIEW_TYPE, VIEWS } from '../../core/ids';
import { registerCommandStubs } from '../commands/registry';
import type { ActivationTiming, LoadedMain, ShellParts, ShellTree } from './parts';
import { ProxyTreeProvider } from './proxyTree';

type MainModule = typeof import('../../main');

/**
 * When nothing asked for the rest sooner, the start-up work (the key, the status bar, unsettled
 * rents, a Remote-SSH window's heartbeat) loads it this long after activation: after the
 * extensions VS Code activates beside this one, whose clocks run while they wait their turn.
 */
const START_UP_DELAY_MS = 250;

/**
 * What activation does, and all the code it evaluates (dist/extension.js): the three views with
 * stand-in providers, a stub for every command, the link handler and the Offer Explorer's panel
 * serializer. Everything else, the client and zod included, is dist/main.js (src/main.ts), loaded
 * synchronously the first time anything needs it: a view shown, a command run, a link opened, a
 * panel restored, or the start-up work.
 */
export class Shell implements vscode.Disposable {
  private loaded: LoadedMain | undefined;
  private loading = false;
  private failed = false;
  private timer: NodeJS.Timeout | undefined;
  private activation: ActivationTiming = { moduleMs: 0, apiMs: 0, activateMs: 0 };
  private readonly trees: ShellParts['trees'];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    /** dist/main.js beside this bundle. */
    private readonly mainPath: string,
  ) {
    const tree = (id: string, canSelectMany: boolean): ShellTree => {
      const provider = new ProxyTreeProvider(() => this.load(`view ${id}`));
      // Stop, Start and Destroy take the Instances view's selection: several with one confirmation.
      const view = vscode.window.createTreeView<unknown>(id, { treeDataProvider: provider, canSelectMany });
      this.disposables.push(provider, view);
      return { view, attach: (target) => provider.attach(target) };
    };
    this.trees = { instances: tree(VIEWS.instances, true), offers: tree(VIEWS.offers, false), account: tree(VIEWS.account, false) };
    this.disposables.push(
      ...registerCommandStubs(COMMAND_IDS, (id) => this.load(`command ${id}`)?.commands.get(id)),
      vscode.window.registerUriHandler({ handleUri: (uri) => this.load('link')?.uriHandler.handleUri(uri) }),
      vscode.window.registerWebviewPanelSerializer(EXPLORER_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.load(`restore ${EXPLORER_VIEW_TYPE}`)?.restoreExplorer(panel),
      }),
    );
  }

  /** Notes activation's timings (for the log) and schedules the start-up work. */
  activated(activation: ActivationTiming): void {
    this.activation = activation;
    this.timer = setTimeout(() => this.load('start-up'), START_UP_DELAY_MS);
  }

  /**
   * The rest of the extension, loaded and started the first time anything needs it; undefined
   * when it could not load (said once, with what to do).
   */
  load(reason: string): LoadedMain | undefined {
    if (this.loaded || this.failed) return this.loaded;
    if (this.loading)
      throw new Error(vscode.l10n.t('GPU Rental: its code was asked for ({0}) while it was loading. Reload the window.', reason));
    this.loading = true;
    clearTimeout(this.timer);
    try {
      const started = performance.now();
      // A computed path, so esbuild leaves this require for run time instead of inlining the rest.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const main = require(this.mainPath) as MainModule;
      const loadMs = performance.now() - started;
      this.loaded = main.start(this.context, { trees: this.trees, activation: this.activation }, reason, loadMs);
    } catch (error) {
      this.failed = true;
      const message = error instanceof Error ? error.message : String(error);
      void vscode.window.showErrorMessage(
        vscode.l10n.t('GPU Rental: the extension could not load its code ({0}). Reinstall GPU Rental, then reload the window.', message),
      );
    } finally {
      this.loading = false;
    }
    return this.loaded;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.loaded?.dispose();
    for (const d of this.disposables.reverse()) d.dispose();
  }
}
