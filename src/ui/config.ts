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
