import * as vscode from 'vscode';
import { DEFAULT_BASE_URL } from '../core/api/limits';
import { SETTINGS } from '../core/ids';

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
};

export function affects(event: vscode.ConfigurationChangeEvent, setting: string): boolean {
  return event.affectsConfiguration(setting);
}
