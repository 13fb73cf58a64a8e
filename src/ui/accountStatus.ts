import * as vscode from 'vscode';
import { accountFunds, type AccountFunds } from '../core/account/funds';
import { COMMANDS, VIEWS } from '../core/ids';
import type { Session, SessionState } from '../core/session/session';
import { serviceLabel } from '../core/session/profiles';
import { formatHours, hoursLeft } from '../core/billing/burn';
import type { Burn } from '../core/instances/rates';
import { formatDollars } from '../core/format';

/** The account at a glance: credit in the status bar, the details in its tooltip. */
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
    const item = this.item;
    const profile = this.profileName();
    const where = serviceLabel(this.session.baseUrl, profile);
    item.backgroundColor = undefined;
    // What a screen reader says for the item: the text's icons and dots read badly aloud.
    const say = (label: string) =>
      (item.accessibilityInformation = {
        label: profile ? vscode.l10n.t('GPU Rental ({0}): {1}', profile, label) : vscode.l10n.t('GPU Rental: {0}', label),
      });
    switch (state.kind) {
      case 'noKey':
        item.text = profile ? vscode.l10n.t('$(key) GPU Rental ({0})', profile) : vscode.l10n.t('$(key) GPU Rental');
        item.tooltip = vscode.l10n.t('GPU Rental: no API key yet for {0}. Click to set one.', where);
        item.command = COMMANDS.setApiKey;
        say(vscode.l10n.t('no API key yet. Activate to set one.'));
        return;
      case 'checking':
        item.text = profile ? vscode.l10n.t('$(sync~spin) GPU Rental ({0})', profile) : vscode.l10n.t('$(sync~spin) GPU Rental');
        item.tooltip = vscode.l10n.t('GPU Rental: checking the API key with {0}…', where);
        item.command = COMMANDS.showLogs;
        say(vscode.l10n.t('checking the API key.'));
        return;
      case 'ready': {
        const user = state.user;
        const burn = this.burn;
        const rate = burn && burn.perHour > 0 ? ` · ${formatDollars(burn.perHour)}/h` : '';
        const failed = burn?.failed.length ? ` · ${vscode.l10n.t('$(warning) {0} failed', burn.failed.length)}` : '';
        const name = profile ? `${profile} · ` : '';
        const funds = accountFunds(user);
        // A record without credit or balance: "credit unknown", never $0.00.
        item.text = `$(account) ${name}${user ? (funds ? formatDollars(funds.amount) : vscode.l10n.t('credit unknown')) : vscode.l10n.t('GPU Rental')}${rate}${failed}`;
        // A failed instance bills for its disk until destroyed: the item stays flagged until then.
        if (burn?.failed.length) item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        const md = new vscode.MarkdownString(undefined, true);
        md.isTrusted = { enabledCommands: [COMMANDS.refresh, COMMANDS.signOut, COMMANDS.showLogs, COMMANDS.switchProfile] };
        // One paragraph per message; the paragraph breaks are markdown, not part of any message.
        const paragraph = (text: string) => md.appendMarkdown(`${text}\n\n`);
        paragraph(vscode.l10n.t('**GPU Rental**'));
        if (user) {
          paragraph(vscode.l10n.t('Signed in as {0}', escape(user.email ?? user.username ?? vscode.l10n.t('user {0}', user.id))));
          paragraph(fundsLine(funds));
        } else {
          paragraph(
            vscode.l10n.t(
              'This API key may not read the account (it lacks the "user_read" permission), so the credit is unknown and low-credit warnings cannot work.',
            ),
          );
        }
        if (burn) appendBurn(md, burn, funds);
        paragraph(vscode.l10n.t('Service: {0}', escape(where)));
        md.appendMarkdown(
          [
            `[${vscode.l10n.t('$(refresh) Refresh')}](command:${COMMANDS.refresh})`,
            `[${vscode.l10n.t('$(arrow-swap) Switch Profile')}](command:${COMMANDS.switchProfile})`,
            `[${vscode.l10n.t('$(sign-out) Sign Out')}](command:${COMMANDS.signOut})`,
          ].join(' · '),
        );
        item.tooltip = md;
        item.command = `${VIEWS.instances}.focus`;
        item.accessibilityInformation = { label: accountSpoken(profile, user ? funds : undefined, user !== undefined, burn) };
        return;
      }
      case 'rejected':
        item.text = profile ? vscode.l10n.t('$(error) GPU Rental ({0})', profile) : vscode.l10n.t('$(error) GPU Rental');
        item.tooltip = vscode.l10n.t('GPU Rental: {0} refused the API key. Click to set a new one.', where);
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        item.command = COMMANDS.setApiKey;
        say(vscode.l10n.t('the service refused the API key. Activate to set a new one.'));
        return;
      case 'unreachable':
        item.text = profile ? vscode.l10n.t('$(warning) GPU Rental ({0})', profile) : vscode.l10n.t('$(warning) GPU Rental');
        item.tooltip = vscode.l10n.t('GPU Rental: cannot reach {0}. {1} Click to retry.', where, state.error.message);
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        item.command = COMMANDS.refresh;
        say(vscode.l10n.t('cannot reach the service. Activate to retry.'));
        return;
      case 'badUrl':
        item.text = profile ? vscode.l10n.t('$(warning) GPU Rental ({0})', profile) : vscode.l10n.t('$(warning) GPU Rental');
        item.tooltip = vscode.l10n.t('GPU Rental: {0}', state.message);
        item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        item.command = { title: vscode.l10n.t('Open Settings'), command: 'workbench.action.openSettings', arguments: ['gpuRental.apiUrl'] };
        say(vscode.l10n.t('{0} Activate to open the setting.', state.message));
        return;
    }
  }
}

