import * as vscode from 'vscode';
import { describeUnreadable, unreadableOf } from '../../core/api/unreadable';
import { COMMANDS } from '../../core/ids';

/**
 * The row a list view adds when the service's answer had records it could not read: how many, why
 * (field paths only) in the tooltip, and a click that opens the log, where the same line is.
 */
export class UnreadableItem extends vscode.TreeItem {
  constructor(
    readonly count: number,
    id: string,
    tooltip: string,
  ) {
    super(
      count === 1 ? vscode.l10n.t('1 record could not be read') : vscode.l10n.t('{0} records could not be read', count),
      vscode.TreeItemCollapsibleState.None,
    );
    this.id = id;
    this.description = vscode.l10n.t('Show Logs');
    this.tooltip = tooltip;
    this.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    this.command = { title: vscode.l10n.t('Show Logs'), command: COMMANDS.showLogs };
    this.contextValue = 'unreadableRecords';
  }
}

/** The row for a list, or undefined when every record was read. `what` names the records ("instance"). */
export function unreadableRow(list: readonly unknown[] | undefined, what: string, id: string): UnreadableItem | undefined {
  const report = unreadableOf(list);
  if (!report) return undefined;
  const lines = [
    `${describeUnreadable(report, `${what} record`)}.`,
    report.listedById > 0 ? vscode.l10n.t('Those listed by id only show "(details unreadable)"; they can still be deleted.') : '',
    vscode.l10n.t('First problems: {0}.', report.reasons.join('; ')),
    vscode.l10n.t(
      'The rest of the list is complete. If this persists, the service is sending something this version does not understand: Show Logs has the details to report.',
    ),
  ];
  return new UnreadableItem(report.count, id, lines.filter(Boolean).join('\n'));
}
