import * as vscode from 'vscode';
import { presentApiKey, presentSshKey } from '../../../core/account/present';
import type { ApiKey, SshKey } from '../../../core/api/account';
import { PresentedItem } from './rows';

/** An API key of the account; `inUse` when GPU Rental is signed in with it. */
export class ApiKeyItem extends PresentedItem {
  constructor(
    readonly key: ApiKey,
    readonly inUse: boolean,
  ) {
    super(presentApiKey(key, inUse), vscode.TreeItemCollapsibleState.None);
  }
}

/** An SSH key of the account. */
export class SshKeyItem extends PresentedItem {
  constructor(readonly key: SshKey) {
    super(presentSshKey(key), vscode.TreeItemCollapsibleState.None);
  }
}
