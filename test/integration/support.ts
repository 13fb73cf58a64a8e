import * as assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import type { Instance } from '../../src/core/api/instances';
import { sshEndpoint } from '../../src/core/instances/ssh';
import { waitForSshBanner } from '../../src/core/ssh/probe';
import { secretFingerprint } from '../../src/core/session/session';
import type { ExtensionApi } from '../../src/extension';
import { eventually } from '../support/eventually';

export { eventually };

export const EXTENSION_ID = 'gpu-rental.gpu-rental';

/** The simulator the runner started for this run, and its full-access key. */
export const sim = {
  url: required('GPU_RENTAL_TEST_API_URL'),
  key: required('GPU_RENTAL_TEST_API_KEY'),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suites with npm run test:integration`);
  return value;
}

export async function extensionApi(): Promise<ExtensionApi> {
  const ext = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed`);
  return ext.activate();
}

/** Calls the simulator's test-only control route. */
export async function control(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sim.url}/__control/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(res.ok, `control ${method} ${path}: HTTP ${res.status}`);
  return res.json();
}

/** Calls the simulator's API with a key, as a second client would. */
export async function api(method: string, path: string, key: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(res.ok, `${method} ${path}: HTTP ${res.status}`);
  return res.json();
}

/**
 * The rentable on-demand offers matching `filters`, cheapest first, as the account with `key` sees
 * them. A rented offer is no longer rentable, so the first one is always free to rent: suites pick
 * by position in this list, never at random, and a run repeats itself.
 */
export async function rentableOffers(filters: { [field: string]: unknown } = {}, limit = 30, key = sim.key): Promise<Offer[]> {
  const body = { rentable: { eq: true }, ...filters, order: [['dph_total', 'asc']], limit, type: 'on-demand' };
  return ((await api('POST', '/api/v0/bundles/', key, body)) as { offers: Offer[] }).offers;
}

/** The instance's `actual_status` as the run's account sees it through the API; undefined or null once it is gone. */
export async function instanceStatus(id: number): Promise<string | null | undefined> {
  return ((await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: { actual_status: string | null } | null })
    .instances?.actual_status;
}

/**
 * Rents the cheapest rentable offer through the API, as another client would (ubuntu:22.04, 8 GB,
 * and `fields` such as runtype or label), and says the new instance's id without waiting for it.
 */
export async function rentByApi(fields: { [field: string]: unknown } = {}): Promise<number> {
  const [offer] = await rentableOffers({}, 1);
  const created = (await api('PUT', `/api/v0/asks/${offer!.id}/`, sim.key, {
    client_id: 'me',
    image: 'ubuntu:22.04',
    disk: 8,
    ...fields,
  })) as {
    new_contract: number;
  };
  return created.new_contract;
}

/** Rents as `rentByApi` does and waits until the instance runs. */
export async function rentedAndRunning(fields: { [field: string]: unknown } = {}): Promise<number> {
  const id = await rentByApi(fields);
  await eventually(async () => (await instanceStatus(id)) === 'running', 'the instance to run', 20_000);
  return id;
}

/**
 * Rents as rentedAndRunning does, then waits until the instance's sshd answers: "running" comes
 * before the container's sshd listens (on the service too), and a suite that moves files at once
 * would otherwise meet "Connection refused".
 */
export async function rentedAndReachable(fields: { [field: string]: unknown } = {}): Promise<number> {
  const id = await rentedAndRunning(fields);
  const record = (await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: Instance };
  const endpoint = sshEndpoint(record.instances);
  if (endpoint) await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: 30_000, intervalMs: 100 });
  return id;
}

/**
 * Every quick pick the extension makes from now until `restore`, to read what a wizard showed or to
 * pick in it: the extension and these suites share one vscode API object.
 */
export function recordQuickPicks(): { picks: vscode.QuickPick<vscode.QuickPickItem>[]; restore: () => void } {
  const picks: vscode.QuickPick<vscode.QuickPickItem>[] = [];
  const original = vscode.window.createQuickPick;
  vscode.window.createQuickPick = (<T extends vscode.QuickPickItem>() => {
    const qp = original<T>();
    picks.push(qp as unknown as vscode.QuickPick<vscode.QuickPickItem>);
    return qp;
  }) as typeof original;
  return { picks, restore: () => (vscode.window.createQuickPick = original) };
}

/** Signs in with the run's full-access key through the command, as automation would. */
export async function signIn(): Promise<ExtensionApi> {
  const x = await extensionApi();
  // A test of the suite may have switched to another profile (account).
  if (x.test.session().profileId !== 'default') await x.test.switchProfile('default');
  await setApiUrl(sim.url);
  // Ready is not enough: a test may have left a scoped key signed in.
  const session = x.test.session();
  if (session.state !== 'ready' || session.keyFingerprint !== secretFingerprint(sim.key)) {
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', sim.key), true);
  }
  return x;
}

export async function signOut(): Promise<ExtensionApi> {
  const x = await extensionApi();
  await setApiUrl(sim.url);
  if (x.test.session().hasKey) await vscode.commands.executeCommand('gpuRental.signOut');
  return x;
}

export async function setApiUrl(url: string): Promise<void> {
  const x = await extensionApi();
  const cfg = vscode.workspace.getConfiguration('gpuRental');
  if (cfg.get('apiUrl') !== url) await cfg.update('apiUrl', url, vscode.ConfigurationTarget.Global);
  await eventually(() => {
    const session = x.test.session();
    return session.baseUrl === url && session.state !== 'checking';
  }, `the session to use ${url}`);
}

/** Confirmations answered with one answer, for the time a suite's setup or reset needs. */
export const always = (answer: boolean) => ({ confirm: async () => answer });

/** A notification the extension showed, with its level. */
export interface Notification {
  readonly level: 'info' | 'warning' | 'error';
  readonly message: string;
}

/**
 * Records the notifications the extension shows until disposed; they are still shown. The suites
 * and the extension share one `vscode` API object, so wrapping its functions here sees the
 * extension's calls.
 */
export function recordNotifications(): { readonly seen: Notification[]; dispose(): void } {
  const seen: Notification[] = [];
  const w = vscode.window;
  const originals = { info: w.showInformationMessage, warning: w.showWarningMessage, error: w.showErrorMessage };
  const wrap =
    (level: Notification['level'], original: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      seen.push({ level, message: String(args[0]) });
      return original.apply(w, args);
    };
  w.showInformationMessage = wrap('info', originals.info as (...args: unknown[]) => unknown) as typeof w.showInformationMessage;
  w.showWarningMessage = wrap('warning', originals.warning as (...args: unknown[]) => unknown) as typeof w.showWarningMessage;
  w.showErrorMessage = wrap('error', originals.error as (...args: unknown[]) => unknown) as typeof w.showErrorMessage;
  return {
    seen,
    dispose: () => {
      w.showInformationMessage = originals.info;
      w.showWarningMessage = originals.warning;
      w.showErrorMessage = originals.error;
    },
  };
}

/** Every line the extension has written to its log channel so far (read from the log files). */
export async function extensionLog(): Promise<string> {
  const x = await extensionApi();
  const files = await logFiles(x.logDir);
  const texts = await Promise.all(files.map((f) => readFile(f, 'utf8')));
  return texts.join('\n');
}

async function logFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? logFiles(join(dir, e.name)) : Promise.resolve(e.name.endsWith('.log') ? [join(dir, e.name)] : []),
    ),
  );
  return nested.flat();
}
