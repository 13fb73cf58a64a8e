import * as vscode from 'vscode';
import { COMMANDS, VIEWS } from '../core/ids';
import { formatDollars } from '../core/offers/present';
import type { Session, SessionState } from '../core/session/session';

/** The account at a glance: credit in the status bar, the details in its tooltip. */
export class AccountStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('gpuRental.account', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly session: Session) {
    this.item.name = 'GPU Rental Account';
    this.subscription = session.onDidChangeState((state) => this.render(state));
    this.render(session.state);
    this.item.show();
  }

  /** The rendered text and tooltip, for tests. */
  get text(): string {
    return this.item.text;
  }

  get tooltipText(): string {
    const t = this.item.tooltip;
    return typeof t === 'string' ? t : (t?.value ?? '');
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }

  private render(state: SessionState): void {
    const item = this.item;
    const where = this.session.baseUrl;
    item.backgroundColor = undefined;
    switch (state.kind) {
      case 'noKey':
        item.text = '$(key) GPU Rental';
        item.tooltip = 'GPU Rental: no API key yet. Click to set one.';
        item.command = COMMANDS.setApiKey;
        return;
      case 'checking':
        item.text = '$(sync~spin) GPU Rental';
        item.tooltip = `GPU Rental: checking the API key with ${where}…`;
        item.command = COMMANDS.showLogs;
        return;
      case 'ready': {
        const user = state.user;
        item.text = user ? `$(account) ${formatDollars(user.credit)}` : '$(account) GPU Rental';
        const md = new vscode.MarkdownString(undefined, true);
        md.isTrusted = { enabledCommands: [COMMANDS.refresh, COMMANDS.signOut, COMMANDS.showLogs] };
        md.appendMarkdown('**GPU Rental**\n\n');
        if (user) {
          md.appendMarkdown(`Signed in as ${escape(user.email ?? user.username ?? `user ${user.id}`)}\n\n`);
          md.appendMarkdown(`Credit: **${formatDollars(user.credit)}**\n\n`);
        } else {
          md.appendMarkdown('This API key may not read the account (it lacks the "user_read" permission).\n\n');
        }
        md.appendMarkdown(`Service: ${escape(where)}\n\n`);
        md.appendMarkdown(`[$(refresh) Refresh](command:${COMMANDS.refresh}) · [$(sign-out) Sign Out](command:${COMMANDS.signOut})`);
        item.tooltip = md;
        item.command = `${VIEWS.instances}.focus`;
        return;
      }
      case 'rejected':
        item.text = '$(error) GPU Rental';
        item.tooltip = `GPU Rental: ${where} refused the API key. Click to set a new one.`;
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        item.command = COMMANDS.setApiKey;
        return;
      case 'unreachable':
        item.text = '$(warning) GPU Rental';
        item.tooltip = `GPU Rental: cannot reach ${where}. ${state.error.message} Click to retry.`;
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        item.command = COMMANDS.refresh;
        return;
      case 'badUrl':
        item.text = '$(warning) GPU Rental';
        item.tooltip = `GPU Rental: ${state.message}`;
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        item.command = { title: 'Open Settings', command: 'workbench.action.openSettings', arguments: ['gpuRental.apiUrl'] };
        return;
    }
  }
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
