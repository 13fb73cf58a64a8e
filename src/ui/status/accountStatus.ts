import * as vscode from 'vscode';
import { accountStatusView } from '../../core/account/status';
import type { Session, SessionState } from '../../core/session/session';
import { serviceLabel } from '../../core/session/profiles';
import type { Burn } from '../../core/instances/rates';

/** The account at a glance: credit in the status bar, the details in its tooltip (what it says is decided in core/account/status.ts). */
export class AccountStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('gpuRental.account', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;
  private burn: Burn | undefined;

  /**
   * `profileName` is the name to show, or undefined while the default profile is the only one (a
   * single account needs no label).
   */
  constructor(
    private readonly session: Session,
    private readonly profileName: () => string | undefined = () => undefined,
  ) {
    this.item.name = vscode.l10n.t('GPU Rental Account');
    this.subscription = session.onDidChangeState((state) => this.render(state));
    this.render(session.state);
    this.item.show();
  }

  /** The rendered text and tooltip, for tests. */
  get text(): string {
    return this.item.text;
  }

  /** What a screen reader says for the item, for tests. */
  get spoken(): string | undefined {
    return this.item.accessibilityInformation?.label;
  }

  get tooltipText(): string {
    const t = this.item.tooltip;
    return typeof t === 'string' ? t : (t?.value ?? '');
  }

  /** The account's hourly spend, from the instance list; shown beside the credit. */
  setBurn(burn: Burn | undefined): void {
    this.burn = burn;
    this.render(this.session.state);
  }

  /** Renders again (a profile was added or removed). */
  update(): void {
    this.render(this.session.state);
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }

  private render(state: SessionState): void {
    const profile = this.profileName();
    const view = accountStatusView(state, { profile, where: serviceLabel(this.session.baseUrl, profile), burn: this.burn });
    const item = this.item;
    item.text = view.text;
    if (view.trusted) {
      const md = new vscode.MarkdownString(view.tooltip, true);
      md.isTrusted = { enabledCommands: [...view.trusted] };
      item.tooltip = md;
    } else item.tooltip = view.tooltip;
    item.backgroundColor = view.background ? new vscode.ThemeColor(`statusBarItem.${view.background}Background`) : undefined;
    item.command =
      'setting' in view.click
        ? { title: vscode.l10n.t('Open Settings'), command: 'workbench.action.openSettings', arguments: [view.click.setting] }
        : view.click.command;
    item.accessibilityInformation = { label: view.spoken };
  }
}
