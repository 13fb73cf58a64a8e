import * as vscode from 'vscode';
import { ApiError } from '../../core/api/errors';
import type { Session } from '../../core/session/session';

/**
 * A flat tree that loads its items from the service while the session is ready. It stays empty
 * otherwise, so that the view's welcome content (no key, unreachable, nothing to show) appears.
 * A failure that is not about the session (a missing permission, a refused search) shows as the
 * view's message instead.
 */
export abstract class ListView<T extends vscode.TreeItem> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: vscode.TreeView<T> | undefined;
  private items: T[] = [];

  constructor(
    protected readonly session: Session,
    private readonly what: string,
  ) {}

  attach(view: vscode.TreeView<T>): void {
    this.view = view;
  }

  /** What the view shows now; integration tests read it. */
  get current(): readonly T[] {
    return this.items;
  }

  refresh(): void {
    this.changed.fire();
  }

  getTreeItem(element: T): vscode.TreeItem {
    return element;
  }

  async getChildren(element?: T): Promise<T[]> {
    if (element) return [];
    this.setMessage(undefined);
    if (this.session.state.kind !== 'ready') return (this.items = []);
    try {
      this.items = await this.load();
    } catch (error) {
      this.items = [];
      if (error instanceof ApiError && (error.kind === 'auth' || error.kind === 'network' || error.kind === 'timeout')) {
        this.session.reportError(error);
      } else {
        this.setMessage(error instanceof Error ? error.message : `Could not ${this.what}.`);
      }
    }
    return this.items;
  }

  dispose(): void {
    this.changed.dispose();
  }

  protected abstract load(): Promise<T[]>;

  private setMessage(message: string | undefined): void {
    if (this.view) this.view.message = message;
  }
}
