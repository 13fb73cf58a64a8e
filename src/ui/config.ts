import * as vscode from 'vscode';
import { DEFAULT_BASE_URL } from '../core/api/limits';
import { SETTINGS } from '../core/ids';
import type { ConnectVia } from '../core/ssh/connector';

/** One typed getter per setting, read fresh each time so changes apply without a reload. */
export const config = {
  apiUrl(): string {
    const value = vscode.workspace.getConfiguration().get<string>(SETTINGS.apiUrl);
    return value?.trim() || DEFAULT_BASE_URL;
  },
  pollIntervalSeconds(): number {
    const value = vscode.workspace.getConfiguration().get<number>(SETTINGS.pollIntervalSeconds, 10);
    return Number.isFinite(value) && value >= 2 ? value : 10;
  },
  /** 0 or empty: no cap. */
  maxHourlySpend(): number | undefined {
    const value = vscode.workspace.getConfiguration().get<number | null>(SETTINGS.maxHourlySpend);
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
  },
  lowCreditHours(): number {
    const value = vscode.workspace.getConfiguration().get<number>(SETTINGS.lowCreditHours, 24);
    return Number.isFinite(value) && value >= 0 ? value : 24;
  },
  lowCreditAmount(): number {
    const value = vscode.workspace.getConfiguration().get<number>(SETTINGS.lowCreditAmount, 5);
    return Number.isFinite(value) && value >= 0 ? value : 5;
  },
  idleStopEnabled(): boolean {
    return vscode.workspace.getConfiguration().get<boolean>(SETTINGS.idleStopEnabled, true);
  },
  /** Minutes; fractions are allowed (tests use seconds' worth). */
  idleStopMinutes(): number {
    const value = vscode.workspace.getConfiguration().get<number>(SETTINGS.idleStopMinutes, 30);
    return Number.isFinite(value) && value > 0 ? value : 30;
  },
  idleGpuThreshold(): number {
    const value = vscode.workspace.getConfiguration().get<number>(SETTINGS.idleGpuThreshold, 5);
    return Number.isFinite(value) && value >= 0 ? value : 5;
  },
  idleCountdownSeconds(): number {
    const value = vscode.workspace.getConfiguration().get<number>(SETTINGS.idleCountdownSeconds, 60);
    return Number.isFinite(value) && value >= 0 ? value : 60;
  },
  /** The folder a connect opens on the instance; empty opens an empty remote window. */
  remoteFolder(): string {
    return vscode.workspace.getConfiguration().get<string>(SETTINGS.remoteFolder, '/root').trim();
  },
  sshIdentityFile(): string | undefined {
    return vscode.workspace.getConfiguration().get<string>(SETTINGS.sshIdentityFile)?.trim() || undefined;
  },
  sshConnectVia(): ConnectVia {
    const value = vscode.workspace.getConfiguration().get<string>(SETTINGS.sshConnectVia, 'auto');
    return value === 'direct' || value === 'proxy' ? value : 'auto';
  },
  sshReadyTimeoutSeconds(): number {
    const value = vscode.workspace.getConfiguration().get<number>(SETTINGS.sshReadyTimeoutSeconds, 180);
    return Number.isFinite(value) && value >= 5 ? value : 180;
  },
};

export function affects(event: vscode.ConfigurationChangeEvent, setting: string): boolean {
  return event.affectsConfiguration(setting);
}
