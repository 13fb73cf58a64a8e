import * as vscode from 'vscode';
import { DEFAULT_BASE_URL } from '../../core/api/limits';
import { SETTINGS } from '../../core/ids';
import { NUMBER_RULES, boundedNumber, spendCap, userOrDefault } from '../../core/settings';
import type { ConnectVia } from '../../core/ssh/connector';
import type { ReleaseSettings } from '../../core/browserWorkspace/release';

/** Any setting as VS Code resolves it (user, then workspace, then folder). For settings a workspace may set. */
function resolved<T>(key: string): T | undefined {
  return vscode.workspace.getConfiguration().get<T>(key);
}

/**
 * A money or identity setting: the user's value or the default, never a workspace's. These are
 * application-scoped (VS Code ignores a workspace value for them), and the reader makes sure of it.
 */
function userSetting<T>(key: string): T | undefined {
  return userOrDefault(vscode.workspace.getConfiguration().inspect<T>(key));
}

/** One typed getter per setting, read fresh each time so changes apply without a reload. */
export const config = {
  apiUrl(): string {
    const value = userSetting<string>(SETTINGS.apiUrl);
    return (typeof value === 'string' && value.trim()) || DEFAULT_BASE_URL;
  },
  pollIntervalSeconds(): number {
    return boundedNumber(resolved(SETTINGS.pollIntervalSeconds), NUMBER_RULES[SETTINGS.pollIntervalSeconds]);
  },
  /** Minutes between two search requests of the watched searches (all of them together). */
  watchIntervalMinutes(): number {
    return boundedNumber(resolved(SETTINGS.watchIntervalMinutes), NUMBER_RULES[SETTINGS.watchIntervalMinutes]);
  },
  /** 0 or empty: no cap. */
  maxHourlySpend(): number | undefined {
    return spendCap(userSetting(SETTINGS.maxHourlySpend));
  },
  /** How many offers Rent Best Match tries: whole, 1 to 10, from the user's settings only (each try is a rent). */
  rentFailoverAttempts(): number {
    return Math.floor(boundedNumber(userSetting(SETTINGS.rentFailoverAttempts), NUMBER_RULES[SETTINGS.rentFailoverAttempts]));
  },
  /** Days before a contract ends that its row and a notice say so (0: never); the user's settings only. */
  contractEndNoticeDays(): number {
    return Math.floor(boundedNumber(userSetting(SETTINGS.contractEndNoticeDays), NUMBER_RULES[SETTINGS.contractEndNoticeDays]));
  },
  lowCreditHours(): number {
    return boundedNumber(userSetting(SETTINGS.lowCreditHours), NUMBER_RULES[SETTINGS.lowCreditHours]);
  },
  lowCreditAmount(): number {
    return boundedNumber(userSetting(SETTINGS.lowCreditAmount), NUMBER_RULES[SETTINGS.lowCreditAmount]);
  },
  idleStopEnabled(): boolean {
    return userSetting<boolean>(SETTINGS.idleStopEnabled) !== false;
  },
  /** Minutes, at most a week; fractions are allowed (tests use seconds' worth). */
  idleStopMinutes(): number {
    return boundedNumber(userSetting(SETTINGS.idleStopMinutes), NUMBER_RULES[SETTINGS.idleStopMinutes]);
  },
  idleGpuThreshold(): number {
    return boundedNumber(userSetting(SETTINGS.idleGpuThreshold), NUMBER_RULES[SETTINGS.idleGpuThreshold]);
  },
  idleCountdownSeconds(): number {
    return boundedNumber(userSetting(SETTINGS.idleCountdownSeconds), NUMBER_RULES[SETTINGS.idleCountdownSeconds]);
  },
  /** The folder a connect opens on the instance; empty opens an empty remote window. */
  remoteFolder(): string {
    const value = resolved<string>(SETTINGS.remoteFolder);
    return typeof value === 'string' ? value.trim() : '/root';
  },
  /**
   * Which VS Code server Open in Browser installs on an instance, from the user's settings only: a
   * workspace must not swap the build an instance runs with the user's files and password.
   */
  browserWorkspaceRelease(): ReleaseSettings {
    const text = (key: string) => {
      const value = userSetting<unknown>(key);
      return typeof value === 'string' ? value : undefined;
    };
    const sha = userSetting<unknown>(SETTINGS.browserWorkspaceSha256);
    return {
      version: text(SETTINGS.browserWorkspaceVersion),
      downloadUrl: text(SETTINGS.browserWorkspaceDownloadUrl),
      checksumUrl: text(SETTINGS.browserWorkspaceChecksumUrl),
      ...(sha && typeof sha === 'object' && !Array.isArray(sha) ? { sha256: sha as Record<string, unknown> } : {}),
    };
  },
  /** The folder uploads go into and Destroy measures: remoteFolder, or /root when that is empty. */
  transferFolder(): string {
    return this.remoteFolder() || '/root';
  },
  /** rsync patterns an upload leaves out; anything that is not a list of strings reads as the default. */
  syncExclude(): string[] {
    const value = resolved<unknown>(SETTINGS.syncExclude);
    return Array.isArray(value)
      ? value.filter((v): v is string => typeof v === 'string')
      : ['.git/', 'node_modules/', '__pycache__/', '.venv/'];
  },
  sshIdentityFile(): string | undefined {
    const value = userSetting<string>(SETTINGS.sshIdentityFile);
    return (typeof value === 'string' && value.trim()) || undefined;
  },
  sshConnectVia(): ConnectVia {
    const value = userSetting<string>(SETTINGS.sshConnectVia);
    return value === 'direct' || value === 'proxy' ? value : 'auto';
  },
  /** The health check after every rent made in this window; from the user's settings only. */
  healthCheckAfterRent(): boolean {
    return userSetting<boolean>(SETTINGS.healthCheckAfterRent) !== false;
  },
  /** The health check's download URL; empty: not measured. From the user's settings only (it runs on the instance). */
  healthSpeedTestUrl(): string {
    const value = userSetting<string>(SETTINGS.healthSpeedTestUrl);
    return typeof value === 'string' ? value.trim() : '';
  },
  sshReadyTimeoutSeconds(): number {
    return boundedNumber(resolved(SETTINGS.sshReadyTimeoutSeconds), NUMBER_RULES[SETTINGS.sshReadyTimeoutSeconds]);
  },
};

export function affects(event: vscode.ConfigurationChangeEvent, setting: string): boolean {
  return event.affectsConfiguration(setting);
}
