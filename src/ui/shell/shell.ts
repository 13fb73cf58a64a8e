import * as vscode from 'vscode';
import { COMMAND_IDS, EXPLORER_VIEW_TYPE, TOOL_NAMES, VIEWS } from '../../core/ids';
import { registerCommandStubs } from '../registry';
import { failedPanelHtml, MainGate, type Notify, type Outcome } from './gate';
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
 * panel restored, or the start-up work. When it cannot load, each of those says why (src/ui/shell/gate.ts).
 */
export class Shell implements vscode.Disposable {
  private readonly gate: MainGate<MainModule, LoadedMain>;
  /** Offer Explorer panels restored while the rest could not load: they say why, and are taken over once it loads. */
  private readonly waiting = new Set<vscode.WebviewPanel>();
  private evaluateMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private activation: ActivationTiming = { moduleMs: 0, apiMs: 0, activateMs: 0 };
  private readonly trees: ShellParts['trees'];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    /** dist/main.js beside this bundle. */
    private readonly mainPath: string,
  ) {
    this.gate = new MainGate<MainModule, LoadedMain>({
      evaluate: () => {
        const started = performance.now();
        // A computed path, so esbuild leaves this require for run time instead of inlining the rest.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const main = require(this.mainPath) as MainModule;
        this.evaluateMs = performance.now() - started;
        return main;
      },
      start: (main, reason) => main.start(this.context, { trees: this.trees, activation: this.activation }, reason, this.evaluateMs),
      notify: (detail) => void this.tell(detail),
      reentered: (reason) =>
        new Error(vscode.l10n.t('GPU Rental: its code was asked for ({0}) while it was loading. Reload the window.', reason)),
    });
    const tree = (id: string, canSelectMany: boolean): ShellTree => {
      const provider = new ProxyTreeProvider(() => this.load(`view ${id}`, 'first').failed, {
        changed: new vscode.EventEmitter<unknown>(),
        placeholder: placeholderItem,
      });
      // Stop, Start and Destroy take the Instances view's selection: several with one confirmation.
      const view = vscode.window.createTreeView<unknown>(id, { treeDataProvider: provider, canSelectMany });
      this.disposables.push(provider, view);
      return { view, attach: (target) => provider.attach(target) };
    };
    this.trees = { instances: tree(VIEWS.instances, true), offers: tree(VIEWS.offers, false), account: tree(VIEWS.account, false) };
    this.disposables.push(
      ...registerCommandStubs(COMMAND_IDS, (id) => this.load(`command ${id}`, 'each').main?.commands.get(id)),
      vscode.window.registerUriHandler({ handleUri: (uri) => this.load('link', 'each').main?.uriHandler.handleUri(uri) }),
      vscode.window.registerWebviewPanelSerializer(EXPLORER_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.restore(panel),
      }),
      ...this.registerTools(),
    );
  }

  /**
   * A stand-in per language model tool, which loads the rest on its first call. VS Code before
   * 1.95 (or a host without chat) has no `lm.registerTool`: then there are no tools, and
   * activation goes on.
   */
  private registerTools(): vscode.Disposable[] {
    const lm = (vscode as { lm?: Partial<typeof vscode.lm> }).lm;
    if (typeof lm?.registerTool !== 'function') return [];
    const register = lm.registerTool.bind(lm);
    const body = (name: string): vscode.LanguageModelTool<unknown> => {
      const { main, failed } = this.load(`tool ${name}`, 'each');
      const found = main?.tools.get(name);
      if (!found) throw new Error(couldNotLoad(failed ?? name));
      return found;
    };
    return TOOL_NAMES.map((name) =>
      register<unknown>(name, {
        invoke: (options, token) => body(name).invoke(options, token),
        prepareInvocation: (options, token) => body(name).prepareInvocation?.(options, token),
      }),
    );
  }

  /** Notes activation's timings (for the log) and schedules the start-up work. */
  activated(activation: ActivationTiming): void {
    this.activation = activation;
    this.timer = setTimeout(() => this.load('start-up', 'first'), START_UP_DELAY_MS);
  }

  /**
   * The rest of the extension, loaded and started the first time anything needs it (a failed load
   * is tried again), or why it could not load: already told as `notify` says, with what to do.
   */
  load(reason: string, notify: Notify): Outcome<LoadedMain> {
    const known = this.gate.loaded;
    if (known) return { main: known };
    clearTimeout(this.timer);
    const outcome = this.gate.load(reason, notify);
    if (outcome.main) {
      // Panels restored while it could not load say why: the rest takes them over now.
      for (const panel of this.waiting) outcome.main.restoreExplorer(panel);
      this.waiting.clear();
    }
    return outcome;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.gate.loaded?.dispose();
    for (const d of this.disposables.reverse()) d.dispose();
  }

  /** A restored Offer Explorer panel: the rest takes it over, or it says why it cannot. */
  private restore(panel: vscode.WebviewPanel): void {
    const { main, failed } = this.load(`restore ${EXPLORER_VIEW_TYPE}`, 'first');
    if (main) return main.restoreExplorer(panel);
    panel.webview.html = failedPanelHtml(couldNotLoad(failed));
    this.waiting.add(panel);
    panel.onDidDispose(() => this.waiting.delete(panel));
  }

  /** The notification that says the rest could not load, with the button that may fix it. */
  private async tell(detail: string): Promise<void> {
    const reload = vscode.l10n.t('Reload Window');
    const choice = await vscode.window.showErrorMessage(couldNotLoad(detail), reload);
    if (choice === reload) await vscode.commands.executeCommand('workbench.action.reloadWindow');
  }
}

/** Why an action cannot run when the rest could not load (`detail`: the error), and what to do. */
export function couldNotLoad(detail: string): string {
  return vscode.l10n.t(
    'GPU Rental could not load its code ({0}). Reload the window; if this keeps happening, reinstall GPU Rental.',
    detail,
  );
}

/** The row a view shows when the rest could not load (`detail`: why). */
function placeholderItem(detail: string): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('GPU Rental could not load. Select to reload the window.'));
  item.tooltip = couldNotLoad(detail);
  item.iconPath = new vscode.ThemeIcon('error');
  item.command = { title: vscode.l10n.t('Reload Window'), command: 'workbench.action.reloadWindow' };
  return item;
}
