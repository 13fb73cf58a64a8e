import * as assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { secretFingerprint } from '../../src/core/account/apiKeys';
import type { ExtensionApi } from '../../src/extension';

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

export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Signs in with the run's full-access key through the command, as automation would. */
export async function signIn(): Promise<ExtensionApi> {
  const x = await extensionApi();
  // An earlier suite may have left another profile (account) in use.
  if (x.services.session.profileId !== 'default') await x.services.switchProfile('default');
  await setApiUrl(sim.url);
  // Ready is not enough: an earlier suite may have left a scoped key signed in.
  if (x.services.session.state.kind !== 'ready' || x.services.session.keyFingerprint !== secretFingerprint(sim.key)) {
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', sim.key), true);
  }
  return x;
}

export async function signOut(): Promise<ExtensionApi> {
  const x = await extensionApi();
  await setApiUrl(sim.url);
  if (x.services.session.hasKey) await vscode.commands.executeCommand('gpuRental.signOut');
  return x;
}

export async function setApiUrl(url: string): Promise<void> {
  const x = await extensionApi();
  const cfg = vscode.workspace.getConfiguration('gpuRental');
  if (cfg.get('apiUrl') !== url) await cfg.update('apiUrl', url, vscode.ConfigurationTarget.Global);
  await eventually(() => x.services.session.baseUrl === url && x.services.session.state.kind !== 'checking', `the session to use ${url}`);
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
