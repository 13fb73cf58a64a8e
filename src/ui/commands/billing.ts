import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { exportActionLabel, exportSpendFlow, type ExportFormat, type ExportOutcome } from '../../core/billing/exportFlow';
import { BILLING_DAYS, readBilling } from '../../core/billing/read';
import { billingReport } from '../../core/billing/report';
import { nodeSaveFs } from '../../core/billing/saveFile';
import { COMMANDS, VIEWS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Prompts } from '../../core/prompts';
import type { Session } from '../../core/session/session';
import { notify } from '../pickers/notify';
import { showProgress } from '../pickers/progress';
import { asker } from '../pickers/prompts';
import { showSpendChart } from '../views/spendChart';
import { command, type CommandDefinition } from '../registry';

/** What the account and billing commands use. */
export interface BillingDeps {
  readonly session: Pick<Session, 'client'>;
  /** The instances listed now: their labels name the charges whose record has none. */
  readonly poller: Pick<InstancePoller, 'snapshot'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
}

/** The Account view, the billing report, Export Spend and the spend chart. */
export function billingCommands(s: BillingDeps): CommandDefinition[] {
  return [
    command(COMMANDS.showAccount, () => vscode.commands.executeCommand(`${VIEWS.account}.focus`)),
    command(COMMANDS.showBilling, () => showBilling(s)),
    command(COMMANDS.exportSpend, () => exportSpend(s)),
    command(COMMANDS.showSpendChart, () => showSpendChart(s.session)),
  ];
}

/** The billing report as a Markdown document (untitled, nothing written to disk); resolves with its text. */
async function showBilling(s: BillingDeps): Promise<string> {
  const { charges, invoices, from, to } = await showProgress(
    vscode.l10n.t('reading billing…'),
    () => readBilling(s.session, BILLING_DAYS),
    {
      cancellable: false,
      quiet: true,
    },
  );
  const text = billingReport(charges, invoices, { from, to }, new Date());
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
  await vscode.window.showTextDocument(doc, { preview: true });
  return text;
}

/** Export Spend (decided in core/billing/exportFlow.ts); resolves with the outcome, for tests. */
async function exportSpend(s: BillingDeps): Promise<ExportOutcome> {
  let lastFolder: vscode.Uri | undefined;
  const outcome = await exportSpendFlow({
    ask: asker(s.prompts()),
    billing: () => s.session.client.billing,
    labels: () => new Map((s.poller.snapshot?.instances ?? []).filter((i) => i.label).map((i) => [i.id, i.label!])),
    chooseTarget: async (name: string, format: ExportFormat) => {
      const folder = lastFolder ?? vscode.workspace.workspaceFolders?.[0]?.uri;
      const uri = await vscode.window.showSaveDialog({
        title: vscode.l10n.t('Export Spend'),
        saveLabel: vscode.l10n.t('Export'),
        defaultUri: folder ? vscode.Uri.joinPath(folder, name) : vscode.Uri.file(path.join(os.homedir(), name)),
        filters: format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
      });
      if (uri) lastFolder = vscode.Uri.joinPath(uri, '..');
      return uri?.fsPath;
    },
    fs: nodeSaveFs,
    notify: (notice) => notify(notice, exportActionLabel),
    progress: showProgress,
    now: () => Date.now(),
  });
  if (outcome.kind === 'written') {
    void notify(outcome.notice, exportActionLabel).then((action) => {
      const uri = vscode.Uri.file(outcome.path);
      if (action === 'openFile') void vscode.commands.executeCommand('vscode.open', uri);
      else if (action === 'reveal') void vscode.commands.executeCommand('revealFileInOS', uri);
    });
  }
  return outcome;
}
