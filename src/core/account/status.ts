import type { User } from '../api/account';
import { formatHours, hoursLeft } from '../billing/burn';
import { formatDollars } from '../format';
import { COMMANDS, VIEWS } from '../ids';
import type { Burn } from '../instances/rates';
import { l10n } from '../l10n';
import type { SessionState } from '../session/session';
import { accountFunds, type AccountFunds } from './funds';

/*
 * What the account's status bar item says: its text, tooltip, spoken label, click and colour, for
 * each session state. The ui item (src/ui/status/accountStatus.ts) only copies these onto a StatusBarItem.
 */

/** The item as it should look; `tooltip` is Markdown when `trusted` lists the commands its links may run. */
export interface AccountStatusView {
  readonly text: string;
  readonly tooltip: string;
  /** Set when the tooltip is Markdown (with codicons): the commands its links may run. */
  readonly trusted?: readonly string[];
  readonly spoken: string;
  /** A command id, or the settings editor opened at `setting`. */
  readonly click: { command: string } | { setting: string };
  readonly background?: 'warning' | 'error';
}

/** Where the item is: the profile's name (undefined while only the default exists) and the service's label. */
export interface AccountStatusContext {
  readonly profile: string | undefined;
  readonly where: string;
  readonly burn: Burn | undefined;
}

/** The item for a session state. */
export function accountStatusView(state: SessionState, c: AccountStatusContext): AccountStatusView {
  const spoken = (label: string) => (c.profile ? l10n.t('GPU Rental ({0}): {1}', c.profile, label) : l10n.t('GPU Rental: {0}', label));
  switch (state.kind) {
    case 'noKey':
      return {
        text: c.profile ? l10n.t('$(key) GPU Rental ({0})', c.profile) : l10n.t('$(key) GPU Rental'),
        tooltip: l10n.t('GPU Rental: no API key yet for {0}. Click to set one.', c.where),
        click: { command: COMMANDS.setApiKey },
        spoken: spoken(l10n.t('no API key yet. Activate to set one.')),
      };
    case 'checking':
      return {
        text: c.profile ? l10n.t('$(sync~spin) GPU Rental ({0})', c.profile) : l10n.t('$(sync~spin) GPU Rental'),
        tooltip: l10n.t('GPU Rental: checking the API key with {0}…', c.where),
        click: { command: COMMANDS.showLogs },
        spoken: spoken(l10n.t('checking the API key.')),
      };
    case 'ready':
      return readyView(state.user, c);
    case 'rejected':
      return {
        text: c.profile ? l10n.t('$(error) GPU Rental ({0})', c.profile) : l10n.t('$(error) GPU Rental'),
        tooltip: l10n.t('GPU Rental: {0} refused the API key. Click to set a new one.', c.where),
        background: 'error',
        click: { command: COMMANDS.setApiKey },
        spoken: spoken(l10n.t('the service refused the API key. Activate to set a new one.')),
      };
    case 'unreachable':
      return {
        ...warningText(c.profile),
        tooltip: l10n.t('GPU Rental: cannot reach {0}. {1} Click to retry.', c.where, state.error.message),
        click: { command: COMMANDS.refresh },
        spoken: spoken(l10n.t('cannot reach the service. Activate to retry.')),
      };
    case 'badUrl':
      return {
        ...warningText(c.profile),
        tooltip: l10n.t('GPU Rental: {0}', state.message),
        click: { setting: 'gpuRental.apiUrl' },
        spoken: spoken(l10n.t('{0} Activate to open the setting.', state.message)),
      };
  }
}

function warningText(profile: string | undefined): { text: string; background: 'warning' } {
  return { text: profile ? l10n.t('$(warning) GPU Rental ({0})', profile) : l10n.t('$(warning) GPU Rental'), background: 'warning' };
}

/** Signed in: the credit (or "credit unknown", never $0.00), the burn rate and a failed flag; the details in the tooltip. */
function readyView(user: User | undefined, c: AccountStatusContext): AccountStatusView {
  const { burn, profile } = c;
  const funds = accountFunds(user);
  const money = user ? (funds ? formatDollars(funds.amount) : l10n.t('credit unknown')) : l10n.t('GPU Rental');
  const parts = [`$(account) ${profile ? `${profile} · ` : ''}${money}`];
  if (burn && burn.perHour > 0) parts.push(`${formatDollars(burn.perHour)}/h`);
  if (burn?.failed.length) parts.push(l10n.t('$(warning) {0} failed', burn.failed.length));
  return {
    text: parts.join(' · '),
    tooltip: readyTooltip(user, funds, c),
    trusted: [COMMANDS.refresh, COMMANDS.signOut, COMMANDS.showLogs, COMMANDS.switchProfile],
    // A failed instance bills for its disk until destroyed: the item stays flagged until then.
    background: burn?.failed.length ? 'warning' : undefined,
    click: { command: `${VIEWS.instances}.focus` },
    spoken: accountSpoken(profile, user ? funds : undefined, user !== undefined, burn),
  };
}

