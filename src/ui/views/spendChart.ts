import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { readSpendChart, spendChartPage, type SpendChart } from '../../core/billing/chart';
import type { Session } from '../../core/session/session';
import { showProgress } from '../pickers/progress';

let panel: vscode.WebviewPanel | undefined;

/**
 * The 30-day spend chart in a webview panel (one, revealed again when open): the page is core's
 * (core/billing/chart.ts), with no script and a style element allowed by its nonce only.
 */
export async function showSpendChart(session: Pick<Session, 'client'>): Promise<SpendChart> {
  const { chart, notes } = await showProgress(vscode.l10n.t('reading charges…'), () => readSpendChart(session.client.billing, Date.now()), {
    cancellable: false,
    quiet: true,
  });
  if (!panel) {
    panel = vscode.window.createWebviewPanel('gpuRental.spendChart', vscode.l10n.t('Spend, Last 30 Days'), vscode.ViewColumn.Active, {
      enableScripts: false,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => (panel = undefined));
  } else {
    panel.reveal();
  }
  panel.webview.html = spendChartPage(chart, { cspSource: panel.webview.cspSource, nonce: randomBytes(16).toString('base64'), notes });
  return chart;
}