/** The ready item as a sentence: "GPU Rental account: $250.00 credit, spending $0.41 per hour". */
function accountSpoken(profile: string | undefined, funds: AccountFunds | undefined, canRead: boolean, burn: Burn | undefined): string {
  const money = funds
    ? funds.field === 'credit'
      ? vscode.l10n.t('{0} credit', formatDollars(funds.amount))
      : vscode.l10n.t('{0} balance', formatDollars(funds.amount))
    : canRead
      ? vscode.l10n.t('credit unknown')
      : vscode.l10n.t('credit unknown (this key may not read the account)');
  const parts = [profile ? vscode.l10n.t('GPU Rental account {0}: {1}', profile, money) : vscode.l10n.t('GPU Rental account: {0}', money)];
  if (burn)
    parts.push(burn.perHour > 0 ? vscode.l10n.t('spending {0} per hour', formatDollars(burn.perHour)) : vscode.l10n.t('nothing billing'));
  if (burn?.failed.length)
    parts.push(
      burn.failed.length === 1
        ? vscode.l10n.t('1 failed instance still billing for disk until destroyed')
        : vscode.l10n.t('{0} failed instances still billing for disk until destroyed', burn.failed.length),
    );
  return vscode.l10n.t('{0}. Activate to show the instances.', parts.join(', '));
}

/** The credit as the service reports it: named as sent (credit, else balance), or unknown. */
function fundsLine(funds: AccountFunds | undefined): string {
  if (!funds) return vscode.l10n.t("Credit: **unknown** (the service did not report it; check it on the service's web console)");
  return funds.field === 'credit'
    ? vscode.l10n.t('Credit: **{0}**', formatDollars(funds.amount))
    : vscode.l10n.t('Balance: **{0}** (the service sent no credit figure)', formatDollars(funds.amount));
}

function appendBurn(md: vscode.MarkdownString, burn: Burn, funds: AccountFunds | undefined): void {
  const paragraph = (text: string) => md.appendMarkdown(`${text}\n\n`);
  if (burn.perHour <= 0) {
    paragraph(vscode.l10n.t('Nothing is billing now.'));
    return;
  }
  paragraph(
    vscode.l10n.t(
      'Spending **{0}/h**: compute {1}/h, storage of stopped instances {2}/h',
      formatDollars(burn.perHour),
      formatDollars(burn.computePerHour),
      formatDollars(burn.storagePerHour),
    ),
  );
  if (funds) {
    const lasts = formatHours(hoursLeft(funds.amount, burn.perHour));
    paragraph(
      funds.field === 'credit'
        ? vscode.l10n.t('At this rate the credit lasts **{0}**', lasts)
        : vscode.l10n.t('At this rate the balance lasts **{0}**', lasts),
    );
  } else paragraph(vscode.l10n.t('How long the credit lasts at this rate is unknown: the credit is not known.'));
  md.appendMarkdown('| Instance | $/h | Share |\n|---|---:|---:|\n');
  for (const s of burn.shares) {
    if (s.perHour <= 0) continue;
    const what = s.kind === 'storage' ? `${s.phase}, disk` : s.phase;
    md.appendMarkdown(`| ${escape(s.name)} (${what}) | ${formatDollars(s.perHour)} | ${Math.round((s.perHour / burn.perHour) * 100)}% |\n`);
  }
  md.appendMarkdown('\n');
  if (burn.failed.length)
    paragraph(
      burn.failed.length === 1
        ? vscode.l10n.t('$(warning) {0} failed and still bills for disk until destroyed.', escape(burn.failed[0]!.name))
        : vscode.l10n.t(
            '$(warning) {0} failed and still bill for disk until destroyed.',
            burn.failed.map((f) => escape(f.name)).join(', '),
          ),
    );
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
