import * as vscode from 'vscode';

/**
 * A tree view's data provider that stands in for the real one until the rest of the extension is
 * loaded (src/ui/shell/shell.ts): VS Code takes a view's provider when the view is created, in
 * activate(), but the views' code is not in the activation chunk. Anything VS Code asks of it
 * loads the rest first (`load` is synchronous), so a view fills in the moment it is first seen.
 */
export class ProxyTreeProvider implements vscode.TreeDataProvider<unknown>, vscode.Disposable {
  private target: vscode.TreeDataProvider<unknown> | undefined;
  private subscription: vscode.Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<unknown>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly load: () => void) {}

  /** The real provider: from now on every question goes to it, and its changes are this one's. */
  attach(target: vscode.TreeDataProvider<unknown>): void {
    this.subscription?.dispose();
    this.target = target;
    this.subscription = target.onDidChangeTreeData?.((e) => this.changed.fire(e));
  }

  getTreeItem(element: unknown): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.real().getTreeItem(element);
  }

  getChildren(element?: unknown): vscode.ProviderResult<unknown[]> {
    return this.real().getChildren(element);
  }

  getParent(element: unknown): vscode.ProviderResult<unknown> {
    return this.real().getParent?.(element);
  }

  resolveTreeItem(item: vscode.TreeItem, element: unknown, token: vscode.CancellationToken): vscode.ProviderResult<vscode.TreeItem> {
    const target = this.real();
    return target.resolveTreeItem ? target.resolveTreeItem(item, element, token) : item;
  }

  dispose(): void {
    this.subscription?.dispose();
    this.changed.dispose();
  }

  private real(): vscode.TreeDataProvider<unknown> {
    if (!this.target) this.load();
    if (!this.target) throw new Error(vscode.l10n.t('GPU Rental could not load this view. Reload the window.'));
    return this.target;
  }
}
