import { l10n } from '../l10n';
import { shellAssignments } from '../shell';
import INSTALL from './remote/install.sh';
import START from './remote/start.sh';
import STOP from './remote/stop.sh';

/*
 * The scripts Open in Browser runs on an instance (bodies in remote/, parameters on a line before
 * them), and what their output means. Every value they are given is checked or quoted here; the
 * password the start script prints is read from its output and never logged.
 */

/** Where the server, its state and its password live on the instance, under $HOME. */
export const STATE_DIR = '.local/share/gpu-rental/code-server';

export interface InstallParams {
  readonly url: string;
  readonly sha256: string;
  /** The folder name it installs as (`code-server-<version>-linux-<arch>`). */
  readonly folderName: string;
  readonly stateDir?: string;
}

/** Downloads, checks and unpacks the server on the instance (install.sh). */
export function installScript(p: InstallParams): string {
  if (!/^[0-9a-f]{64}$/.test(p.sha256)) throw new Error(l10n.t('not a sha256: {0}', p.sha256));
  return `${shellAssignments({ URL: p.url, SHA: p.sha256, FOLDER: folderName(p.folderName), BASE: p.stateDir ?? STATE_DIR })}\n${INSTALL}`;
}

/** Starts the server, or finds the running one (start.sh). */
export function startScript(p: { version: string; cookieSuffix: string; stateDir?: string }): string {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(p.cookieSuffix)) throw new Error(l10n.t('not a cookie suffix: {0}', p.cookieSuffix));
  return `${shellAssignments({ VERSION: folderName(p.version), BASE: p.stateDir ?? STATE_DIR, SUFFIX: p.cookieSuffix })}\n${START}`;
}

/** Stops the server and removes its password (stop.sh). */
export function stopScript(p: { stateDir?: string } = {}): string {
  return `${shellAssignments({ BASE: p.stateDir ?? STATE_DIR })}\n${STOP}`;
}

function folderName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,100}$/.test(name)) throw new Error(l10n.t('not a folder name: {0}', name));
  return name;
}

/** What start.sh said: a server (running or just started) with its port and password, or none installed. */
export type StartAnswer =
  | { readonly kind: 'server'; readonly reused: boolean; readonly port: number; readonly password: string }
  | { readonly kind: 'missing'; readonly machine: string };

/** start.sh's output read; undefined when it is not what start.sh prints (the instance wrote something else). */
export function parseStart(stdout: string): StartAnswer | undefined {
  const lines = stdout.split('\n');
  const missing = lines.map((l) => /^missing (\S{1,40})$/.exec(l)).find(Boolean);
  if (missing) return { kind: 'missing', machine: missing[1]! };
  const server = lines.map((l) => /^(running|started) (\d{1,5})$/.exec(l)).find(Boolean);
  const password = lines.map((l) => /^password ([0-9A-Za-z]{16,128})$/.exec(l)).find(Boolean);
  if (!server || !password) return undefined;
  const port = Number(server[2]);
  if (port < 1 || port > 65535) return undefined;
  return { kind: 'server', reused: server[1] === 'running', port, password: password[1]! };
}

/** The bytes downloaded so far, from the last `progress` line of install.sh's output so far. */
export function lastProgress(output: string): number | undefined {
  const all = [...output.matchAll(/^progress (\d{1,15})$/gm)];
  const last = all.at(-1);
  return last ? Number(last[1]) : undefined;
}

/** Why install.sh failed, by its exit code. */
export type InstallFailure = 'noFetcher' | 'download' | 'checksum' | 'noSpace' | 'notAServer' | 'noShaTool' | 'busy' | 'stateDir' | 'other';

const FAILURES: Record<number, InstallFailure> = {
  10: 'noFetcher',
  11: 'download',
  12: 'checksum',
  13: 'noSpace',
  14: 'notAServer',
  15: 'noShaTool',
  16: 'busy',
  17: 'stateDir',
};

export function installFailure(code: number): InstallFailure {
  return FAILURES[code] ?? 'other';
}
