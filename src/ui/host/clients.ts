import * as vscode from 'vscode';
import type { GpuRentalClient } from '../../core/api/client';
import type { Logger } from '../../core/log';
import type { ClientFactory } from '../../core/session/session';
import { VsCodeDispatcher } from '../net/dispatcher';
import { fetchText } from '../../core/browserWorkspace/fetchText';

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The client and its zod schemas, evaluated on the first request rather than at activation:
 * esbuild turns a require() into a module that initialises when first called.
 */
function loadClient(): { GpuRentalClient: typeof GpuRentalClient } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../../core/api/client') as { GpuRentalClient: typeof GpuRentalClient };
}

/**
 * Makes clients for a base URL and key (the session's, and short-lived ones for other profiles),
 * all through one dispatcher that honours VS Code's proxy settings. Dispose it with the extension.
 */
export function clientFactory(
  context: vscode.ExtensionContext,
  logger: Logger,
): { createClient: ClientFactory; fetchText: (url: string, signal: AbortSignal) => Promise<string> } & vscode.Disposable {
  const dispatcher = new VsCodeDispatcher(context.asAbsolutePath('dist'));
  const userAgent = `gpu-rental-vscode/${String(context.extension.packageJSON.version)} vscode/${vscode.version}`;
  return {
    createClient: (baseUrl, getApiKey) => {
      const { GpuRentalClient: Client } = loadClient();
      return new Client({ dispatcher, baseUrl, getApiKey, logger, timeoutMs: REQUEST_TIMEOUT_MS, userAgent });
    },
    // A small document on another host (a release's checksum): no key, the same proxy.
    fetchText: (url, signal) => fetchText(dispatcher, url, signal, userAgent),
    dispose: () => dispatcher.dispose(),
  };
}
