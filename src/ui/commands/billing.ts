import * as vscode from 'vscode';
import { BILLING_DAYS, readBilling } from '../../core/billing/read';
import { billingReport } from '../../core/billing/report';
import { COMMANDS, VIEWS } from '../../core/ids';
import type { Session } from '../../core/session/session';
import { command, type CommandDefinition } from './registry';

/** What the account and billing commands use. */
export interface BillingDeps {
  readonly session: Pick<Session, 'client'>;
}

/** The Account view, and the billing report. */
export function billingCommands(s: BillingDeps): CommandDefinition[] {
  return [
    command(COMMANDS.showAccount, () => vscode.commands.executeCommand(`${VIEWS.account}.focus`)),
    command(COMMANDS.showBilling, () => showBilling(s)),
  ];
}

/** The billing report as a Markdown document (untitled, nothing written to disk); resolves with its text. */
async function showBilling(s: BillingDeps): Promise<string> {
  const { charges, invoices, from, to } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('GPU Rental: reading billing…') },
    () => readBilling(s.session, BILLING_DAYS),
  );
  const text = billingReport(charges, invoices, { from, to }, new Date());
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
  await vscode.window.showTextDocument(doc, { preview: true });
  return text;
}
