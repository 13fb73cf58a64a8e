import type * as vscode from 'vscode';
import { Emitter } from '../../core/events';
import type { KeyStore } from '../../core/session/session';

const PREFIX = 'gpuRental.apiKey:';

/**
 * API keys in SecretStorage, one per slot (a base URL and a GPU Rental profile, see keySlot).
 * SecretStorage's own change event also fires when another window stores or deletes a key, which
 * keeps every window in sync.
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

  get(slot: string): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(PREFIX + slot));
  }

  store(slot: string, key: string): Promise<void> {
    return Promise.resolve(this.secrets.store(PREFIX + slot, key));
  }

  delete(slot: string): Promise<void> {
    return Promise.resolve(this.secrets.delete(PREFIX + slot));
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
