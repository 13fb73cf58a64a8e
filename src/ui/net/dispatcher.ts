import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Dispatcher } from 'undici';
import type { RequestDispatcher } from '../../core/api/transport';
import type { OwnedDispatcher, ProxySettings } from './undici';

type Chunk = typeof import('./undici');

/**
 * The dispatcher the client uses. It honours VS Code's proxy settings (a private undici agent
 * bypasses VS Code's own proxy support) and the usual proxy variables, loads undici from
 * dist/undici.js on the first request, and is rebuilt when the proxy settings change.
 */
export class VsCodeDispatcher implements RequestDispatcher, vscode.Disposable {
  private inner: OwnedDispatcher | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly chunkDir: string) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('http.proxy') || e.affectsConfiguration('http.noProxy') || e.affectsConfiguration('http.proxyStrictSSL')) {
        void this.inner?.close();
        this.inner = undefined;
      }
    });
  }

  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    this.inner ??= this.load().createDispatcher(proxySettings());
    return this.inner.request(options);
  }

  dispose(): void {
    this.subscription.dispose();
    void this.inner?.close();
  }

  private load(): Chunk {
    // A computed path, so esbuild leaves this require for run time instead of inlining undici.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(join(this.chunkDir, 'undici.js')) as Chunk;
  }
}

function proxySettings(): ProxySettings {
  const http = vscode.workspace.getConfiguration('http');
  return {
    proxy: http.get<string>('proxy')?.trim() || undefined,
    noProxy: http.get<string[]>('noProxy') ?? [],
    strictSSL: http.get<boolean>('proxyStrictSSL', true),
  };
}
