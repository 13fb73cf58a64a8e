import type * as vscode from 'vscode';
import { Emitter } from '../core/events';
import type { KeyStore } from '../core/session/session';

const PREFIX = 'gpuRental.apiKey:';

/**
 * API keys in SecretStorage, one per base URL. SecretStorage's own change event also fires when
 * another window of the same profile stores or deletes a key, which keeps every window in sync.
 */
export class SecretKeyStore implements KeyStore, vscode.Disposable {
  private readonly changed = new Emitter<string>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (e.key.startsWith(PREFIX)) this.changed.fire(e.key.slice(PREFIX.length));
    });
  }

  get(baseUrl: string): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(PREFIX + baseUrl));
  }

  store(baseUrl: string, key: string): Promise<void> {
    return Promise.resolve(this.secrets.store(PREFIX + baseUrl, key));
  }

  delete(baseUrl: string): Promise<void> {
    return Promise.resolve(this.secrets.delete(PREFIX + baseUrl));
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