/** The ready tooltip as Markdown: one paragraph per message (the breaks are Markdown, not part of any message). */
function readyTooltip(user: User | undefined, funds: AccountFunds | undefined, c: AccountStatusContext): string {
  const paragraphs = [l10n.t('**GPU Rental**')];
  if (user) {
    paragraphs.push(l10n.t('Signed in as {0}', markdownEscape(user.email ?? user.username ?? l10n.t('user {0}', user.id))));
    paragraphs.push(fundsLine(funds));
  } else {
    paragraphs.push(
      l10n.t(
        'This API key may not read the account (it lacks the "user_read" permission), so the credit is unknown and low-credit warnings cannot work.',
      ),
    );
  }
  if (c.burn) paragraphs.push(...burnParagraphs(c.burn, funds));
  paragraphs.push(l10n.t('Service: {0}', markdownEscape(c.where)));
  const links = [
    `[${l10n.t('$(refresh) Refresh')}](command:${COMMANDS.refresh})`,
    `[${l10n.t('$(arrow-swap) Switch Profile')}](command:${COMMANDS.switchProfile})`,
    `[${l10n.t('$(sign-out) Sign Out')}](command:${COMMANDS.signOut})`,
  ];
  return `${paragraphs.join('\n\n')}\n\n${links.join(' · ')}`;
}

/** The ready item as a sentence: "GPU Rental account: $250.00 credit, spending $0.41 per hour". */
function accountSpoken(profile: string | undefined, funds: AccountFunds | undefined, canRead: boolean, burn: Burn | undefined): string {
  const money = funds
    ? funds.field === 'credit'
      ? l10n.t('{0} credit', formatDollars(funds.amount))
      : l10n.t('{0} balance', formatDollars(funds.amount))
    : canRead
      ? l10n.t('credit unknown')
      : l10n.t('credit unknown (this key may not read the account)');
  const parts = [profile ? l10n.t('GPU Rental account {0}: {1}', profile, money) : l10n.t('GPU Rental account: {0}', money)];
  if (burn) parts.push(burn.perHour > 0 ? l10n.t('spending {0} per hour', formatDollars(burn.perHour)) : l10n.t('nothing billing'));
  if (burn?.failed.length)
    parts.push(
      burn.failed.length === 1
        ? l10n.t('1 failed instance still billing for disk until destroyed')
        : l10n.t('{0} failed instances still billing for disk until destroyed', burn.failed.length),
    );
  return l10n.t('{0}. Activate to show the instances.', parts.join(', '));
}

/** The credit as the service reports it: named as sent (credit, else balance), or unknown. */
function fundsLine(funds: AccountFunds | undefined): string {
  if (!funds) return l10n.t("Credit: **unknown** (the service did not report it; check it on the service's web console)");
  return funds.field === 'credit'
    ? l10n.t('Credit: **{0}**', formatDollars(funds.amount))
    : l10n.t('Balance: **{0}** (the service sent no credit figure)', formatDollars(funds.amount));
}

/** The most failed instances the tooltip names one by one. */
const FAILED_NAMED = 10;

/** What bills: the total and its parts, how long the money lasts, each instance's share, and the failed ones. */
function burnParagraphs(burn: Burn, funds: AccountFunds | undefined): string[] {
  if (burn.perHour <= 0) return [l10n.t('Nothing is billing now.')];
  const out = [
    l10n.t(
      'Spending **{0}/h**: compute {1}/h, storage of stopped instances {2}/h',
      formatDollars(burn.perHour),
      formatDollars(burn.computePerHour),
      formatDollars(burn.storagePerHour),
    ),
  ];
  if (funds) {
    const lasts = formatHours(hoursLeft(funds.amount, burn.perHour));
    out.push(
      funds.field === 'credit'
        ? l10n.t('At this rate the credit lasts **{0}**', lasts)
        : l10n.t('At this rate the balance lasts **{0}**', lasts),
    );
  } else out.push(l10n.t('How long the credit lasts at this rate is unknown: the credit is not known.'));
  const share = (perHour: number) => {
    const percent = (perHour / burn.perHour) * 100;
    return percent > 0 && percent < 0.5 ? '<1%' : `${Math.round(percent)}%`;
  };
  const rows = burn.shares
    .filter((s) => s.perHour > 0)
    .map((s) => {
      const name =
        s.kind === 'storage' ? l10n.t('{0} ({1}, disk)', markdownEscape(s.name), s.phase) : `${markdownEscape(s.name)} (${s.phase})`;
      return `| ${name} | ${formatDollars(s.perHour)} | ${share(s.perHour)} |`;
    });
  // A large account names its largest instances only: a tooltip of thousands of rows helps no one.
  if (burn.rest.count > 0)
    rows.push(
      `| ${l10n.t('{0} more instances (listed in the Instances view)', burn.rest.count.toLocaleString('en'))} | ${formatDollars(burn.rest.perHour)} | ${share(burn.rest.perHour)} |`,
    );
  out.push([`| ${l10n.t('Instance')} | $/h | ${l10n.t('Share')} |`, '|---|---:|---:|', ...rows].join('\n'));
  if (burn.failed.length) {
    const named = burn.failed.slice(0, FAILED_NAMED).map((f) => markdownEscape(f.name));
    const more = burn.failed.length - named.length;
    out.push(
      burn.failed.length === 1
        ? l10n.t('$(warning) {0} failed and still bills for disk until destroyed.', named[0]!)
        : more > 0
          ? l10n.t('$(warning) {0} and {1} more failed and still bill for disk until destroyed.', named.join(', '), more)
          : l10n.t('$(warning) {0} failed and still bill for disk until destroyed.', named.join(', ')),
    );
  }
  return out;
}

/** Text from the service inside Markdown: its punctuation shown, never read as markup. */
export function markdownEscape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
