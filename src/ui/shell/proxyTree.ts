import type * as vscode from 'vscode';

/** The one row a view shows when the rest of the extension could not load. */
export const PLACEHOLDER: object = Object.freeze({ gpuRentalPlaceholder: true });

/** What the stand-in takes from `vscode` (given, so plain mocha tests it: test/unit/shell/proxyTree.test.ts). */
export interface ProxyTreeParts {
  readonly changed: vscode.EventEmitter<unknown>;
  /** The row that says why the rest could not load (`detail`) and what to do. */
  readonly placeholder: (detail: string) => vscode.TreeItem;
}

/**
 * A tree view's data provider that stands in for the real one until the rest of the extension is
 * loaded (src/ui/shell/shell.ts): VS Code takes a view's provider when the view is created, in
 * activate(), but the views' code is not in the activation chunk. Anything VS Code asks of it
 * loads the rest first (`load` is synchronous), so a view fills in the moment it is first seen.
 * When the rest cannot load, the view shows one row that says why (each time it is shown, the
 * load is tried again), never an empty view.
 */
export class ProxyTreeProvider implements vscode.TreeDataProvider<unknown>, vscode.Disposable {
  private target: vscode.TreeDataProvider<unknown> | undefined;
  private subscription: vscode.Disposable | undefined;
  /** Why the rest could not load, when the view shows the row that says so. */
  private failed: string | undefined;
  readonly onDidChangeTreeData: vscode.Event<unknown>;

  constructor(
    /** Loads the rest: undefined once it has, else why it could not. */
    private readonly load: () => string | undefined,
    private readonly parts: ProxyTreeParts,
  ) {
    this.onDidChangeTreeData = parts.changed.event;
  }

  /** The real provider: from now on every question goes to it, and its changes are this one's. */
  attach(target: vscode.TreeDataProvider<unknown>): void {
    this.subscription?.dispose();
    this.target = target;
    this.subscription = target.onDidChangeTreeData?.((e) => this.parts.changed.fire(e));
    // The view shows the row that says why: have VS Code ask again, now of the real provider.
    if (this.failed !== undefined) {
      this.failed = undefined;
      this.parts.changed.fire(undefined);
    }
  }

  getTreeItem(element: unknown): vscode.TreeItem | Thenable<vscode.TreeItem> {
    if (element === PLACEHOLDER) return this.parts.placeholder(this.failed ?? '?');
    const target = this.real();
    return target ? target.getTreeItem(element) : this.parts.placeholder(this.failed ?? '?');
  }

  getChildren(element?: unknown): vscode.ProviderResult<unknown[]> {
    if (element === PLACEHOLDER) return [];
    const target = this.real();
    if (target) return target.getChildren(element);
    return element === undefined ? [PLACEHOLDER] : [];
  }

  getParent(element: unknown): vscode.ProviderResult<unknown> {
    if (element === PLACEHOLDER) return undefined;
    return this.real()?.getParent?.(element);
  }

  resolveTreeItem(item: vscode.TreeItem, element: unknown, token: vscode.CancellationToken): vscode.ProviderResult<vscode.TreeItem> {
    if (element === PLACEHOLDER) return item;
    const target = this.real();
    return target?.resolveTreeItem ? target.resolveTreeItem(item, element, token) : item;
  }

  dispose(): void {
    this.subscription?.dispose();
    this.parts.changed.dispose();
  }

  /** The real provider, loading the rest first; undefined (and `failed` set) when it could not load. */
  private real(): vscode.TreeDataProvider<unknown> | undefined {
    if (!this.target) {
      const failed = this.load();
      if (!this.target) this.failed = failed ?? '?';
    }
    return this.target;
  }
}
