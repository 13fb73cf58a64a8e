import * as vscode from 'vscode';
import { presentSecret } from '../../../core/account/secrets';
import { PresentedItem } from './rows';

/** One of the account's environment variables, by name: the client never reads its value. */
export class SecretItem extends PresentedItem {
  constructor(readonly name: string) {
    super(presentSecret(name), vscode.TreeItemCollapsibleState.None);
  }
}
