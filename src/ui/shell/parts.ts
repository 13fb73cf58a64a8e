import type * as vscode from 'vscode';

/** A view the activation chunk created, and how the real provider takes it over. */
export interface ShellTree {
  readonly view: vscode.TreeView<unknown>;
  attach(provider: vscode.TreeDataProvider<unknown>): void;
}

/**
 * What the activation chunk (src/extension.ts, src/ui/shell/) made before the rest of the
 * extension loaded, handed to it when it loads (src/main.ts): the three views, created in
 * activate() as VS Code requires, and the timings of activation for the log.
 */
export interface ShellParts {
  readonly trees: { readonly instances: ShellTree; readonly offers: ShellTree; readonly account: ShellTree };
  readonly activation: ActivationTiming;
}

/** How long activation took, as the activation chunk measured it. */
export interface ActivationTiming {
  /** Evaluating dist/extension.js (the bundle's first and last lines note the time; 0 when unbundled). */
  readonly moduleMs: number;
  /** Of which VS Code building its API object for the extension. */
  readonly apiMs: number;
  readonly activateMs: number;
}

/** What loading the rest (dist/main.js) gives the activation chunk. */
export interface LoadedMain extends vscode.Disposable {
  /** Every command's body, by id: the stubs registered in activate() call them. */
  readonly commands: ReadonlyMap<string, (...args: unknown[]) => unknown>;
  /** Every language model tool, by name: the stand-ins registered in activate() call them. */
  readonly tools: ReadonlyMap<string, vscode.LanguageModelTool<unknown>>;
  /** Opens vscode://publisher.name/… links. */
  readonly uriHandler: vscode.UriHandler;
  /** Takes over an Offer Explorer panel VS Code restored after a reload. */
  restoreExplorer(panel: vscode.WebviewPanel): void;
  /** What the integration tests observe and steer. */
  readonly test: unknown;
}
