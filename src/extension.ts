// First: the messages of every module below follow VS Code's display language.
import './ui/l10n';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { registerAllCommands } from './ui/commands/index';
import { Services } from './ui/services';
import { testApi, type TestApi } from './ui/testApi';

/** What `activate` returns: read by the integration tests, not a public API. */
export interface ExtensionApi {
  /** What the integration tests observe and steer (src/ui/testApi.ts). */
  readonly test: TestApi;
  readonly activationMs: number;
  /** The extension host's log folder, which holds the "GPU Rental" channel's file. */
  readonly logDir: string;
}

/** Set by the bundle's first and last lines (esbuild.mjs): how long evaluating the module took. */
declare const __gpuRentalLoadStart: number | undefined;
declare const __gpuRentalLoadEnd: number | undefined;
declare const __gpuRentalApiReady: number | undefined;

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const started = performance.now();
  const timed =
    typeof __gpuRentalLoadStart === 'number' && typeof __gpuRentalLoadEnd === 'number' && typeof __gpuRentalApiReady === 'number';
  const loadMs = timed ? __gpuRentalLoadEnd - __gpuRentalLoadStart : 0;
  const apiMs = timed ? __gpuRentalApiReady - __gpuRentalLoadStart : 0;
  const services = new Services(context);
  context.subscriptions.push(services, ...registerAllCommands(services));
  // Reading the key and asking the service about it happen after activation returns.
  void services.start().catch((error: unknown) => services.logger.error(`Start-up failed: ${String(error)}`));
  const activateMs = performance.now() - started;
  const activationMs = loadMs + activateMs;
  services.logger.info(
    `Activated in ${activationMs.toFixed(1)} ms: module ${loadMs.toFixed(1)} ms (VS Code's API object ${apiMs.toFixed(1)} ms of it) + activate() ${activateMs.toFixed(1)} ms (GPU Rental ${String(context.extension.packageJSON.version)}, VS Code ${vscode.version}, language ${vscode.env.language}).`,
  );
  return { test: testApi(services), activationMs, logDir: dirname(context.logUri.fsPath) };
}

export function deactivate(): void {}
