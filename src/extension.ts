// The activation chunk (dist/extension.js): only what the first screen needs (src/ui/shell/).
// The rest is dist/main.js (src/main.ts), loaded on first use.
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { couldNotLoad, Shell } from './ui/shell/shell';
import type { TestApi } from './ui/testApi';

/** What `activate` returns: read by the integration tests, not a public API. */
export interface ExtensionApi {
  /** What the integration tests observe and steer (src/ui/testApi.ts); reading it loads the rest. */
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
  const moduleMs = timed ? __gpuRentalLoadEnd - __gpuRentalLoadStart : 0;
  const apiMs = timed ? __gpuRentalApiReady - __gpuRentalLoadStart : 0;
  const shell = new Shell(context, join(__dirname, 'main.js'));
  context.subscriptions.push(shell);
  const activateMs = performance.now() - started;
  shell.activated({ moduleMs, apiMs, activateMs });
  return {
    get test(): TestApi {
      const { main, failed } = shell.load('test', 'first');
      if (!main) throw new Error(couldNotLoad(failed));
      return main.test as TestApi;
    },
    activationMs: moduleMs + activateMs,
    logDir: dirname(context.logUri.fsPath),
  };
}

export function deactivate(): void {}
